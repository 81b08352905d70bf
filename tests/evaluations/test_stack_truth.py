"""Stacks tell the truth: where two or more layers claim the same control natively (queueing and
quota, multi-tenancy, GPU monitoring, RBAC) the profile says so on the shortlist page, in the
API and in the report, a medium reminder asks which layer owns it, and a stack whose layers are
of different types is a hybrid route without anyone ticking "hybrid"."""

import pytest
from django.urls import reverse

from evaluations import services
from evaluations.stack_controls import duplicated_controls, is_mixed_stack, stack_overlaps
from tests.factories import make_evaluation
from tests.stack_layers import NO_DUPLICATES, THREE_QUOTAS, compose, reminders

pytestmark = pytest.mark.django_db


def test_kueue_volcano_and_a_platform_carry_three_quota_systems(owner):
    evaluation = make_evaluation(owner)
    stack = compose(evaluation, owner, THREE_QUOTAS)
    overlaps = {o.key: o for o in stack_overlaps(stack)}
    assert "quota" in overlaps
    assert [layer.solution.slug for layer in overlaps["quota"].layers] == [
        "kueue",
        "volcano",
        "enterprise-container-platform",
    ]
    # What the catalog claims natively decides: Volcano's tenancy is only partial.
    assert [x.solution.slug for x in overlaps["tenancy"].layers] == [
        "kueue",
        "enterprise-container-platform",
    ]
    # Nobody claims GPU monitoring natively here (the platform needs exporters installed).
    assert "monitoring" not in overlaps

    found = reminders(evaluation)
    quota = found[f"duplicated-control:quota:{stack.pk}"]
    assert quota.severity == "medium"
    assert "3 quota systems" in quota.title and "decide which one owns quota" in quota.title
    assert "Kueue" in quota.title and "Volcano" in quota.title
    assert quota.fix_url.endswith("#row-layer_owner_quota")
    assert any(url.endswith(f"#stack-profile-{stack.pk}") for url, _label in quota.links)


def test_a_stack_without_duplicates_gets_no_mark_and_no_reminder(owner, client):
    evaluation = make_evaluation(owner)
    stack = compose(evaluation, owner, NO_DUPLICATES, main="batch_queue", name="Operator + Kueue")
    assert stack_overlaps(stack) == [] and duplicated_controls(stack) == set()
    assert not [k for k in reminders(evaluation) if k.startswith("duplicated-control")]
    client.force_login(owner)
    page = client.get(reverse("evaluations:evaluation_shortlist", args=[evaluation.pk]))
    body = page.content.decode()
    assert f'data-testid="stack-profile-{stack.pk}"' in body
    assert f"stack-overlaps-{stack.pk}" not in body and "duplicated:" not in body


def test_a_single_solution_has_no_overlaps(owner):
    from tests.factories import add_candidates

    evaluation = make_evaluation(owner)
    (runai,) = add_candidates(evaluation, owner, "runai")
    assert stack_overlaps(runai) == [] and not is_mixed_stack(runai)


@pytest.mark.parametrize(
    ("language", "quota_text", "duplicated"),
    [("en", "Queueing and quota", "duplicated:"), ("zh-hans", "队列与配额", "重复：")],
)
def test_the_shortlist_page_marks_the_duplicated_controls(
    owner, client, language, quota_text, duplicated
):
    evaluation = make_evaluation(owner)
    stack = compose(evaluation, owner, THREE_QUOTAS)
    client.force_login(owner)
    client.post(reverse("set_language"), {"language": language, "next": "/"})
    page = client.get(reverse("evaluations:evaluation_shortlist", args=[evaluation.pk]))
    assert page.status_code == 200
    body = page.content.decode()
    assert f'id="stack-profile-{stack.pk}"' in body
    assert f'data-testid="overlap-{stack.pk}-quota"' in body and quota_text in body
    assert f'data-testid="duplicated-{stack.pk}-quotas"' in body and duplicated in body
    # The profile opens by itself when something is duplicated.
    assert f'data-testid="stack-profile-{stack.pk}" open' in body


def test_the_api_profile_names_the_duplicated_control_and_its_layers(owner):
    from rest_framework.test import APIClient

    evaluation = make_evaluation(owner)
    stack = compose(evaluation, owner, THREE_QUOTAS)
    plain = compose(evaluation, owner, NO_DUPLICATES, main="batch_queue", name="Operator + Kueue")
    api = APIClient()
    api.force_authenticate(owner)
    url = f"/api/evaluations/{evaluation.pk}/candidates/%s/profile/"
    rows = {r["capability"]: r for r in api.get(url % stack.pk).json()}
    assert rows["quotas"]["duplicated_control"] == "quota"
    assert rows["queues"]["duplicated_control"] == "quota"
    assert [x["solution"] for x in rows["quotas"]["duplicated_by"]] == [
        "kueue",
        "volcano",
        "enterprise-container-platform",
    ]
    assert rows["quotas"]["duplicated_by"][0]["layer"] == "execution"
    assert rows["gpu-monitoring"]["duplicated_control"] is None
    assert rows["gpu-monitoring"]["duplicated_by"] == []
    plain_rows = api.get(url % plain.pk).json()
    assert all(r["duplicated_control"] is None for r in plain_rows)


# --- a stack of different types is hybrid ------------------------------------------------------


def test_a_mixed_type_stack_needs_a_unified_view_owner_without_the_hybrid_tick(owner):
    evaluation = make_evaluation(owner)
    assert not evaluation.plans_hybrid
    assert "hybrid-without-owner" not in reminders(evaluation)
    stack = compose(evaluation, owner, THREE_QUOTAS)
    assert is_mixed_stack(stack)
    found = reminders(evaluation)["hybrid-without-owner"]
    assert found.severity == "high" and stack.name in found.why
    evaluation.refresh_from_db()
    services.evaluation_update(
        user=owner,
        evaluation=evaluation,
        expected_version=evaluation.version,
        unified_view_owner="Platform team",
    )
    assert "hybrid-without-owner" not in reminders(evaluation)


def test_a_stack_of_one_type_is_not_hybrid(owner):
    evaluation = make_evaluation(owner)
    stack = compose(evaluation, owner, NO_DUPLICATES, main="batch_queue", name="Operator + Kueue")
    assert not is_mixed_stack(stack)
    assert "hybrid-without-owner" not in reminders(evaluation)


# --- the report --------------------------------------------------------------------------------


def test_the_report_lists_the_duplicated_controls(owner):
    from reports.snapshot import build_snapshot

    evaluation = make_evaluation(owner)
    stack = compose(evaluation, owner, THREE_QUOTAS)
    snapshot = build_snapshot(evaluation, language="en", generated_at="2027-01-01T00:00:00+00:00")
    (entry,) = [c for c in snapshot["candidates"] if c["slug"] == f"stack-{stack.pk}"]
    controls = {d["control"]: d["layers"] for d in entry["duplicated_controls"]}
    assert controls["queueing and quota"] == ["Kueue", "Volcano", "Enterprise container platform"]
