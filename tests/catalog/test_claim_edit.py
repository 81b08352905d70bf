"""Administrators edit a claim in place on the solution page: both languages, sources by key,
the level rules, history, a stale edit refused, nobody else allowed."""

import datetime
import threading

import pytest
from django.db import connection
from django.urls import reverse

from catalog.models import CapabilityClaim, SupportLevel
from common import roles
from tests.conftest import IN_CI, make_user

pytestmark = pytest.mark.django_db


def claim_of(slug="slurm", capability="backfill"):
    return CapabilityClaim.objects.get(solution__slug=slug, capability__slug=capability)


def edit_url(claim):
    return reverse("catalog:claim_edit", args=[claim.solution.slug, claim.capability.slug])


def form_data(claim, **changes):
    data = {
        "version": claim.version,
        "level": claim.level,
        "as_of_version": claim.as_of_version,
        "checked_on": "",
        "sources": ", ".join(s.key for s in claim.sources.all()),
        "note_en": claim.note_en,
        "note_zh_hans": claim.note_zh_hans,
    }
    data.update(changes)
    return data


def test_an_admin_edits_both_notes_sources_and_checked_on_in_place(client, admin_user):
    client.force_login(admin_user)
    claim = claim_of()
    page = client.get(reverse("catalog:solution_detail", args=["slurm"]))
    assert edit_url(claim) in page.content.decode()
    row = client.get(edit_url(claim), headers={"HX-Request": "true"})
    assert row.status_code == 200 and 'data-testid="claim-form"' in row.content.decode()
    saved = client.post(
        edit_url(claim),
        form_data(
            claim,
            level="partial",
            as_of_version="26.05.3",
            checked_on="2026-11-30",
            sources="SL-sched, SL-conf",
            note_en="Backfill works; reservations are limited (marker e1).",
            note_zh_hans="支持回填，但预留有限（标记 e1）。",
            verified_in_poc="on",
        ),
        headers={"HX-Request": "true"},
    )
    assert saved.status_code == 200
    assert "marker e1" in saved.content.decode() and "<html" not in saved.content.decode()
    claim = claim_of()
    assert claim.level == SupportLevel.PARTIAL
    assert claim.checked_on == datetime.date(2026, 11, 30) and claim.verified_in_poc
    assert sorted(s.key for s in claim.sources.all()) == ["SL-conf", "SL-sched"]
    assert claim.note_zh_hans == "支持回填，但预留有限（标记 e1）。"
    record = claim.history.order_by("-history_id").first()
    assert record.history_user == admin_user and record.level == "partial"


@pytest.mark.parametrize(
    "changes,field,message",
    [
        ({"sources": "SL-sched, NOPE-1"}, "sources", "NOPE-1"),
        ({"sources": "", "level": "native"}, "sources", "Give at least one source"),
        ({"checked_on": "yesterday"}, "checked_on", "YYYY-MM-DD"),
        ({"level": "great"}, "level", "great"),
        ({"note_en": "x" * 20_000}, "note_en", "at most"),
    ],
)
def test_bad_input_is_refused_with_a_message_and_nothing_saved(
    client, admin_user, changes, field, message
):
    client.force_login(admin_user)
    claim = claim_of()
    before = (claim.level, claim.note_en, sorted(s.key for s in claim.sources.all()))
    refused = client.post(edit_url(claim), form_data(claim, **changes))
    assert refused.status_code == 400
    assert message in refused.content.decode()
    claim = claim_of()
    assert (claim.level, claim.note_en, sorted(s.key for s in claim.sources.all())) == before


def test_a_form_without_its_version_is_refused(client, admin_user):
    client.force_login(admin_user)
    claim = claim_of()
    data = form_data(claim, note_en="changed")
    del data["version"]
    assert client.post(edit_url(claim), data).status_code == 428
    assert claim_of().note_en != "changed"


def test_a_stale_edit_is_refused_and_shows_the_saved_claim(client, admin_user):
    client.force_login(admin_user)
    claim = claim_of()
    opened = form_data(claim, note_en="Mine, written on an old copy.")
    other = claim_of()
    other.note_en = "Saved meanwhile by a colleague (marker s9)."
    other.save()
    refused = client.post(edit_url(claim), opened)
    assert refused.status_code == 409
    assert "marker s9" in refused.content.decode()
    assert claim_of().note_en == "Saved meanwhile by a colleague (marker s9)."


@pytest.mark.django_db(transaction=True)
def test_two_admins_saving_at_once_one_wins_the_other_is_told(admin_user):
    from django.test import Client

    if connection.vendor != "postgresql":
        if IN_CI:
            pytest.fail("CI must run this on PostgreSQL")
        pytest.skip("row locks need PostgreSQL (SQLite serialises the whole database)")
    second = make_user(roles.ADMIN, username="ada2")
    claim = claim_of()
    results = []

    def save(user, text):
        c = Client()
        c.force_login(user)
        results.append(c.post(edit_url(claim), form_data(claim, note_en=text)).status_code)
        connection.close()

    threads = [
        threading.Thread(target=save, args=(u, f"by {u.username}")) for u in (admin_user, second)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [302, 409]


@pytest.mark.parametrize("role", [roles.TECH_LEAD, roles.REVIEWER, roles.PROCUREMENT])
def test_nobody_else_edits_or_sees_the_button(client, role):
    user = make_user(role, username=f"u-{role}")
    client.force_login(user)
    claim = claim_of()
    page = client.get(reverse("catalog:solution_detail", args=["slurm"]))
    assert 'data-testid="edit-claim"' not in page.content.decode()
    assert client.get(edit_url(claim)).status_code == 403
    assert client.post(edit_url(claim), form_data(claim, note_en="no")).status_code == 403
    assert claim_of().note_en != "no"


def test_cancel_gives_the_row_back_and_the_page_without_js_works(client, admin_user):
    client.force_login(admin_user)
    claim = claim_of()
    row = client.get(reverse("catalog:claim_row", args=["slurm", "backfill"]))
    assert row.status_code == 200 and 'id="claim-backfill"' in row.content.decode()
    page = client.get(edit_url(claim))
    assert page.status_code == 200 and "<html" in page.content.decode()
    saved = client.post(edit_url(claim), form_data(claim, note_en="Plain form (marker p2)."))
    assert saved.status_code == 302 and saved["Location"].endswith("#claim-backfill")
    shown = client.get(saved["Location"])
    assert "Plain form (marker p2)." in shown.content.decode() and "Claim saved." in (
        shown.content.decode()
    )
