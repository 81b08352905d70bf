"""Stored row status, continued: what the pages show of it, a reader that does not wait for
another's lock, and bulk writes and a new day that make a stored row out of date."""

import re
import threading
from datetime import timedelta

import pytest
from django.core.cache import caches
from django.db import connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation

from catalog.models import Solution
from evaluations import digests
from evaluations.digests import RowStatus
from evaluations.models import (
    CandidateStatus,
    StatusDigest,
    StatusStamp,
)
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from responsibility.models import Cell
from tests.evaluations.digests_support import fresh, row, seq, stored_then_read_again
from tests.factories import (
    add_candidates,
    make_evaluation,
    make_everything,
)

pytestmark = pytest.mark.django_db


# --- pages -----------------------------------------------------------------------------------


def test_a_tab_reads_the_stored_status_and_the_overview_agrees(client, owner, people):
    evaluation = make_everything(owner, people)
    client.force_login(owner)
    url = reverse("evaluations:evaluation_context", kwargs={"pk": evaluation.pk})
    with CaptureQueriesContext(connection) as cold:
        client.get(url)
    with CaptureQueriesContext(connection) as warm:
        page = client.get(url)
    assert len(warm) < len(cold) - 15  # none of the evaluation's data is read for the strip
    n = fresh(evaluation, owner).reminders
    assert n > 0 and f"{n} risk reminders" in page.content.decode()
    overview = client.get(reverse("evaluations:evaluation_detail", kwargs={"pk": evaluation.pk}))
    assert len(overview.context["reminders"]) == n


def test_the_overview_lists_stored_reminders_in_the_reader_s_language(client, owner, people):
    evaluation = make_everything(owner, people)
    client.force_login(owner)
    url = reverse("evaluations:evaluation_detail", kwargs={"pk": evaluation.pk})
    client.get(reverse("evaluations:evaluation_list"))  # stores the counts only
    assert StatusDigest.objects.get(evaluation=evaluation, viewer=owner).items == {}
    with CaptureQueriesContext(connection) as cold:
        first = client.get(url)
    caches["pages"].clear()  # rendered again, not the kept page (evaluations.pagecache)
    with CaptureQueriesContext(connection) as warm:
        again = client.get(url)
    assert len(warm) < len(cold) - 10  # no reminder reads the evaluation's data again
    expected = [r.title for r in reminders_for(evaluation_data(evaluation, viewer=owner))]
    assert expected and [r.title for r in again.context["reminders"]] == expected
    token = re.compile(rb'(csrfmiddlewaretoken" value=|"X-CSRFToken": )"[^"]*"')
    assert token.sub(b"", first.content) == token.sub(b"", again.content)  # stored or counted
    stored = StatusDigest.objects.get(evaluation=evaluation, viewer=owner).items
    assert list(stored) == ["en"] and [r["title"] for r in stored["en"]] == expected
    api = reverse("evaluations-api:reminder_list", kwargs={"evaluation_pk": evaluation.pk})
    with CaptureQueriesContext(connection) as read:
        listed = client.get(api).json()
    assert [r["title"] for r in listed] == expected and len(read) < len(cold) - 10

    # Another language is worded afresh, not served the English words.
    client.cookies["django_language"] = "zh-hans"
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    with translation.override("zh-hans"):
        worded = [r.title for r in reminders_for(evaluation_data(evaluation, viewer=owner))]
    assert [r.title for r in chinese.context["reminders"]] == worded != expected

    # A change to the data moves the stamp: the reminders are counted again.
    evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED).update(
        status=CandidateStatus.ELIMINATED, elimination_reason="x"
    )
    digests.changed({evaluation.pk})
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    with translation.override("zh-hans"):
        now = [r.key for r in reminders_for(evaluation_data(evaluation, viewer=owner))]
    assert [r.key for r in page.context["reminders"]] == now
    assert "few-candidates" in now


def test_the_list_shows_the_stored_counts(client, owner, people):
    evaluation = make_everything(owner, people)
    client.force_login(owner)
    client.get(reverse("evaluations:evaluation_list"))
    stored = StatusDigest.objects.get(evaluation=evaluation, viewer=owner)
    assert RowStatus(stored.answered, stored.total, stored.reminders) == fresh(evaluation, owner)
    body = client.get(reverse("evaluations:evaluation_list")).content.decode()
    assert f"{stored.answered} / {stored.total}" in body
    api = client.get(reverse("evaluations-api:evaluation_list")).json()["results"][0]
    assert api["open_reminders"] == stored.reminders
    assert api["progress"] == {"answered": stored.answered, "total": stored.total}
    assert timezone.now() - stored.computed_at < timedelta(minutes=1)


@pytest.mark.django_db(transaction=True)
def test_a_request_storing_a_row_never_waits_for_another_storing_it(seeded):
    """Two requests count the same cold row at once: the second counts it and moves on without
    storing it (PostgreSQL advisory lock taken without waiting), instead of waiting for the
    first request to end."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite runs one writing transaction at a time")
    from tests.conftest import make_user

    owner = make_user("tech_lead", username="store-owner")
    evaluation = make_evaluation(owner)
    add_candidates(evaluation, owner, "slurm")
    stored, release = threading.Event(), threading.Event()

    def first_request():
        try:
            with transaction.atomic():
                row(owner, evaluation)  # stores the row and keeps its lock until the end
                stored.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=first_request)
    thread.start()
    try:
        assert stored.wait(10)
        started = timezone.now()
        with transaction.atomic():
            StatusStamp.objects.update(seq=F("seq") + 1)  # out of date for the second reader
        with transaction.atomic():
            assert row(owner, evaluation) == fresh(evaluation, owner)
        assert timezone.now() - started < timedelta(seconds=5)  # it did not wait
    finally:
        release.set()
        thread.join(10)
    digest = StatusDigest.objects.get(evaluation=evaluation, viewer=owner)
    assert digest.seq != seq(evaluation)  # the second reader did not store its count
    assert row(owner, evaluation) == fresh(evaluation, owner)  # the next one does
    assert StatusDigest.objects.get(pk=digest.pk).seq == seq(evaluation)


def test_every_tracked_model_signals_its_bulk_writes():
    """QuerySet.update, bulk_create and bulk_update send no model signal: a model whose rows a
    stored status or a kept page reads must use the signalling manager, or a bulk write in a
    service would leave both out of date."""
    from common.querysets import SignallingQuerySet

    silent = [
        model._meta.label
        for model in digests.dependencies()
        if not issubclass(type(model._default_manager.all()), SignallingQuerySet)
    ]
    assert not silent, f"bulk writes of these models move no stamp: {silent}"


def test_bulk_writes_of_evaluation_data_and_shared_data_move_the_stamps(owner, people):
    from poc.models import PlanCase

    evaluation = make_everything(owner, people)
    before = seq(evaluation)
    with transaction.atomic():  # each write its own transaction, as requests are
        PlanCase.objects.filter(evaluation=evaluation).update(weight=2)
    assert seq(evaluation) == before + 1
    cell = Cell.objects.filter(row__candidate__evaluation=evaluation).first()
    with transaction.atomic():
        Cell.objects.filter(pk=cell.pk).delete()
    moved = seq(evaluation)
    with transaction.atomic():
        Cell.objects.bulk_create([Cell(row=cell.row, party=cell.party, letter="A")])
    assert seq(evaluation) == moved + 1
    with transaction.atomic():
        Solution.objects.filter(slug="slurm").update(latest_version="99.1")
    assert seq(evaluation) == moved + 2


def test_a_status_counted_yesterday_is_counted_again_today(owner):
    """A claim turns stale with the date, not with a write: a stored status is current only on
    the day it was counted."""

    def yesterday():
        StatusDigest.objects.update(day=F("day") - timedelta(days=1))

    assert stored_then_read_again(owner, yesterday) == [True]
