"""Results show scenario fit within the type context, never one cross-type ranking: candidates
are ranked, led and tested for robustness only within their solution type; once a type is
decided its group comes first and the others are marked outside it. Page, API and report read
the same grouping (poc.selectors.results_by_type)."""

from decimal import Decimal

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.models import SolutionType
from evaluations import services as evaluation_services
from evaluations.models import MemberRole
from poc import scoring, services
from poc.selectors import results
from reports.render import report_html
from reports.snapshot import build_snapshot
from tests.factories import add_candidates, declare_none

D = Decimal


def overall(raw):
    if raw is None:
        return scoring.Overall(None, None, None, D(0))
    return scoring.Overall(D(raw), D(raw), D(raw) * 20, D(1))


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ({}, []),
        ({"a": "3", "b": "4"}, [("b", 1), ("a", 2)]),
        ({"a": "4", "b": "4", "c": "3"}, [("a", 1), ("b", 1), ("c", 3)]),
        ({"a": None, "b": "2"}, [("b", 1), ("a", None)]),
        # Within the tie tolerance: the same rank.
        ({"a": "4", "b": "4.0000000000000000001"}, [("b", 1), ("a", 1)]),
        ({"a": None, "b": None}, [("a", None), ("b", None)]),
    ],
)
def test_ranks_are_competition_ranks_with_unscored_last(scores, expected):
    assert scoring.ranks({k: overall(v) for k, v in scores.items()}) == expected


# Open-source Slurm and Volcano against enterprise-platform Run:ai. Run:ai has the highest
# total, so a cross-type ranking would put Slurm second; within its type Slurm is first.
SCORES = {"slurm": "3", "volcano": "2", "runai": "4"}


@pytest.fixture
def scored(evaluation, owner, people):
    candidates = add_candidates(evaluation, owner, "slurm", "volcano", "runai")
    services.plan_init(user=owner, evaluation=evaluation)
    reviewer = people[MemberRole.REVIEWER]
    declare_none(evaluation, owner, reviewer)
    for case in evaluation.poc_cases.all():
        for c in candidates:
            services.score_save(
                user=reviewer,
                case=case,
                candidate=c,
                score=SCORES[c.solution.slug],
                submit=True,
                expected_version=0,
            )
    return {c.solution.slug: c for c in candidates}


def decide(evaluation, owner, slug):
    evaluation.refresh_from_db()
    evaluation_services.evaluation_type_decide(
        user=owner,
        evaluation=evaluation,
        solution_type=SolutionType.objects.get(slug=slug),
        reason="Multi-tenant governance is the main need.",
        expected_version=evaluation.version,
    )
    evaluation.refresh_from_db()


def shape(res):
    return [
        (t.solution_type.slug, t.outside, [(c.solution.slug, rank) for c, rank in t.ranked])
        for t in res.by_type
    ]


def type_order(*slugs):
    order = list(SolutionType.objects.values_list("slug", flat=True))
    return sorted(slugs, key=order.index)


@pytest.mark.django_db
def test_results_rank_within_each_type(evaluation, owner, scored):
    res = results(evaluation, owner)
    groups = {slug: (outside, ranked) for slug, outside, ranked in shape(res)}
    assert [t.solution_type.slug for t in res.by_type] == type_order(
        "open-source", "enterprise-platform"
    )
    assert groups["open-source"] == (False, [("slurm", 1), ("volcano", 2)])
    assert groups["enterprise-platform"] == (False, [("runai", 1)])
    by_slug = {t.solution_type.slug: t for t in res.by_type}
    assert by_slug["open-source"].leaders == (str(scored["slurm"].pk),)
    # Robustness and win shares are within the type too: Run:ai is not in Slurm's.
    assert by_slug["open-source"].sensitivity.leader == (str(scored["slurm"].pk),)
    assert set(by_slug["open-source"].wins) == {str(scored["slurm"].pk), str(scored["volcano"].pk)}
    for _profile, _fit, leaders in by_slug["open-source"].by_profile:
        assert leaders == (str(scored["slurm"].pk),)


@pytest.mark.django_db
def test_the_chosen_type_comes_first_and_the_others_are_outside_it(evaluation, owner, scored):
    decide(evaluation, owner, "open-source")
    assert [(slug, outside) for slug, outside, _ in shape(results(evaluation, owner))] == [
        ("open-source", False),
        ("enterprise-platform", True),
    ]
    decide(evaluation, owner, "enterprise-platform")
    assert [(slug, outside) for slug, outside, _ in shape(results(evaluation, owner))] == [
        ("enterprise-platform", False),
        ("open-source", True),
    ]


@pytest.mark.django_db
def test_the_results_page_shows_one_table_per_type(client, evaluation, owner, scored):
    decide(evaluation, owner, "enterprise-platform")
    client.force_login(owner)
    body = client.get(reverse("poc:results", kwargs={"pk": evaluation.pk})).content.decode()
    assert 'data-testid="within-type"' in body
    chosen = body.index('data-testid="fit-type-enterprise-platform"')
    other = body.index('data-testid="fit-type-open-source"')
    assert chosen < other
    chosen_table = body[chosen:other]
    open_source = body[other:].split("</section>")[0]
    assert "outside the chosen type" not in chosen_table
    assert 'data-testid="outside-type"' in open_source
    # Slurm is first within its type, not second behind Run:ai.
    slurm = open_source[open_source.index("Slurm") :]
    assert "No. 1 in its type" in slurm.split("</th>")[0]
    assert "No. 2 in its type" in open_source[open_source.index("Volcano") :].split("</th>")[0]
    # Robustness per type as well.
    assert 'data-testid="robustness-type-open-source"' in body
    assert body.count('data-testid="robustness"') == 2


@pytest.mark.django_db
def test_the_results_api_groups_by_type(evaluation, owner, scored):
    decide(evaluation, owner, "enterprise-platform")
    api = APIClient()
    api.force_authenticate(owner)
    body = api.get(f"/api/evaluations/{evaluation.pk}/poc/results/").json()
    by_type = body["by_type"]
    assert [(t["type"]["slug"], t["outside_main_type"]) for t in by_type] == [
        ("enterprise-platform", False),
        ("open-source", True),
    ]
    assert by_type[1]["ranking"] == [
        {"candidate": scored["slurm"].pk, "rank": 1},
        {"candidate": scored["volcano"].pk, "rank": 2},
    ]
    assert by_type[1]["leaders"] == [scored["slurm"].pk]
    assert by_type[1]["sensitivity"]["leader"] == [scored["slurm"].pk]
    assert {w["candidate"] for w in by_type[1]["win_shares"]} == {
        scored["slurm"].pk,
        scored["volcano"].pk,
    }
    assert all(p["leaders"] == [scored["slurm"].pk] for p in by_type[1]["profiles"])
    schema = api.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]
    assert "by_type" in schema["Results"]["properties"]
    assert schema["TypeResults"]["properties"]["outside_main_type"]["type"] == "boolean"


@pytest.mark.django_db
def test_the_report_prints_results_by_type(evaluation, owner, scored):
    decide(evaluation, owner, "enterprise-platform")
    snap = build_snapshot(evaluation, language="en", generated_at="2027-03-01T09:00:00+08:00")
    fit = snap["poc"]["scenario_fit"]
    assert fit["several_types"] and snap["summary"]["scenario_fit"] == fit
    assert [(t["type"], t["outside"]) for t in fit["types"]] == [
        ("Enterprise platform", False),
        ("Open-source tool", True),
    ]
    assert fit["types"][1]["candidates"] == [
        {"name": "Slurm", "rank": 1},
        {"name": "Volcano", "rank": 2},
    ]
    leads = [[c["leads"] for c in row["cells"]] for row in fit["types"][1]["profiles"]]
    assert all(row == [True, False] for row in leads)
    robustness = snap["poc"]["robustness"]
    assert [t["type"] for t in robustness["types"]] == ["Enterprise platform", "Open-source tool"]
    assert robustness["types"][1]["leader"] == ["Slurm"]
    assert {w["name"] for w in robustness["types"][1]["wins"]} == {"Slurm", "Volcano"}
    html = report_html(snap, "0" * 64, "en", for_pdf=False)
    summary = html[html.index('id="summary"') :]
    assert summary.index("Enterprise platform") < summary.index("Open-source tool")
    assert "outside the chosen type" in summary
    assert "No. 1 in its type" in summary
