"""A case's own values for 4 and 5 (metric_good, metric_excellent): validated against the
metric's direction, used for measured values, shown on the plan, the scorecard and the API."""

from decimal import Decimal as D

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from evaluations.models import MemberRole
from poc import services
from poc.models import TestGroup
from tests.factories import add_candidates, declare_none

pytestmark = pytest.mark.django_db


@pytest.fixture
def group(evaluation, owner):
    return TestGroup.objects.first()


def own(owner, evaluation, group, **metric):
    return services.plan_case_add_custom(
        user=owner,
        evaluation=evaluation,
        group=group,
        title="Checkpoint restore",
        acceptance="Restores within the threshold.",
        metric_name="Restore time",
        metric_unit="s",
        metric_direction=metric.pop("direction", "lower"),
        metric_threshold=metric.pop("threshold", "95"),
        **metric,
    )


@pytest.mark.parametrize(
    ("direction", "good", "excellent", "field"),
    [
        ("lower", "100", None, "metric_good"),  # 4 must be lower than the threshold
        ("lower", "80", "85", "metric_excellent"),  # 5 must be lower than 4
        ("higher", "90", None, "metric_good"),
        ("higher", "120", "110", "metric_excellent"),
        ("", "80", None, "metric_good"),  # no metric at all
    ],
)
def test_bands_against_the_direction_are_refused(
    evaluation, owner, group, direction, good, excellent, field
):
    threshold = "100" if direction == "higher" else ("95" if direction else None)
    with pytest.raises(ValidationError) as refused:
        own(
            owner,
            evaluation,
            group,
            direction=direction,
            threshold=threshold,
            metric_good=good,
            metric_excellent=excellent,
        )
    assert field in refused.value.message_dict
    assert not evaluation.poc_cases.exists()


def test_own_bands_score_measured_values(evaluation, owner, people, group):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    case = own(owner, evaluation, group, metric_good="80", metric_excellent="60")
    declare_none(evaluation, people[MemberRole.REVIEWER])
    table = {"60": "5", "70": "4", "80": "4", "90": "3", "95": "3", "100": "2", "110": "1"}
    for measured, score in table.items():
        assert services.measured_to_score(case, D(measured)) == D(score), measured
    row = services.score_save(
        user=people[MemberRole.REVIEWER],
        case=case,
        candidate=slurm,
        measured_value="75",
        expected_version=0,
    )
    assert row.score == D("4")


def test_bands_are_shown_on_pages_and_in_the_api(client, evaluation, owner, people, group):
    add_candidates(evaluation, owner, "slurm")
    case = own(owner, evaluation, group, metric_good="80", metric_excellent="60")
    text = "≤ 60 s → 5; ≤ 80 s → 4; meets 95 s → 3; ≤ 104.5 s → 2; ≤ 118.75 s → 1; worse → 0"
    client.force_login(people[MemberRole.REVIEWER])
    for name in ("plan", "scorecard"):
        body = client.get(reverse(f"poc:{name}", kwargs={"pk": evaluation.pk})).content.decode()
        assert text in body, name
    api = APIClient()
    api.force_authenticate(people[MemberRole.REVIEWER])
    body = api.get(f"/api/evaluations/{evaluation.pk}/poc/plan/cases/{case.pk}/").json()
    metric = body["metric"]
    assert metric["bands_text"] == text
    assert metric["good"] == "80.0000" and metric["excellent"] == "60.0000"
    assert [(b["score"], b["limit"]) for b in metric["bands"]][:3] == [
        ("5.0", "60.0000"),
        ("4.0", "80.0000"),
        ("3.0", "95.0000"),
    ]
    assert metric["bands"][-1] == {"score": "0.0", "limit": None}


def test_the_api_takes_the_bands_of_an_own_case(evaluation, owner, group):
    api = APIClient()
    api.force_authenticate(owner)
    path = f"/api/evaluations/{evaluation.pk}/poc/plan/cases/"
    body = {
        "group": group.key,
        "title": "Restore",
        "acceptance": "Fast enough.",
        "metric_direction": "lower",
        "metric_threshold": "95",
        "metric_good": "99",
    }
    refused = api.post(path, body, format="json")
    assert refused.status_code == 400 and "metric_good" in refused.json()
    created = api.post(path, {**body, "metric_good": "80"}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["metric"]["good"] == "80.0000"


def test_the_zh_bands_read_in_chinese(evaluation, owner, group):
    from django.utils import translation

    from poc.rubric import bands_text

    case = own(owner, evaluation, group)
    with translation.override("zh-hans"):
        text = bands_text(case)
    assert "→ 3" in text and "95 s" in text


def test_the_seeded_share_case_sets_bands_a_share_can_reach():
    from poc.models import TestCase

    case = TestCase.objects.get(key="topology_placement")  # higher is better, ≥ 90 %
    assert (case.metric_good, case.metric_excellent) == (D("95"), D("99"))
    for library in TestCase.objects.exclude(metric_direction=""):
        library.full_clean()  # every seeded metric's bands fit its direction
