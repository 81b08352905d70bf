"""The scorecard and results of a large evaluation (8 candidates × 60 cases × 3 reviewers, and a
member with a draft in every cell): one group at a time, a bounded number of queries whatever
the size, and a page that stays under 200 KB."""

import re
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from catalog.models import SolutionType
from common import roles
from evaluations.models import MemberRole, StatusStamp
from poc import services
from poc.models import Direction, Outcome, Score, TestGroup
from tests.conftest import make_user
from tests.factories import SolutionFactory, add_candidates, add_member, declare_none

pytestmark = pytest.mark.django_db

SLUGS = [
    "slurm",
    "volcano",
    "kuberay",
    "kubernetes-gpu",
    "runai",
    "cloud-managed-gpu",
    "enterprise-container-platform",
]
MAX_HTML = 200 * 1024
# Queries of the whole page, most of them the evaluation's tabs and status strip; the
# scorecard's own part is a fixed handful, whatever the evaluation's size.
# +1 each: the page reads its evaluation's stamp first, to look for a kept copy (pagecache).
# +1: the shown group's reviewers are read once each, not joined to every one of its scores.
SCORECARD_QUERIES = 32
GROUP_QUERIES = 16  # the grid alone, when htmx swaps in another group
# +2: the test beds and the owner's declared equivalences, to form the comparable groups.
RESULTS_QUERIES = 32
# A kept page: the session, the user, their roles, the evaluation, membership and the stamp.
KEPT_QUERIES = 8
# The first page a member opens after a change also computes and stores the status strip's
# count (evaluations/digests.py): the evaluation's data and reminders, about 17 queries more.
COLD_STRIP = 17
CELL_QUERIES = 29  # the save, then the one cell read alone (scorecard_cell), not its group


@pytest.fixture
def large(evaluation, owner, people):
    extra = SolutionFactory(solution_type=SolutionType.objects.get(slug="enterprise-platform"))
    candidates = add_candidates(evaluation, owner, *SLUGS, extra.slug)
    services.plan_init(user=owner, evaluation=evaluation)
    groups = list(TestGroup.objects.order_by("order"))
    for n in range(60 - evaluation.poc_cases.count()):
        metric = n % 3 == 0
        services.plan_case_add_custom(
            user=owner,
            evaluation=evaluation,
            group=groups[n % len(groups)],
            title=f"Own case {n + 1}: recovery of a long multi-node job",
            acceptance="The job resumes from its last checkpoint.",
            weight=Decimal(2 + n % 4),
            metric_name="Recovery time" if metric else "",
            metric_unit="s" if metric else "",
            metric_direction=Direction.LOWER if metric else "",
            metric_threshold=Decimal(60) if metric else None,
        )
    cases = list(evaluation.poc_cases.order_by("group__order", "order", "pk"))
    editor = people[MemberRole.EDITOR]
    reviewers = [people[MemberRole.REVIEWER]]
    for name in ("rev2", "rev3"):
        reviewers.append(make_user(roles.REVIEWER, username=name))
        add_member(evaluation, reviewers[-1], MemberRole.REVIEWER)
    declare_none(evaluation, owner, editor, *reviewers)
    now = timezone.now()
    rows = []
    for i, case in enumerate(cases):
        for k, candidate in enumerate(candidates):
            far = (i + k) % 11 == 0  # one reviewer far off: a disagreement to settle
            for j, reviewer in enumerate(reviewers):
                value = Decimal(min(5, 2 + (i + k) % 3 + (2 if far and j == 2 else 0)))
                rows.append(
                    Score(
                        case=case,
                        candidate=candidate,
                        reviewer=reviewer,
                        score=value,
                        outcome=Outcome.PASSED if value >= 3 else Outcome.FAILED,
                        notes="Held under load; logs kept.",
                        submitted_at=now,
                    )
                )
            # The editor's drafts: a filled form in every cell, the heaviest page there is.
            rows.append(
                Score(
                    case=case,
                    candidate=candidate,
                    reviewer=editor,
                    score=Decimal("3.5"),
                    measured_value=Decimal("72.5") if case.has_metric else None,
                    notes="Needs a re-run with the vendor.",
                )
            )
    Score.objects.bulk_create(rows, batch_size=500)
    first = cases[0]
    services.consensus_record(
        user=owner,
        case=first,
        candidate=candidates[0],
        score="3",
        reason="Agreed after a re-run",
        expected_version=None,
    )
    for score in Score.objects.filter(case=first, reviewer=reviewers[0])[:3]:
        services.evidence_add(
            user=reviewers[0], score=score, upload=SimpleUploadedFile("run.txt", b"passed\n")
        )
    return SimpleNamespace(
        evaluation=evaluation,
        candidates=candidates,
        cases=cases,
        groups=groups,
        editor=editor,
        reviewers=reviewers,
    )


def page_url(evaluation, **query):
    url = reverse("poc:scorecard", kwargs={"pk": evaluation.pk})
    return url + ("?group=" + query["group"] if query else "")


def shown_cells(body: str) -> int:
    return body.count('class="pcell')


def test_the_scorecard_shows_one_group_within_budget_and_size(
    client, large, owner, people, django_assert_max_num_queries
):
    e = large.evaluation
    assert Score.objects.filter(case__evaluation=e).count() == 60 * 8 * 4
    sizes = {}
    for user in (owner, large.editor, large.reviewers[0], people[MemberRole.VIEWER]):
        client.force_login(user)
        StatusStamp.objects.all().delete()  # the first group is read cold
        for i, group in enumerate(large.groups):
            in_group = sum(1 for c in large.cases if c.group_id == group.pk)
            caches["pages"].clear()  # rendered, not kept
            with django_assert_max_num_queries(SCORECARD_QUERIES + (COLD_STRIP if i == 0 else 0)):
                response = client.get(page_url(e, group=group.key))
            body = response.content.decode()
            assert response.status_code == 200
            assert len(response.content) <= MAX_HTML, (user.username, group.key)
            assert shown_cells(body) == in_group * len(large.candidates)
            current = re.findall(r'data-testid="group-(\w+)" aria-current="page"', body)
            assert current == [group.key]
            sizes[user.username, group.key] = len(response.content)
    # The editor's drafts make the heaviest page: a form with values in every cell.
    assert max(sizes, key=sizes.get)[0] == large.editor.username


def test_another_group_swaps_in_alone_and_cheaply(client, large, django_assert_max_num_queries):
    e = large.evaluation
    client.force_login(large.editor)
    last = large.groups[-1]
    with django_assert_max_num_queries(GROUP_QUERIES):
        response = client.get(
            page_url(e, group=last.key),
            headers={"HX-Request": "true", "HX-Target": "scorecard-group"},
        )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert body.startswith('<div id="scorecard-group">')
    in_group = sum(1 for c in large.cases if c.group_id == last.pk)
    assert shown_cells(body) == in_group * len(large.candidates)
    # Going back in history asks for the whole page again.
    restore = client.get(
        page_url(e, group=last.key),
        headers={
            "HX-Request": "true",
            "HX-Target": "scorecard-group",
            "HX-History-Restore-Request": "true",
        },
    )
    assert "<html" in restore.content.decode()


def test_results_and_a_cell_save_stay_within_budget(
    client, large, owner, django_assert_max_num_queries
):
    e = large.evaluation
    client.force_login(owner)
    StatusStamp.objects.all().delete()
    # cold, warm (rendered again), then kept (pagecache)
    for budget, kept in (
        (RESULTS_QUERIES + COLD_STRIP, False),
        (RESULTS_QUERIES, False),
        (KEPT_QUERIES, True),
    ):
        if not kept:
            caches["pages"].clear()
        with django_assert_max_num_queries(budget):
            response = client.get(reverse("poc:results", kwargs={"pk": e.pk}))
        assert response.status_code == 200
        assert response.has_header("X-Page-Cache") == kept
        assert 'data-testid="robustness"' in response.content.decode()
    client.force_login(large.editor)
    case, candidate = large.cases[-1], large.candidates[-1]
    draft = Score.objects.get(case=case, candidate=candidate, reviewer=large.editor)
    with django_assert_max_num_queries(CELL_QUERIES):
        saved = client.post(
            reverse("poc:cell", args=[e.pk, case.pk, candidate.pk]),
            {"score": "4", "outcome": "passed", "version": draft.version},
            headers={"HX-Request": "true"},
        )
    body = saved.content.decode()
    assert saved.status_code == 200 and "Saved" in body and "<html" not in body
    assert body.startswith(f'<td id="cell-{case.pk}-{candidate.pk}"')
