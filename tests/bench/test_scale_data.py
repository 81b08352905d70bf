"""bench/scale_data.py at a tiny size: the rows it writes hang together the way the app's own
services would leave them, and the pages read them, so the scale bench cannot rot unnoticed."""

import pytest
from django.db import transaction
from django.db.models import Exists, F, OuterRef

from bench import scale_data
from evaluations.models import Candidate, Decision, Evaluation, MemberRole, Membership
from poc.models import Consensus, PlanCase, Score
from reports.models import ReportRun, RunStatus
from responsibility.models import AreaRow, Cell

# The generated data is made once, by the one worker that runs this module.
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("scale-data"), pytest.mark.slow]

EVALUATIONS = 6  # five in bulk and the large one, here small
SCORES = 150
LARGE = scale_data.LargeShape(candidates=3, cases=4, reviewers=2)


@pytest.fixture(scope="module")
def totals(django_db_setup, django_db_blocker):
    """Generated once, in a transaction rolled back after the module's last test; each test runs
    in a savepoint inside it (the django_db mark), so what one test changes never reaches the
    next. The test database is seeded already (tests/conftest.py)."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield scale_data.generate(
            EVALUATIONS, SCORES, large=LARGE, load_seed=False, log=lambda *args: None
        )
        transaction.set_rollback(True)


def bench_evaluations():
    return Evaluation.objects.filter(created_by__username__startswith=scale_data.PREFIX)


def test_sizes_and_memberships(totals):
    evaluations = bench_evaluations()
    assert evaluations.count() == totals["evaluations"] == EVALUATIONS
    submitted = Score.objects.filter(case__evaluation__in=evaluations, submitted_at__isnull=False)
    assert submitted.count() == totals["scores"] >= SCORES
    assert (
        Cell.objects.filter(row__candidate__evaluation__in=evaluations).count() == totals["cells"]
    )

    def seen_by(username, role=None):
        mine = Membership.objects.filter(user__username=username)
        return set(mine.filter(role=role).values_list("evaluation", flat=True) if role else mine)

    all_ids = set(evaluations.values_list("pk", flat=True))
    assert seen_by(scale_data.VIEWER, MemberRole.VIEWER) == all_ids
    assert len(seen_by(scale_data.TEN, MemberRole.VIEWER)) == min(10, EVALUATIONS - 1)
    assert len(seen_by(scale_data.OWNER, MemberRole.OWNER)) == min(30, EVALUATIONS)
    for evaluation in evaluations:  # one owner each, who created it
        owners = evaluation.memberships.filter(role=MemberRole.OWNER)
        assert [m.user_id for m in owners] == [evaluation.created_by_id]


def test_rows_belong_to_their_evaluation(totals):
    scores = Score.objects.filter(case__evaluation__in=bench_evaluations())
    assert scores.exists()
    assert not scores.exclude(candidate__evaluation=F("case__evaluation")).exists()
    reviewer_member = Membership.objects.filter(
        evaluation=OuterRef("case__evaluation"), user=OuterRef("reviewer"), role=MemberRole.REVIEWER
    )
    assert not scores.exclude(Exists(reviewer_member)).exists()
    assert not Consensus.objects.exclude(candidate__evaluation=F("case__evaluation")).exists()
    # Only stacks have the stack-only areas; no candidate has an area twice (a constraint).
    assert not AreaRow.objects.filter(area__stack_only=True, candidate__stack_name="").exists()
    chosen = Decision.chosen.through.objects.exclude(
        candidate__evaluation=F("decision__evaluation")
    )
    assert not chosen.exists()
    for evaluation in bench_evaluations():
        has_decision = Decision.objects.filter(evaluation=evaluation).exists()
        if evaluation.status in ("decided", "archived"):
            assert has_decision
        if evaluation.status == "draft":
            assert not PlanCase.objects.filter(evaluation=evaluation).exists()


def test_the_large_evaluation_is_findable_and_complete(totals):
    large = scale_data.large_evaluation()
    assert large.pk == totals["large_evaluation"]
    assert large.candidates.count() == LARGE.candidates
    assert Candidate.objects.filter(evaluation=large).exclude(stack_name="").count() == 1
    assert large.poc_cases.count() == LARGE.cases
    scores = Score.objects.filter(case__evaluation=large, submitted_at__isnull=False)
    assert scores.count() == LARGE.candidates * LARGE.cases * LARGE.reviewers
    assert Evaluation.history.filter(id=large.pk).exists()  # built through the services
    assert ReportRun.objects.get(evaluation=large).status == RunStatus.RENDERING


def test_pages_read_it(totals, client):
    from django.contrib.auth import get_user_model

    User = get_user_model()
    client.force_login(User.objects.get(username=scale_data.VIEWER))
    for url in ("/", "/evaluations/", "/api/evaluations/"):
        assert client.get(url).status_code == 200, url
    client.force_login(User.objects.get(username=scale_data.OWNER))
    pk = totals["large_evaluation"]
    for tab in ("", "responsibility/", "costs/", "poc/", "poc/results/", "decision/", "history/"):
        assert client.get(f"/evaluations/{pk}/{tab}").status_code == 200, tab
    poll = client.get(f"/evaluations/{pk}/reports/", headers={"HX-Request": "true"})
    assert b'hx-trigger="every 1s"' in poll.content  # a run renders: the list polls


def test_refuses_to_add_and_drops_its_rows(totals):
    with pytest.raises(scale_data.AlreadyGenerated):
        scale_data.generate(1, 0, large=None, log=lambda *args: None)
    assert scale_data.drop(log=lambda *args: None) == EVALUATIONS
    assert not bench_evaluations().exists()
    assert not scale_data.scale_users().exists()
    assert not Evaluation.history.filter(history_user__username__startswith="scale-").exists()
