"""Each built-in reminder fires on the data that should trigger it and clears when fixed."""

import datetime

import pytest

from evaluations import services
from evaluations.models import Decision, FiveQuestion
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from tests.factories import add_candidates, answer_all, follow_method

pytestmark = pytest.mark.django_db


def keys(evaluation):
    return {r.key for r in reminders_for(evaluation_data(evaluation))}


def test_every_reminder_says_why_and_links_to_the_fix(evaluation, owner):
    found = reminders_for(evaluation_data(evaluation))
    assert found
    for r in found:
        assert r.title and r.why and r.fix_label
        assert r.fix_url.startswith(f"/evaluations/{evaluation.pk}/")


def test_one_type_only_fires_and_clears(evaluation, owner):
    add_candidates(evaluation, owner, "slurm", "volcano")
    assert "one-type-only" in keys(evaluation)
    add_candidates(evaluation, owner, "runai")
    assert "one-type-only" not in keys(evaluation)


def test_hybrid_route_detected_from_the_decision(evaluation, owner):
    slurm, gke, volcano = add_candidates(evaluation, owner, "slurm", "cloud-managed-gpu", "volcano")
    services.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=[slurm, gke],
        rationale="On-prem training plus cloud bursts",
        decided_on=datetime.date(2026, 11, 30),
        decided_by="Board",
        expected_version=None,
    )
    assert "hybrid-without-owner" in keys(evaluation)
    evaluation.refresh_from_db()
    services.evaluation_update(
        user=owner,
        evaluation=evaluation,
        expected_version=evaluation.version,
        unified_view_owner="Platform team",
    )
    assert "hybrid-without-owner" not in keys(evaluation)


def test_decided_then_a_new_question_or_no_rationale_fires(evaluation, owner):
    slurm, volcano, runai = add_candidates(evaluation, owner, "slurm", "volcano", "runai")
    for c in (slurm, volcano, runai):
        answer_all(c, owner)
    services.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=[slurm],
        rationale="HPC team in place",
        decided_on=datetime.date(2026, 11, 30),
        decided_by="Board",
        expected_version=None,
    )
    services.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc")
    follow_method(evaluation, owner, chosen=[slurm])
    services.evaluation_transition(user=owner, evaluation=evaluation, to_status="decided")
    assert not {"decided-without-answers", "decided-without-rationale"} & keys(evaluation)
    # An admin adds a sixth question after the decision: the decision now lacks answers.
    FiveQuestion.objects.create(
        key="exit_plan", order=6, text_en="Exit plan?", text_zh_hans="退出方案？"
    )
    assert "decided-without-answers" in keys(evaluation)
    # Data from before the gate existed (no rationale) is flagged too.
    Decision.objects.filter(evaluation=evaluation).update(rationale="")
    assert "decided-without-rationale" in keys(evaluation)
