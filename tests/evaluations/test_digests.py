"""Stored row status (evaluations/digests.py): list rows and the status strip read a stored count
that every kind of write keeps current, per viewer, and that a racing writer cannot leave
looking current. (tests/conftest.py also checks every stored status after every test.)"""

import re
import threading
from datetime import timedelta

import pytest
from django.apps import apps
from django.core.cache import caches
from django.db import connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation

from catalog.models import CapabilityClaim, Solution
from evaluations import digests
from evaluations.digests import EVERYTHING, RowStatus, statuses
from evaluations.models import (
    Candidate,
    CandidateStatus,
    Evaluation,
    FiveQuestion,
    MemberRole,
    Membership,
    StatusDigest,
    StatusStamp,
)
from evaluations.reminders import reminders_for
from evaluations.rows import evaluation_list_queryset, evaluation_rows, status_of
from evaluations.selectors import evaluation_data
from poc import services as poc_services
from poc.models import Evidence, Score
from reports.models import ReportRun
from responsibility import services as resp
from responsibility.models import Area, Cell, Party
from signoff.models import Approval
from tests.conftest import stored_status_mismatches
from tests.factories import (
    add_candidates,
    answer_all,
    make_evaluation,
    make_everything,
    submit_one_score,
)

pytestmark = pytest.mark.django_db


def fresh(evaluation, viewer) -> RowStatus:
    return status_of(evaluation_data(evaluation, viewer=viewer))


def row(viewer, evaluation) -> RowStatus:
    """The list row's status, read as a request reads it (its own atomic block: a block that
    has written counts without storing, see digests.wrote_here)."""
    with transaction.atomic():
        qs = evaluation_list_queryset(viewer).filter(pk=evaluation.pk)
        return evaluation_rows(viewer, qs)[0].status


def seq(evaluation) -> int:
    return StatusStamp.objects.get(evaluation=evaluation).seq


# --- which writes move which stamp ------------------------------------------------------------


def test_every_model_of_the_data_apps_moves_a_stamp():
    """A new model is covered without anyone listing it: rows that belong to an evaluation move
    its stamp, shared reference data moves every stamp."""
    deps = digests.DEPENDENCIES
    for model in apps.get_models():
        label = model._meta.label
        if not digests.is_data(model) or digests._is_history(model):
            continue
        assert model in deps or label in digests.IGNORED, label
    assert deps[Evaluation] == []
    # A higher app's rows that belong to an evaluation say so (sign-off's, on the History tab);
    # report runs do not.
    assert [f.name for f in deps[Approval]] == ["evaluation"]
    assert ReportRun not in deps
    assert [f.name for f in deps[Score]][-1] == "evaluation"
    # Through required keys: a cell's party may be one of the shared library's.
    assert [f.name for f in deps[Cell]] == ["row", "candidate", "evaluation"]
    assert [f.name for f in deps[Party]] == ["evaluation"]  # own parties; shared: everything
    assert len(deps[Evidence]) == 3
    for shared in (CapabilityClaim, FiveQuestion, Area):
        assert deps[shared] is EVERYTHING


def _writes(evaluation, owner, people):
    """(name, write) for each kind of change a user can make, the bulk ones included."""
    slurm = evaluation.candidates.get(solution__slug="slurm")
    volcano = evaluation.candidates.get(solution__slug="volcano")
    reviewer = people[MemberRole.REVIEWER]
    shortlisted = evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED)
    evaluation.shortlisted_without_matrix = shortlisted.filter(area_rows=None).first()

    def answer():
        answer_all(volcano, owner, assessment="no")

    def cells():  # bulk_create of cells after each row's save
        bare = evaluation.shortlisted_without_matrix
        assert resp.matrix_prefill(user=owner, candidate=bare) > 0

    def score():
        case = evaluation.poc_cases.order_by("pk").last()
        poc_services.score_save(
            user=reviewer, case=case, candidate=slurm, score="1", expected_version=None
        )
        poc_services.scores_submit(user=reviewer, evaluation=evaluation)

    def delete_scores():
        Score.objects.filter(candidate=slurm).delete()

    def scenarios():
        evaluation.scenarios.clear()

    def role():
        Membership.objects.filter(evaluation=evaluation, user=reviewer).update(
            role=MemberRole.VIEWER
        )  # an update sends no signal: the caller says what changed
        digests.changed([evaluation.pk])

    def eliminate():
        Candidate.objects.filter(pk=volcano.pk).get().delete()

    return [
        ("answer", answer),
        ("cells", cells),
        ("score", score),
        ("delete scores", delete_scores),
        ("scenarios", scenarios),
        ("role", role),
        ("delete candidate", eliminate),
    ]


def test_each_kind_of_write_moves_the_stamp_and_the_row_follows(owner, people):
    evaluation = make_everything(owner, people)
    viewers = [owner, people[MemberRole.REVIEWER]]
    for name, write in _writes(evaluation, owner, people):
        before = {v.pk: row(v, evaluation) for v in viewers}
        assert all(before[v.pk] == fresh(evaluation, v) for v in viewers), name
        moved_from = seq(evaluation)
        with transaction.atomic():
            write()
        assert seq(evaluation) > moved_from, name
        for viewer in viewers:
            assert row(viewer, evaluation) == fresh(evaluation, viewer), (name, viewer)
    assert not stored_status_mismatches()


def test_a_change_to_shared_data_moves_every_stamp(owner):
    first, second = make_evaluation(owner, title="One"), make_evaluation(owner, title="Two")
    for e in (first, second):
        row(owner, e)
    before = (seq(first), seq(second))
    claim = CapabilityClaim.objects.first()
    claim.note = claim.note + " (checked)"
    claim.save()
    assert (seq(first), seq(second)) == (before[0] + 1, before[1] + 1)


def test_a_shared_party_moves_every_stamp_and_an_own_party_its_evaluation_only(owner):
    first, second = make_evaluation(owner, title="One"), make_evaluation(owner, title="Two")
    for e in (first, second):
        row(owner, e)
    before = (seq(first), seq(second))
    resp.party_add(user=owner, evaluation=first, name="Site reliability", kind="internal")
    assert (seq(first), seq(second)) == (before[0] + 1, before[1])
    shared = Party.objects.filter(evaluation=None).first()
    shared.save()
    assert (seq(first), seq(second)) == (before[0] + 2, before[1] + 1)


def test_rows_are_stored_per_viewer_as_blind_scoring_counts_them(owner, people):
    evaluation = make_evaluation(owner)
    add_candidates(evaluation, owner, "slurm", "volcano")
    submit_one_score(evaluation, owner)
    reviewer = people[MemberRole.REVIEWER]
    Membership.objects.create(evaluation=evaluation, user=reviewer, role=MemberRole.REVIEWER)
    for viewer in (owner, reviewer):
        assert row(viewer, evaluation) == fresh(evaluation, viewer)
    stored = StatusDigest.objects.filter(evaluation=evaluation)
    assert set(stored.values_list("viewer", flat=True)) == {owner.pk, reviewer.pk}


def test_a_savepoint_rolled_back_does_not_swallow_a_later_change(owner):
    evaluation = make_evaluation(owner)
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    row(owner, evaluation)
    start = seq(evaluation)
    with transaction.atomic():
        try:
            with transaction.atomic():
                answer_all(slurm, owner)
                raise RuntimeError
        except RuntimeError:
            pass
        assert seq(evaluation) == start  # rolled back with the answers
        answer_all(slurm, owner, assessment="no")  # the same evaluation, after the rollback
        assert seq(evaluation) > start
    assert row(owner, evaluation) == fresh(evaluation, owner)


def test_one_write_moves_a_stamp_once_however_many_rows_it_changes(owner):
    evaluation = make_evaluation(owner)
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    row(owner, evaluation)
    start = seq(evaluation)
    with CaptureQueriesContext(connection) as ctx:
        assert resp.matrix_prefill(user=owner, candidate=slurm) > 10  # rows, each with cells
    moves = [q for q in ctx.captured_queries if 'UPDATE "evaluations_statusstamp"' in q["sql"]]
    assert seq(evaluation) == start + 1 and len(moves) == 1


def stored_then_read_again(owner, make_out_of_date) -> list:
    """A status stored for a new evaluation, read (not counted), then `make_out_of_date()`
    and read again: the ids counted at each read."""
    evaluation = make_evaluation(owner)
    row(owner, evaluation)
    calls = []

    def compute(ids):
        calls.append(ids)
        return {evaluation.pk: fresh(evaluation, owner)}

    statuses([evaluation.pk], owner, compute)
    assert calls == []  # current and young: read, not counted
    make_out_of_date()
    statuses([evaluation.pk], owner, compute)
    return [ids == [evaluation.pk] for ids in calls]


def test_a_stored_status_older_than_the_maximum_age_is_counted_again(owner, settings):
    def older():
        StatusDigest.objects.update(computed_at=F("computed_at") - timedelta(seconds=3601))
        settings.ROW_STATUS_MAX_AGE = 3600

    assert stored_then_read_again(owner, older) == [True]


def test_migrate_counts_every_row_again(owner):
    evaluation = make_evaluation(owner)
    row(owner, evaluation)
    before = seq(evaluation)
    digests._on_migrate(apps.get_app_config("evaluations"), using="default")
    assert seq(evaluation) == before + 1


def test_a_lost_stamp_never_makes_an_old_digest_current(owner):
    evaluation = make_evaluation(owner)
    row(owner, evaluation)
    StatusStamp.objects.filter(evaluation=evaluation).delete()
    StatusDigest.objects.update(reminders=99)  # what it counted before is no longer known
    assert row(owner, evaluation) == fresh(evaluation, owner)
    assert StatusDigest.objects.get(evaluation=evaluation).reminders != 99


# --- a reader racing a writer ----------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_count_read_before_a_concurrent_write_is_never_served_as_current(seeded):
    """A reader reads the stamp, then the data; a writer commits between the two. What the
    reader stores is out of date from the start, so the next read counts again."""
    from tests.conftest import make_user

    owner = make_user("tech_lead", username="race-owner")
    evaluation = make_evaluation(owner)
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    stale = fresh(evaluation, owner)

    def writer():
        try:
            answer_all(slurm, owner)  # commits on its own connection
        finally:
            connection.close()

    def compute_while_someone_writes(ids):
        thread = threading.Thread(target=writer)
        thread.start()
        thread.join()
        return {evaluation.pk: stale}  # counted from the data as it was before the write

    assert statuses([evaluation.pk], owner, compute_while_someone_writes)[evaluation.pk] == stale
    now = fresh(evaluation, owner)
    assert now != stale
    assert row(owner, evaluation) == now
    assert not stored_status_mismatches()


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
