"""Hard constraints, continued: localisation checked per accelerator family the context answers
name (stacks through their best layer), and constraints resting on stale catalog claims."""

import datetime

import pytest
from django.urls import reverse

from catalog.models import AcceleratorSupport, CapabilityClaim, Source
from evaluations import services
from evaluations.constraints import Verdict, constraint_checks
from evaluations.models import ContextQuestion
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from tests.factories import add_candidates, compose_stack, make_evaluation

pytestmark = pytest.mark.django_db


def name_families(evaluation, owner, detail):
    services.context_answer_save(
        user=owner,
        evaluation=evaluation,
        question=ContextQuestion.objects.get(key="heterogeneous_accelerators"),
        value="yes",
        detail=detail,
        expected_version=None,
    )


def family_verdicts(evaluation, candidate) -> dict[str, tuple[str, str]]:
    checks = constraint_checks(evaluation_data(evaluation))[candidate.pk]
    (check,) = [c for c in checks if c.constraint.key == "localisation"]
    return {
        c.capability.slug: (c.verdict, c.claim.level if c.claim else "unknown")
        for c in check.capabilities
        if c.is_family
    }


def test_localisation_checks_each_accelerator_family_the_answers_name(client, owner):
    evaluation = make_evaluation(owner, localisation_required=True)
    slurm, hami = add_candidates(evaluation, owner, "slurm", "hami")
    assert family_verdicts(evaluation, slurm) == {}  # no family named yet
    name_families(evaluation, owner, "NVIDIA A800/H20 and Ascend 910B; 寒武纪 MLU370 later")
    assert family_verdicts(evaluation, slurm) == {
        "nvidia": (Verdict.MET, "native"),
        # declared by hand as generic GRES: the site team adapts them
        "ascend": (Verdict.PARTIAL, "partial"),
        "cambricon-mlu": (Verdict.PARTIAL, "partial"),
    }
    verdicts = family_verdicts(evaluation, hami)
    assert verdicts["ascend"][0] == verdicts["cambricon-mlu"][0] == Verdict.MET
    # The page names the families, without a "verify in the POC" button for them.
    client.force_login(owner)
    page = client.get(reverse("evaluations:evaluation_shortlist", kwargs={"pk": evaluation.pk}))
    body = page.content.decode()
    assert "Huawei Ascend NPU" in body and "named accelerator family" in body
    assert f'data-testid="verify-{slurm.pk}-ascend"' not in body
    api = client.get(f"/api/evaluations/{evaluation.pk}/constraints/")
    assert api.status_code == 200, api.content
    rows = [
        cap
        for candidate in api.json()
        for check in candidate["checks"]
        for cap in check["capabilities"]
        if cap["kind"] == "accelerator_family"
    ]
    assert {r["capability"] for r in rows} == {"nvidia", "ascend", "cambricon-mlu"}


def test_a_stack_meets_a_named_family_through_its_best_layer(owner):
    evaluation = make_evaluation(owner, localisation_required=True)
    name_families(evaluation, owner, "Ascend 910B only")
    stack = compose_stack(
        evaluation, owner, "Slurm + HAMi", "execution", execution="slurm", other="hami"
    )
    verdict, level = family_verdicts(evaluation, stack)["ascend"]
    assert verdict == Verdict.MET and level in ("native", "add-on")


def test_a_constraint_resting_on_a_stale_claim_is_reminded_until_it_is_checked(owner):
    evaluation = make_evaluation(owner, private_deployment_required=True)
    (slurm,) = add_candidates(evaluation, owner, "slurm")

    def stale_reminders():
        found = reminders_for(evaluation_data(evaluation))
        return [r for r in found if r.key == f"stale-claims:{slurm.pk}"]

    assert stale_reminders() == []
    claim = CapabilityClaim.objects.get(
        solution__slug="slurm", capability__slug="private-deployment"
    )
    old = Source.objects.create(key="OLD-1", title="An old page", as_of="read 2024-03-01")
    claim.sources.set([old])
    claim.as_of_version = "docs of 2024"
    claim.checked_on = None
    claim.save()
    (found,) = stale_reminders()
    assert "Private / air-gapped deployment" in found.title and found.severity == "medium"
    assert found.fix_url.endswith(f"#constraints-{slurm.pk}")
    claim.checked_on = datetime.date(2026, 11, 2)  # an administrator read it again
    claim.save()
    assert stale_reminders() == []


def test_missing_data_does_not_decide_localisation(client, owner):
    """The platform whose claims name NVIDIA and Ascend meets the named families as the plain
    Kubernetes stack does; a family with no row is unverified and says the catalog has none."""
    evaluation = make_evaluation(owner, localisation_required=True)
    platform, k8s = add_candidates(
        evaluation, owner, "enterprise-container-platform", "kubernetes-gpu"
    )
    name_families(evaluation, owner, "NVIDIA H20 and Ascend 910B")
    for candidate in (platform, k8s):
        verdicts = family_verdicts(evaluation, candidate)
        assert {v for v, _level in verdicts.values()} == {Verdict.MET}, verdicts
    checks = constraint_checks(evaluation_data(evaluation))[platform.pk]
    (check,) = [c for c in checks if c.constraint.key == "localisation"]
    assert check.verdict == Verdict.MET
    AcceleratorSupport.objects.filter(
        solution__slug="enterprise-container-platform", family__slug="ascend"
    ).delete()
    assert family_verdicts(evaluation, platform)["ascend"] == (Verdict.UNVERIFIED, "unknown")
    checks = constraint_checks(evaluation_data(evaluation))[platform.pk]
    (check,) = [c for c in checks if c.constraint.key == "localisation"]
    assert [c.capability.slug for c in check.capabilities if c.missing] == ["ascend"]
    client.force_login(owner)
    page = client.get(reverse("evaluations:evaluation_shortlist", kwargs={"pk": evaluation.pk}))
    assert page.content.decode().count('data-testid="family-missing"') == 1
