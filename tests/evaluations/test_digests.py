"""Stored row status (evaluations/digests.py): list rows and the status strip read a stored count
that every kind of write keeps current, per viewer, and that a racing writer cannot leave
looking current. (tests/conftest.py also checks every stored status after every test.)"""

import threading
from datetime import timedelta

import pytest
from django.apps import apps
from django.db import connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from catalog.models import CapabilityClaim
from evaluations import digests
from evaluations.digests import EVERYTHING, statuses
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
from poc import services as poc_services
from poc.models import Evidence, Score
from reports.models import ReportRun
from responsibility import services as resp
from responsibility.models import Area, Cell, Party
from signoff.models import Approval
from tests.conftest import stored_status_mismatches
from tests.evaluations.digests_support import fresh, row, seq, stored_then_read_again
from tests.factories import (
    add_candidates,
    answer_all,
    make_evaluation,
    make_everything,
    submit_one_score,
)

pytestmark = pytest.mark.django_db


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
