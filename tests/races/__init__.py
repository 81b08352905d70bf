"""Races: 50 people save the same row at the same moment, for every versioned write there is.

A versioned write is a page save or an API write that names the version it edited (optimistic
concurrency: common/concurrency.py; pages common/views.py, API common/http.py). For each one, 50
threads, each with its own signed-in client (django.test.Client for pages,
rest_framework.test.APIClient for the API) as the evaluation's owner or editor, wait on one
barrier and then send the same current version, each with a value of its own. Exactly one wins
(with the status that route answers a save: 200 for an htmx row, 302 for a page that redirects,
200 or 201 from the API), the other 49 are refused as stale (pages: 409; API: 412 when the
version came as If-Match, 409 when it came in the body, half each), nothing answers 500 or
hangs, the row holds the winner's value, its version went up by exactly one, and its history
holds the winner's save and nobody else's. Rows nobody saved yet are raced too (version 0:
exactly one creates the row).

Which writes are versioned is found, not listed by hand: every page form with a VersionField,
every page write in the URLconf (each PageAction view and ActionRouter action, as
tests/routes.py walks it), every operation of the served OpenAPI schema that documents 428 or
takes a `version`. A new one without a race below (or, if it names no version, a line saying
why) makes `test_every_versioned_write_has_a_race` fail.

Row locks need PostgreSQL (SQLite serialises the whole database): the races skip on SQLite and
fail under CI (tests.conftest.IN_CI).
"""
