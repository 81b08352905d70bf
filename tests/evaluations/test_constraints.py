"""Hard constraints checked against the catalog: every support level under every seeded
constraint, flags and context facts carrying them, the reminders, the decided gate and its
waiver, and the one-click POC case that verifies an unknown claim."""

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from catalog.models import Capability, CapabilityClaim, Solution, SupportLevel
from common.exceptions import Forbidden
from evaluations import services
from evaluations.constraints import LEVEL_VERDICT, Verdict, constraint_checks
from evaluations.models import (
    AnswerValue,
    Constraint,
    ConstraintWaiver,
    ContextAnswer,
    ContextQuestion,
    MemberRole,
)
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from poc.models import PlanCase
from poc.services import plan_case_verify
from tests.factories import SolutionFactory, add_candidates, add_member, make_evaluation
from tests.reports.runs.support import pdf_text

pytestmark = pytest.mark.django_db

CONSTRAINTS = ["private_deployment", "compliance_audit", "localisation", "hybrid_unified_view"]


def candidate_with_levels(evaluation, owner, levels: dict[str, str]):
    """A shortlisted candidate whose solution claims `levels` (capability slug -> level)."""
    template = Solution.objects.get(slug="slurm")
    solution = SolutionFactory(solution_type=template.solution_type)
    for slug, level in levels.items():
        CapabilityClaim.objects.create(
            solution=solution, capability=Capability.objects.get(slug=slug), level=level
        )
    return services.candidate_add(
        user=owner, evaluation=evaluation, solution=solution, reason="Under test."
    )


def checks_of(evaluation, candidate):
    return constraint_checks(evaluation_data(evaluation))[candidate.pk]


def test_the_seeded_constraints_name_real_capabilities():
    keys = set(Constraint.objects.values_list("key", flat=True))
    assert set(CONSTRAINTS) | {"multi_tenant_governance"} <= keys
    for constraint in Constraint.objects.all():
        assert constraint.capabilities.exists(), constraint.key
        assert constraint.name_en and constraint.name_zh_hans, constraint.key
        assert constraint.flag or constraint.facts, constraint.key


@pytest.mark.parametrize("level", SupportLevel.values)
@pytest.mark.parametrize("key", CONSTRAINTS)
def test_every_level_under_every_constraint(owner, key, level):
    constraint = Constraint.objects.get(key=key)
    evaluation = make_evaluation(owner, **{constraint.flag: True})
    slugs = list(constraint.capabilities.values_list("slug", flat=True))
    candidate = candidate_with_levels(evaluation, owner, dict.fromkeys(slugs, level))
    check = next(c for c in checks_of(evaluation, candidate) if c.constraint.key == key)
    assert check.verdict == LEVEL_VERDICT[level]
    assert {c.capability.slug for c in check.capabilities} == set(slugs)
    assert all(c.claim is not None and c.claim.level == level for c in check.capabilities)
    assert check.blocks_decision == (level == SupportLevel.NONE)


def test_the_worst_capability_decides_and_a_missing_claim_is_unverified(owner):
    evaluation = make_evaluation(owner, compliance_required=True)
    candidate = candidate_with_levels(
        evaluation,
        owner,
        {"multi-tenancy": "native", "rbac": "partial"},  # no audit-log claim
    )
    (check,) = [
        c for c in checks_of(evaluation, candidate) if c.constraint.key == "compliance_audit"
    ]
    assert [c.verdict for c in check.capabilities] == ["met", "partial", "unverified"]
    assert check.verdict == Verdict.UNVERIFIED
    assert check.having(Verdict.UNVERIFIED)[0].claim is None


def test_a_context_fact_carries_a_constraint_and_nothing_carries_none(owner):
    evaluation = make_evaluation(owner)
    candidate = candidate_with_levels(evaluation, owner, {})
    assert checks_of(evaluation, candidate) == []
    ContextAnswer.objects.create(
        evaluation=evaluation,
        question=ContextQuestion.objects.get(key="multitenancy_utilisation"),
        value=AnswerValue.YES,
    )
    keys = [c.constraint.key for c in checks_of(evaluation, candidate)]
    assert keys == ["multi_tenant_governance"]


def test_reminders_fire_on_violated_unverified_and_partial_and_clear(owner):
    evaluation = make_evaluation(
        owner, private_deployment_required=True, localisation_required=True
    )
    bad = candidate_with_levels(
        evaluation, owner, {"private-deployment": "none", "localised-accelerators": "partial"}
    )
    unknown = candidate_with_levels(evaluation, owner, {"private-deployment": "native"})
    keys = {r.key: r for r in reminders_for(evaluation_data(evaluation))}
    assert keys[f"constraint-violated:{bad.pk}"].severity == "high"
    assert f"constraint-partial:{bad.pk}" in keys
    assert f"constraint-unverified:{unknown.pk}" in keys  # no localisation claim at all
    assert f"constraint-violated:{unknown.pk}" not in keys
    assert f"#constraints-{bad.pk}" in keys[f"constraint-violated:{bad.pk}"].fix_url

    services.constraint_waive(
        user=owner,
        candidate=bad,
        constraint=Constraint.objects.get(key="private_deployment"),
        reason="A private cloud region counts for us.",
    )
    keys = {r.key for r in reminders_for(evaluation_data(evaluation))}
    assert f"constraint-violated:{bad.pk}" not in keys


def decide(evaluation, owner, candidate):
    services.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc")
    services.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=[candidate],
        rationale="It fits.",
        decided_on=datetime.date(2027, 1, 15),
        decided_by="Board",
        expected_version=None,
    )


def test_the_decided_gate_refuses_a_violation_until_the_owner_waives_it(owner, people):
    evaluation = make_evaluation(owner, localisation_required=True)
    add_member(evaluation, people[MemberRole.EDITOR], MemberRole.EDITOR)
    runai = candidate_with_levels(evaluation, owner, {"localised-accelerators": "none"})
    decide(evaluation, owner, runai)
    texts = [str(m) for m in services.decided_gate_missing(evaluation)]
    assert any("violates the hard constraint" in t for t in texts), texts

    localisation = Constraint.objects.get(key="localisation")
    with pytest.raises(Forbidden):
        services.constraint_waive(
            user=people[MemberRole.EDITOR], candidate=runai, constraint=localisation, reason="x"
        )
    with pytest.raises(ValidationError) as refused:
        services.constraint_waive(user=owner, candidate=runai, constraint=localisation, reason=" ")
    assert "reason" in refused.value.message_dict
    waiver = services.constraint_waive(
        user=owner, candidate=runai, constraint=localisation, reason="NVIDIA only until 2028."
    )
    assert waiver.history.first().history_user == owner
    assert not [m for m in services.decided_gate_missing(evaluation) if "violates" in str(m)]

    services.constraint_waiver_withdraw(user=owner, candidate=runai, constraint=localisation)
    assert not ConstraintWaiver.objects.exists()
    assert any("violates" in str(m) for m in services.decided_gate_missing(evaluation))


def test_only_a_violated_constraint_can_be_waived(owner):
    evaluation = make_evaluation(owner, localisation_required=True)
    fine = candidate_with_levels(evaluation, owner, {"localised-accelerators": "native"})
    with pytest.raises(ValidationError):
        services.constraint_waive(
            user=owner,
            candidate=fine,
            constraint=Constraint.objects.get(key="localisation"),
            reason="Nothing to waive.",
        )


def test_verifying_a_capability_adds_the_library_case_then_an_own_case(owner):
    evaluation = make_evaluation(owner)
    quotas = Capability.objects.get(slug="quotas")
    first = plan_case_verify(user=owner, evaluation=evaluation, capability=quotas)
    assert quotas in first.source_case.verifies.all()
    second = plan_case_verify(user=owner, evaluation=evaluation, capability=quotas)
    assert second.source_case != first.source_case  # two library cases verify quotas
    with pytest.raises(ValidationError):
        plan_case_verify(user=owner, evaluation=evaluation, capability=quotas)

    private = Capability.objects.get(slug="private-deployment")  # no library case verifies it
    own = plan_case_verify(user=owner, evaluation=evaluation, capability=private)
    assert own.source_case is None and str(private.name) in own.title and own.acceptance
    with pytest.raises(ValidationError):
        plan_case_verify(user=owner, evaluation=evaluation, capability=private)


def test_the_shortlist_page_shows_checks_and_its_buttons_work(client, owner):
    evaluation = make_evaluation(
        owner, private_deployment_required=True, localisation_required=True
    )
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    bad = candidate_with_levels(
        evaluation, owner, {"private-deployment": "unknown", "localised-accelerators": "none"}
    )
    client.force_login(owner)
    url = reverse("evaluations:evaluation_shortlist", args=[evaluation.pk])
    page = client.get(url).content.decode()
    assert f'id="constraints-{slurm.pk}"' in page and f'id="constraints-{bad.pk}"' in page
    assert 'data-verdict="violates"' in page and 'data-verdict="unverified"' in page
    assert 'data-testid="waive-form"' in page
    assert f'data-testid="verify-{bad.pk}-private-deployment"' in page

    empty = client.post(
        url, {"action": "waive", "candidate": bad.pk, "constraint": "localisation", "reason": ""}
    )
    assert empty.status_code == 400 and not ConstraintWaiver.objects.exists()
    waived = client.post(
        url,
        {"action": "waive", "candidate": bad.pk, "constraint": "localisation", "reason": "Later."},
    )
    assert waived.status_code == 302
    page = client.get(url).content.decode()
    assert 'data-testid="waiver"' in page and "Later." in page

    verify = client.post(
        reverse("poc:verify_capability", args=[evaluation.pk]), {"capability": "private-deployment"}
    )
    assert verify.status_code == 302
    assert PlanCase.objects.filter(evaluation=evaluation, source_case=None).count() == 1
    bogus = client.post(
        reverse("poc:verify_capability", args=[evaluation.pk]), {"capability": "no-such"}
    )
    assert bogus.status_code == 400


def test_the_api_reads_checks_and_waives_like_the_pages(owner, people):
    from rest_framework.test import APIClient

    evaluation = make_evaluation(owner, localisation_required=True)
    add_member(evaluation, people[MemberRole.EDITOR], MemberRole.EDITOR)
    bad = candidate_with_levels(evaluation, owner, {"localised-accelerators": "none"})
    base = f"/api/evaluations/{evaluation.pk}/"
    api = APIClient()

    api.force_authenticate(people["outsider"])
    assert api.get(base + "constraints/").status_code == 404
    waivers = f"{base}candidates/{bad.pk}/waivers/"
    body = {"constraint": "localisation", "reason": "NVIDIA only."}
    assert api.post(waivers, body, format="json").status_code == 404

    api.force_authenticate(people[MemberRole.EDITOR])
    (row,) = api.get(base + "constraints/").json()
    (check,) = row["checks"]
    assert row["candidate"] == bad.pk and check["constraint"] == "localisation"
    assert check["verdict"] == "violates" and check["blocks_decision"] is True
    assert check["capabilities"][0]["level"] == "none" and check["waiver"] is None
    assert api.post(waivers, body, format="json").status_code == 403

    api.force_authenticate(owner)
    assert api.post(waivers, {**body, "reason": ""}, format="json").status_code == 400
    assert api.post(waivers, {**body, "constraint": "nope"}, format="json").status_code == 400
    made = api.post(waivers, body, format="json")
    assert made.status_code == 201 and made.json()["waived_by"] == owner.username
    assert api.post(waivers, body, format="json").status_code == 409
    (row,) = api.get(base + "constraints/").json()
    assert row["checks"][0]["waiver"]["reason"] == "NVIDIA only."
    assert api.delete(waivers + "localisation/").status_code == 204
    assert api.delete(waivers + "localisation/").status_code == 400
    assert api.delete(waivers + "nope/").status_code == 404

    verify = api.post(
        base + "poc/plan/verify/", {"capability": "localised-accelerators"}, format="json"
    )
    assert verify.status_code == 201 and "Location" in verify
    again = api.post(
        base + "poc/plan/verify/", {"capability": "localised-accelerators"}, format="json"
    )
    assert again.status_code == 400


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_report_prints_each_candidates_constraint_table_and_waiver(owner, language):
    from django.utils.translation import override

    from reports.render import render_pdf
    from reports.snapshot import build_snapshot, snapshot_sha256

    evaluation = make_evaluation(
        owner, private_deployment_required=True, localisation_required=True
    )
    bad = candidate_with_levels(
        evaluation, owner, {"private-deployment": "native", "localised-accelerators": "none"}
    )
    services.constraint_waive(
        user=owner,
        candidate=bad,
        constraint=Constraint.objects.get(key="localisation"),
        reason="Waiver7731",
    )
    snapshot = build_snapshot(evaluation, language=language, generated_at="2027-01-01T00:00:00Z")
    (candidate,) = snapshot["candidates"]
    rows = {row["name"]: row for row in candidate["constraints"]}
    with override(language):
        names = [
            str(c.name)
            for c in Constraint.objects.filter(key__in=["private_deployment", "localisation"])
        ]
    assert set(rows) == set(names)
    assert sorted(r["verdict"] for r in rows.values()) == ["met", "violates"]
    text = pdf_text(render_pdf(snapshot, snapshot_sha256(snapshot), language).content)
    assert "Waiver7731" in text
    with override(language):
        assert str(Verdict.LABELS["violates"]) in text and names[0] in text.replace("\n", "")


def test_admins_edit_the_constraint_library_and_bad_facts_are_refused(client, admin_user):
    constraint = Constraint.objects.get(key="localisation")
    client.force_login(admin_user)
    url = reverse("admin:evaluations_constraint_change", args=[constraint.pk])
    page = client.get(url)
    assert page.status_code == 200
    form = {
        "order": 3,
        "name_en": "Localisation",
        "name_zh_hans": "国产化",
        "description_en": "",
        "description_zh_hans": "",
        "flag": "localisation_required",
        "facts": '["no_such_question"]',
        "capabilities": [c.pk for c in constraint.capabilities.all()],
        "is_active": "on",
    }
    refused = client.post(url, form)
    assert refused.status_code == 200 and "no_such_question" in refused.content.decode()
    assert Constraint.objects.get(pk=constraint.pk).facts == []
    saved = client.post(url, {**form, "facts": '["heterogeneous_accelerators"]'})
    assert saved.status_code == 302
    assert Constraint.objects.get(pk=constraint.pk).facts == ["heterogeneous_accelerators"]


@pytest.mark.parametrize(
    ("question", "key"),
    [("private_deployment", "private_deployment"), ("compliance_regime", "compliance_audit")],
)
def test_answering_the_context_question_carries_the_constraint_of_its_box(owner, question, key):
    """The box and the question are one fact: answered on the context page, the constraint
    is carried; answered no again, it is not."""
    evaluation = make_evaluation(owner)
    candidate = candidate_with_levels(evaluation, owner, {})

    def carried():
        return {c.constraint.key for c in checks_of(evaluation, candidate)}

    assert key not in carried()
    q = ContextQuestion.objects.get(key=question)
    answer = services.context_answer_save(
        user=owner, evaluation=evaluation, question=q, value="yes", expected_version=0
    )
    assert key in carried()
    services.context_answer_save(
        user=owner, evaluation=evaluation, question=q, value="no", expected_version=answer.version
    )
    assert key not in carried()
