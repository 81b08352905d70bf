"""POC plans, blind scoring, consensus, evidence and the POC reminders, through the services."""

import hashlib
from decimal import Decimal as D

import pytest
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from common import roles
from common.exceptions import Conflict, Forbidden
from evaluations.models import MemberRole
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from poc import services
from poc.models import PlanCase, TestCase, TestGroup
from poc.selectors import results, scorecard
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, declare_none

pytestmark = pytest.mark.django_db


@pytest.fixture
def poc(evaluation, owner, people):
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    services.plan_init(user=owner, evaluation=evaluation)
    second = make_user(roles.REVIEWER, username="rev2")
    add_member(evaluation, second, MemberRole.REVIEWER)
    declare_none(evaluation, owner, people[MemberRole.EDITOR], people[MemberRole.REVIEWER], second)
    case = evaluation.poc_cases.get(source_case__key="gang_under_contention")
    return {
        "slurm": slurm,
        "volcano": volcano,
        "case": case,
        "r1": people[MemberRole.REVIEWER],
        "r2": second,
    }


def reminder_keys(evaluation):
    return {r.key for r in reminders_for(evaluation_data(evaluation))}


def test_library_is_seeded_with_the_ten_measurable_tests():
    assert TestGroup.objects.count() == 4
    for group in TestGroup.objects.all():
        assert group.cases.count() >= 4
    measurable = TestCase.objects.exclude(metric_direction="")
    assert measurable.count() >= 10
    assert TestCase.objects.get(key="preemption_latency").metric_threshold == D("60")


def test_plan_applies_to_every_candidate(evaluation, owner, poc):
    assert evaluation.poc_cases.count() == TestCase.objects.filter(is_active=True).count()
    assert services.plan_init(user=owner, evaluation=evaluation) == 0
    card = scorecard(evaluation, owner)
    assert all(len(row.cells) == 2 for block in card.groups for row in block.rows)
    assert not hasattr(PlanCase, "candidate")  # a plan case cannot name a candidate
    with pytest.raises(ValidationError):
        services.plan_case_add_custom(
            user=owner,
            evaluation=evaluation,
            group=TestGroup.objects.first(),
            title="",
            acceptance="",
        )


def test_scores_are_blind_until_submitted(evaluation, owner, poc):
    case, slurm, r1, r2 = poc["case"], poc["slurm"], poc["r1"], poc["r2"]
    services.score_save(
        user=r1, case=case, candidate=slurm, score="4", submit=True, expected_version=0
    )

    def cell(user):
        card = scorecard(evaluation, user)
        return next(c for c in card.cells() if c.case.pk == case.pk and c.candidate.pk == slurm.pk)

    assert cell(r2).hidden_count == 1 and cell(r2).visible == []
    services.score_save(user=r2, case=case, candidate=slurm, score="1.5", expected_version=0)
    assert cell(r2).hidden_count == 1  # a draft is not a submission
    services.scores_submit(user=r2, evaluation=evaluation)
    seen = cell(r2)
    assert seen.hidden_count == 0 and [s.score for s in seen.visible] == [D("4.0")]
    assert seen.disagreement and seen.value == D("2.75")
    assert cell(owner).visible  # the owner arbitrates and sees all
    with pytest.raises(Conflict, match="cannot be changed"):
        services.score_save(user=r2, case=case, candidate=slurm, score="3", expected_version=2)


def test_bad_scores_are_refused(evaluation, poc, people):
    case, slurm, r1 = poc["case"], poc["slurm"], poc["r1"]
    for bad in ("6", "-1", "2.25"):
        with pytest.raises(ValidationError):
            services.score_save(user=r1, case=case, candidate=slurm, score=bad, expected_version=0)
    qualitative = evaluation.poc_cases.filter(metric_direction="").first()
    with pytest.raises(ValidationError, match="no metric"):
        services.score_save(
            user=r1, case=qualitative, candidate=slurm, measured_value="3", expected_version=0
        )
    with pytest.raises(Forbidden):
        services.score_save(
            user=people[MemberRole.VIEWER],
            case=case,
            candidate=slurm,
            score="3",
            expected_version=0,
        )


def test_measured_values_are_judged_against_the_threshold(poc):
    case, slurm, r1 = poc["case"], poc["slurm"], poc["r1"]  # lower is better, threshold 0
    latency = case.evaluation.poc_cases.get(source_case__key="preemption_latency")  # ≤ 60 s
    # Meeting the threshold is the rubric's 3; 10 % / 25 % better is 4 / 5; up to 10 % / 25 %
    # worse is 2 / 1; worse still 0 (poc.scoring.measured_bands).
    expected = {"45": "5", "54": "4", "60": "3", "66": "2", "75": "1", "90": "0"}
    for measured, score in expected.items():
        assert services.measured_to_score(latency, D(measured)) == D(score), measured
    row = services.score_save(
        user=r1, case=latency, candidate=slurm, measured_value="60", expected_version=0
    )
    assert row.score == D("3") and row.measured_value == D("60")
    _ = case


def test_consensus_needs_the_owner_and_a_reason_and_counts(evaluation, owner, poc, people):
    case, slurm, r1, r2 = poc["case"], poc["slurm"], poc["r1"], poc["r2"]
    with pytest.raises(Conflict, match="No reviewer has submitted"):
        services.consensus_record(
            user=owner, case=case, candidate=slurm, score="3", reason="x", expected_version=0
        )
    services.score_save(
        user=r1, case=case, candidate=slurm, score="5", submit=True, expected_version=0
    )
    services.score_save(
        user=r2, case=case, candidate=slurm, score="1", submit=True, expected_version=0
    )
    assert "poc-disagreements" in reminder_keys(evaluation)
    with pytest.raises(Forbidden):
        services.consensus_record(
            user=people[MemberRole.EDITOR],
            case=case,
            candidate=slurm,
            score="3",
            reason="x",
            expected_version=0,
        )
    with pytest.raises(ValidationError):
        services.consensus_record(
            user=owner, case=case, candidate=slurm, score="3", reason=" ", expected_version=0
        )
    services.consensus_record(
        user=owner,
        case=case,
        candidate=slurm,
        score="2",
        reason="Rerun showed a partial hold",
        expected_version=0,
    )
    card = scorecard(evaluation, owner)
    cell = next(c for c in card.cells() if c.case.pk == case.pk and c.candidate.pk == slurm.pk)
    assert cell.value == D("2") and len(cell.visible) == 2  # individual scores stay visible
    assert "poc-disagreements" not in reminder_keys(evaluation)


def test_missing_scores_are_missing_not_zero(evaluation, owner, poc):
    case, slurm, r1 = poc["case"], poc["slurm"], poc["r1"]
    services.score_save(
        user=r1, case=case, candidate=slurm, score="4", submit=True, expected_version=0
    )
    res = results(evaluation, owner)
    slurm_total = res.overall[slurm.pk]
    assert slurm_total.score == D("4.00")  # the only scored case, not dragged down by zeros
    assert D("0") < slurm_total.completeness < D("0.2")
    assert res.overall[poc["volcano"].pk].score is None


@override_settings(EVIDENCE_MAX_BYTES=1000)
def test_evidence_hash_limits_and_names(evaluation, poc, people):
    case, slurm, r1, r2 = poc["case"], poc["slurm"], poc["r1"], poc["r2"]
    score = services.score_save(user=r1, case=case, candidate=slurm, score="3", expected_version=0)
    content = b"gang test log\nno partial holds\n"
    ev = services.evidence_add(
        user=r1, score=score, upload=SimpleUploadedFile("run-1.txt", content)
    )
    assert ev.sha256 == hashlib.sha256(content).hexdigest() and ev.original_name == "run-1.txt"
    assert "run-1" not in ev.file.name  # stored under a random name
    with pytest.raises(ValidationError, match="limit"):
        services.evidence_add(
            user=r1, score=score, upload=SimpleUploadedFile("big.txt", b"x" * 1001)
        )
    with pytest.raises(ValidationError, match="type"):
        services.evidence_add(user=r1, score=score, upload=SimpleUploadedFile("tool.exe", b"MZ"))
    # Django's upload parser keeps only the last part of a name; an API client can still send
    # one with a path (ContentFile keeps it as given), and it is refused.
    for name in ("../etc/passwd.txt", "dir/file.txt", "..\\x.txt"):
        with pytest.raises(ValidationError, match="path"):
            services.evidence_add(user=r1, score=score, upload=ContentFile(b"x", name=name))
    with pytest.raises(Forbidden):
        services.evidence_add(user=r2, score=score, upload=SimpleUploadedFile("a.txt", b"x"))
    assert score.evidence.count() == 1


def test_poc_reminders_fire_and_clear(evaluation, owner, poc):
    assert "poc-happy-path-only" not in reminder_keys(evaluation)
    evaluation.poc_cases.filter(group__happy_path=False).delete()
    assert {"poc-happy-path-only", "poc-empty-group"} <= reminder_keys(evaluation)
    services.plan_init(user=owner, evaluation=evaluation)
    assert not {"poc-happy-path-only", "poc-empty-group"} & reminder_keys(evaluation)
