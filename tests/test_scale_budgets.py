"""Query budgets that must not grow with scale: every page of an evaluation costs the same number
of queries when its POC holds ten times the scores and its matrices every cell, and the lists
(home, evaluation list, API list) cost the same for 2 evaluations as for 30, a page at a time.
A list row's status and a tab's status strip come from a fixed number of aggregate queries
(EvaluationData.facts), never from loading every score and cell."""

from decimal import Decimal
from itertools import count

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from common import roles
from evaluations import digests
from evaluations.models import CandidateStatus, MemberRole, StatusStamp
from evaluations.views import HOME_EVALUATIONS, LIST_PAGE_SIZE
from poc import services as poc_services
from poc.models import Score
from responsibility.models import Area, AreaRow, Cell, Party
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, make_evaluation, make_everything
from tests.routes import walk

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def queries(client, path) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(path)
    assert response.status_code < 500, path
    return len(ctx.captured_queries)


_reviewer_numbers = count()


def grow(evaluation, reviewers: int = 6) -> int:
    """Make the evaluation large: `reviewers` more reviewers submit a score on every case of
    every shortlisted candidate, and every candidate's matrix gets a row and cells for every
    area. Written in bulk, as a data load would. Returns the number of scores added."""
    candidates = list(evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED))
    cases = list(evaluation.poc_cases.all())
    now = timezone.now()
    scores = []
    for i in range(reviewers):
        user = make_user(roles.REVIEWER, username=f"grow-{next(_reviewer_numbers)}")
        add_member(evaluation, user, MemberRole.REVIEWER)
        scores += [
            Score(case=case, candidate=c, reviewer=user, score=Decimal(i % 6), submitted_at=now)
            for case in cases
            for c in candidates
        ]
    Score.objects.bulk_create(scores)
    parties = list(Party.objects.filter(evaluation=None)[:3])
    for c in candidates:
        for area in Area.objects.filter(is_active=True):
            row, _ = AreaRow.objects.get_or_create(candidate=c, area=area)
            for party, letter in zip(parties, ("AR", "R", "C"), strict=False):
                Cell.objects.get_or_create(row=row, party=party, defaults={"letter": letter})
    digests.changed([evaluation.pk])  # bulk_create sends no signal
    return len(scores)


def test_no_evaluation_page_costs_more_queries_when_the_evaluation_grows(client, owner, people):
    evaluation = make_everything(owner, people)
    routes = list(walk(evaluation))
    client.force_login(owner)
    grow(evaluation, reviewers=1)  # every matrix and cell has rows: no prefetch is skipped
    before = {path: queries(client, path) for _name, path in routes}
    assert grow(evaluation) >= 6 * 27  # every case of every candidate, six more times
    after = {path: queries(client, path) for _name, path in routes}
    grew = {path: (before[path], n) for path, n in after.items() if n > before[path]}
    assert not grew, grew


def evaluations_for(viewer, owner, n: int) -> None:
    """`n` evaluations the viewer is a member of, each with candidates, a POC plan, scores and a
    matrix row, so every reminder has something to read."""
    for i in range(n):
        evaluation = make_evaluation(owner, title=f"Scale {i}")
        add_member(evaluation, viewer, MemberRole.VIEWER)
        add_candidates(evaluation, owner, "slurm", "volcano")
        poc_services.plan_init(user=owner, evaluation=evaluation)
        grow(evaluation, reviewers=1)


LISTS = [
    ("home", lambda: reverse("home")),
    ("list", lambda: reverse("evaluations:evaluation_list")),
    ("list page 2", lambda: reverse("evaluations:evaluation_list") + "?page=2"),
    ("api", lambda: reverse("evaluations-api:evaluation_list")),
    ("api max", lambda: reverse("evaluations-api:evaluation_list") + "?limit=1000"),
]


def test_lists_cost_the_same_for_2_and_30_evaluations(client, owner):
    viewer = make_user(roles.PROCUREMENT, username="viewer-all")
    client.force_login(viewer)

    def costs() -> tuple[dict, dict]:
        """Each list's queries cold (no stored row status: every row computed and stored) and
        warm (every row's stored status current)."""
        cold, warm = {}, {}
        for name, path in LISTS:
            StatusStamp.objects.all().delete()  # and with them every stored status
            cold[name] = queries(client, path())
            warm[name] = queries(client, path())
        return cold, warm

    evaluations_for(viewer, owner, 2)
    small_cold, small_warm = costs()
    evaluations_for(viewer, owner, 28)
    large_cold, large_warm = costs()
    # One more query at most where a page of 2 rows skips the count a full page needs.
    assert all(large_cold[n] <= small_cold[n] + 1 for n in small_cold), (small_cold, large_cold)
    assert all(large_warm[n] <= small_warm[n] + 1 for n in small_warm), (small_warm, large_warm)
    # Warm, a list reads none of the evaluations' data: a few queries for any page.
    assert max(large_warm.values()) <= 14, large_warm

    home = client.get(reverse("home")).content.decode()
    assert home.count('href="/evaluations/') >= HOME_EVALUATIONS
    assert 'data-testid="all-evaluations"' in home and "30" in home

    page = client.get(reverse("evaluations:evaluation_list"))
    assert len(page.context["rows"]) == LIST_PAGE_SIZE
    assert page.context["page"].paginator.count == 30
    second = client.get(reverse("evaluations:evaluation_list") + "?page=2")
    assert len(second.context["rows"]) == 30 - LIST_PAGE_SIZE
    first_ids = {row.evaluation.pk for row in page.context["rows"]}
    assert first_ids.isdisjoint(row.evaluation.pk for row in second.context["rows"])

    body = client.get(reverse("evaluations-api:evaluation_list") + "?limit=1000").json()
    assert body["count"] == 30 and len(body["results"]) == 30
    assert all("open_reminders" in row for row in body["results"])


def test_the_api_list_caps_the_page(client, owner, settings):
    from common.drf import EvaluationPagination

    viewer = make_user(roles.PROCUREMENT, username="viewer-cap")
    client.force_login(viewer)
    evaluations_for(viewer, owner, 3)
    url = reverse("evaluations-api:evaluation_list")
    body = client.get(url + "?limit=2").json()
    assert len(body["results"]) == 2 and body["next"]
    assert EvaluationPagination.max_limit == 100 and EvaluationPagination.default_limit == 20


def test_the_list_filters_by_status_and_text_and_refuses_a_bad_status(client, owner):
    viewer = make_user(roles.PROCUREMENT, username="viewer-filter")
    client.force_login(viewer)
    evaluations_for(viewer, owner, 3)
    url = reverse("evaluations:evaluation_list")
    found = client.get(url + "?q=Scale 1")
    assert [row.evaluation.title for row in found.context["rows"]] == ["Scale 1"]
    none = client.get(url + "?q=nothing-like-this")
    assert "No evaluation matches these filters." in none.content.decode()
    bad = client.get(url + "?status=nonsense")
    assert bad.status_code == 200 and not bad.context["rows"]
    assert 'role="alert"' in bad.content.decode()
