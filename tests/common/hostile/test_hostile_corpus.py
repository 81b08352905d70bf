"""A corpus of hostile values against every page form and every API write (the package's
docstring says how)."""

from __future__ import annotations

import logging

import pytest
from rest_framework.test import APIClient

from tests.common.hostile.api_ops import discover_api_ops, share_fields
from tests.common.hostile.api_requests import run_api_op
from tests.common.hostile.corpus import CORPUS, REQUESTS_AT_LEAST
from tests.common.hostile.judging import Fingerprint, Tally, run_page_form
from tests.common.hostile.world import World
from tests.pageforms import discover_page_forms, fill

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


# --- the tests -------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _quiet_request_log():
    """Thousands of refusals (and any 500, which the tally reports) need no log lines."""
    logger = logging.getLogger("django.request")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    yield
    logger.setLevel(level)


@pytest.fixture
def world(owner, people, monkeypatch):
    # A report request that is accepted is queued, not rendered here (the worker's business).
    monkeypatch.setattr("reports.services.report_enqueue", lambda run_id: True)
    return World(owner, people)


def test_every_page_form_refuses_hostile_input(client, world, capsys):
    client.force_login(world.owner)
    forms, post_routes = discover_page_forms(client, world.evaluation)
    sealed, _routes = discover_page_forms(client, world.sealed)  # the approvals page's forms
    forms += [f for f in sealed if f.route == "signoff:approvals"]
    for form in forms:
        fill(form, world.page_overrides(form))
    covered = {f.route for f in forms}
    missing = post_routes - covered
    assert not missing, f"routes taking POST with no form found: {missing}"
    assert len(forms) >= 20, [f.label for f in forms]

    fingerprint = Fingerprint()
    before = fingerprint()
    tally = Tally()
    for form in forms:
        run_page_form(client, form, tally, fingerprint, before, world.upload_for(form.route))
    with capsys.disabled():
        print("\n" + tally.report("page forms"))
    assert not tally.failures, tally.report("page forms")
    assert not tally.gaps_gone(api=False), "fixed: delete these from KNOWN_GAPS"
    assert tally.targets == len(forms) and tally.fields >= 60
    assert tally.requests >= REQUESTS_AT_LEAST * 600
    # Fields meet different variants of a kind: the run as a whole sends every one.
    assert tally.sent == {v.label for v in CORPUS if v.page is not None}


def test_every_api_write_refuses_hostile_input(world, capsys):
    ops = discover_api_ops(world.path)
    assert len(ops) >= 45, [op.label for op in ops]
    share_fields(ops)
    clients = {}
    for user in (world.owner, world.admin):
        clients[user.pk] = APIClient()
        clients[user.pk].force_authenticate(user)

    def client_for(op):
        return clients[(world.admin if op.as_admin else world.owner).pk]

    fingerprint = Fingerprint()
    before = fingerprint()
    tally = Tally()
    for op in ops:
        run_api_op(client_for, world, op, tally, fingerprint, before)
    with capsys.disabled():
        print("\n" + tally.report("API writes"))
    assert not tally.failures, tally.report("API writes")
    assert not tally.gaps_gone(api=True), "fixed: delete these from KNOWN_GAPS"
    assert tally.targets == len(ops) and tally.fields >= 90
    assert tally.requests >= REQUESTS_AT_LEAST * 1200
    assert tally.sent == {v.label for v in CORPUS}
