"""Races: 50 people save the same row at the same moment, for every versioned write there is
(the package's docstring says how)."""

from __future__ import annotations

import threading
from importlib import import_module

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import resolve
from rest_framework.test import APIClient

import common.views
from common.views import ActionRouter
from tests.conftest import IN_CI
from tests.factories import make_everything
from tests.races.catalogue import (
    RACES,
    UNVERSIONED_API_WRITES,
    UNVERSIONED_PAGE_WRITES,
    page_writes,
    versioned_api_writes,
    versioned_forms,
)
from tests.races.world import THREADS, Race, Shot, World


def test_every_versioned_write_has_a_race(client, owner):
    """A new versioned write fails here until it has a race below (or, for a page write that
    names no version, a line in UNVERSIONED_PAGE_WRITES saying why)."""
    raced = {race.key for race in RACES}
    assert len(RACES) == len({(r.key, r.form) for r in RACES}), "a race is listed twice"

    pages = page_writes()
    raced_pages = {(route, how) for surface, route, how in raced if surface == "page"}
    assert not raced_pages & set(UNVERSIONED_PAGE_WRITES)
    assert pages == raced_pages | set(UNVERSIONED_PAGE_WRITES), (
        "page writes without a race:",
        sorted(pages - raced_pages - set(UNVERSIONED_PAGE_WRITES)),
        "races or exceptions of no page write:",
        sorted((raced_pages | set(UNVERSIONED_PAGE_WRITES)) - pages),
    )
    forms_raced = {race.form for race in RACES if race.surface == "page"}
    assert versioned_forms() == forms_raced, (
        "versioned forms without a race:",
        sorted(f.__name__ for f in versioned_forms() - forms_raced),
    )

    client.force_login(owner)
    schema = client.get("/api/schema/", {"format": "json"}).json()
    api = versioned_api_writes(schema)
    raced_api = {key for key in raced if key[0] == "api"}
    assert not raced_api & set(UNVERSIONED_API_WRITES)
    assert api == raced_api | set(UNVERSIONED_API_WRITES), (
        "API writes without a race:",
        sorted(api - raced_api - set(UNVERSIONED_API_WRITES)),
        "races or exceptions of no versioned API write:",
        sorted((raced_api | set(UNVERSIONED_API_WRITES)) - api),
    )


# --- the races -----------------------------------------------------------------------------------


class FormsSeen:
    """Which forms the page writes parsed: PageAction asks `version_missing` about each."""

    def __init__(self, original):
        self.original, self.seen, self.lock = original, set(), threading.Lock()

    def __call__(self, form):
        with self.lock:
            self.seen.add(type(form))
        return self.original(form)


def signed_in(users: list) -> list[str]:
    """THREADS session keys, one per thread, taking turns among `users`: each user signs in once
    (force_login) and each thread gets a session of its own holding the same sign-in."""
    engine = import_module(settings.SESSION_ENGINE)
    sign_ins = []
    for user in users:
        client = Client()
        client.force_login(user)
        sign_ins.append(dict(client.session.items()))
    keys = []
    for n in range(THREADS):
        session = engine.SessionStore()
        session.update(sign_ins[n % len(users)])
        session.create()
        keys.append(session.session_key)
    return keys


def clients(surface: str, keys: list[str]) -> list:
    """One client per thread (pages: Django's test client; API: DRF's), signed in."""
    made = []
    for key in keys:
        client = Client() if surface == "page" else APIClient()
        client.cookies[settings.SESSION_COOKIE_NAME] = key
        made.append(client)
    return made


def fire(race: Race, shot: Shot, pool: list, version: int) -> list:
    """Every thread sends at once; returns each thread's status (or the exception it met)."""
    outcome: list = [None] * THREADS
    start = threading.Barrier(THREADS)
    # One request first: the middleware's metrics are made once per process, and threads that
    # all make them at once (the first requests this process answers) collide in the registry.
    Client().get("/livez")

    def send(n):
        try:
            body, extra = shot.send(n, version), {}
            if race.surface == "api" and n % 2:  # half name the version in the body…
                body = {**body, "version": version}
            elif race.surface == "api":  # …half as If-Match
                extra["HTTP_IF_MATCH"] = f'"{version}"'
            if shot.htmx:
                extra["HTTP_HX_REQUEST"] = "true"
            start.wait(timeout=60)
            if race.surface == "page":
                response = pool[n].post(shot.path, body, **extra)
            else:
                method = getattr(pool[n], race.how.lower())
                response = method(shot.path, body, format="json", **extra)
            outcome[n] = response.status_code
        except Exception as exc:  # noqa: BLE001 - reported with the race
            outcome[n] = f"{type(exc).__name__}: {exc}"
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(n,), daemon=True) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for n, t in enumerate(threads):
        if t.is_alive():
            outcome[n] = "still waiting after 120 s (a deadlock?)"
    return outcome


def run(race: Race, w: World, pools: dict, seen: FormsSeen) -> list[str]:
    """One race; returns what went wrong (nothing: exactly one won and the rest were stale)."""
    shot = race.build(w)
    pool, users = pools[race.surface, shot.owner_only]
    match = resolve(shot.path)
    assert match.view_name == race.route, (race, match.view_name)
    before = shot.row()
    if race.surface == "page" and issubclass(match.func.view_class, ActionRouter):
        assert shot.send(0, 0)["action"] == race.how, race
    version = before.version if before else 0
    records = set(before.history.values_list("history_id", flat=True)) if before else set()
    seen.seen.clear()

    outcome = fire(race, shot, pool, version)

    problems = []
    stale = {n: 412 if race.surface == "api" and n % 2 == 0 else 409 for n in range(THREADS)}
    winners = [n for n, status in enumerate(outcome) if status == shot.won]
    if len(winners) != 1:
        problems.append(f"{len(winners)} saves answered {shot.won}, not exactly one")
    odd = {n: s for n, s in enumerate(outcome) if n not in winners and s != stale[n]}
    if odd:
        problems.append(f"answers other than {shot.won} or stale: {sorted(odd.items())[:5]}")
    after = shot.row()
    if after is None:
        problems.append("nothing saved")
    elif after.version != version + 1:
        problems.append(f"version {version} became {after.version}, not {version + 1}")
    if after is not None and len(winners) == 1:
        winner = winners[0]
        if shot.saved(after) != shot.sent(winner):
            problems.append(f"saved {shot.saved(after)!r}, the winner sent {shot.sent(winner)!r}")
        # The history holds the winner's save and nothing else (a many-to-many change adds
        # records of its own, so count authors and versions, not records).
        new = after.history.exclude(history_id__in=records)
        authors = set(new.values_list("version", "history_user"))
        if authors != {(version + 1, users[winner % len(users)].pk)}:
            problems.append(f"history after the race: {sorted(authors)} (version, author)")
    if race.surface == "page" and seen.seen != {race.form}:
        problems.append(f"the view parsed {seen.seen}, not {race.form}")
    return [f"{race}: {p}" for p in problems]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_of_50_parallel_saves_of_one_row_exactly_one_wins(owner, people, monkeypatch):
    if connection.vendor != "postgresql":
        if IN_CI:
            pytest.fail("CI must run this on PostgreSQL")
        pytest.skip("row locks need PostgreSQL (SQLite serialises the whole database)")
    seen = FormsSeen(common.views.version_missing)
    monkeypatch.setattr(common.views, "version_missing", seen)
    w = World.of(make_everything(owner, people), people)
    pools = {}
    for owner_only in (False, True):
        users = [w.owner] if owner_only else [w.owner, w.editor]
        keys = signed_in(users)
        for surface in ("page", "api"):
            pools[surface, owner_only] = clients(surface, keys), users
    problems = []
    for race in RACES:
        problems += run(race, w, pools, seen)
    assert not problems, "\n".join(problems)
