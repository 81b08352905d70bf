"""poc's demo step: the POC starts, each candidate's test bed is recorded, the scorers declare
and score every cell (seeded random draws around each candidate's bias, and the planned
disagreements), the owner records consensus, and the decision follows the scorecard.

Every language draws the same numbers: the draws go cell by cell in one fixed order (the plan's
cases, then the shortlist in evaluations' order), so keep the order of the writes."""

from __future__ import annotations

import random
from decimal import Decimal

from django.utils import timezone

from common.demo import DemoState, exact
from evaluations import services as evaluation_services
from evaluations.demo import demo_key, demo_owner
from poc import conflicts as poc_conflicts
from poc import scoring as poc_scoring
from poc import services as poc_services
from poc.models import Direction, Outcome, Score, TestCase
from poc.selectors import scorecard
from poc.testbeds import bed_save

from . import FILES


def load(state: DemoState) -> None:
    t = FILES.texts(state.language)
    lead = demo_owner(state)
    evaluation_services.evaluation_transition(
        user=lead, evaluation=state.evaluation, to_status="poc", reason=t["poc_start_reason"]
    )
    poc_services.plan_init(user=lead, evaluation=state.evaluation)
    record_test_beds(state, lead, t)
    score(state, lead, t)
    decide(state, lead, t)


def record_test_beds(state: DemoState, lead, t: dict) -> None:
    """Where each candidate's POC ran (data.yaml's test_beds, with the texts of this language)."""
    beds, words = FILES.data["test_beds"], t["test_beds"]
    for candidate in state.shortlisted:
        k = demo_key(candidate)
        if k in beds:
            bed = {**beds[k], **words.get(k, {})}
            bed_save(user=lead, candidate=candidate, expected_version=0, **bed)


def half(value: float) -> float:
    """Round to the rubric's half points and keep within 0–5."""
    return min(5.0, max(0.0, round(value * 2) / 2))


def score(state: DemoState, lead, t: dict) -> None:
    """Every scorer's submitted score of every cell, then the owner's consensus."""
    data, evaluation, shortlisted = FILES.data, state.evaluation, state.shortlisted
    rng = random.Random(data["seed"])
    cases = list(
        evaluation.poc_cases.select_related("group", "source_case").order_by(
            "group__order", "order", "pk"
        )
    )
    for case in cases:
        case.evaluation = evaluation  # one instance: role checks are cached on it
    base = {}
    for case in cases:
        for candidate in shortlisted:
            bias = data["bias"][demo_key(candidate)].get(case.group.key, 3.0)
            base[case.pk, candidate.pk] = half(bias + rng.uniform(-0.7, 0.7))
    declare(state, t)
    planned_cells, planned_notes = data["disagreements"], t["disagreements"]
    for index, username in enumerate(data["scorers"]):
        reviewer = state.users[username]
        for case in cases:
            case_key = case.source_case.key if case.source_case else ""
            for candidate in shortlisted:
                planned = planned_cells.get(demo_key(candidate), {}).get(case_key)
                if planned is not None:
                    value, measured = planned["scores"][index]
                    measured = exact(measured) if measured is not None else None
                    note = planned_notes[demo_key(candidate)][case_key]["notes"][index]
                else:
                    value = half(base[case.pk, candidate.pk] + rng.choice([-0.5, 0, 0, 0.5]))
                    measured = (
                        measured_value(case, value, rng)
                        if case.has_metric and rng.random() < 0.6
                        else None
                    )
                    note = score_note(t, case, candidate, value, measured)
                poc_services.score_save(
                    user=reviewer,
                    case=case,
                    candidate=candidate,
                    score=exact(value),
                    measured_value=measured,
                    outcome=outcome(candidate, case, value),
                    notes=note,
                    submit=True,
                    expected_version=0,
                )
    by_key = {c.source_case.key: c for c in cases if c.source_case}
    by_slug = {demo_key(c): c for c in shortlisted}
    for slug, planned_cases in planned_cells.items():
        for case_key, planned in planned_cases.items():
            agreed = planned["consensus"]
            if agreed is None or case_key not in by_key or slug not in by_slug:
                continue
            poc_services.consensus_record(
                user=lead,
                case=by_key[case_key],
                candidate=by_slug[slug],
                score=exact(agreed),
                reason=planned_notes[slug][case_key]["consensus"],
                expected_version=0,
            )


def declare(state: DemoState, t: dict) -> None:
    """Each scorer's declarations (poc.conflicts); the declared conflict is allowed."""
    conflict_of = FILES.data["declared_conflict"]
    words = t["conflict"]
    for username in FILES.data["scorers"]:
        for candidate in state.shortlisted:
            candidate.evaluation = state.evaluation
            conflict = (
                username == conflict_of["scorer"]
                and demo_key(candidate) == conflict_of["candidate"]
            )
            declaration = poc_conflicts.declaration_save(
                user=state.users[username],
                candidate=candidate,
                has_conflict=conflict,
                description=words["relationship"] if conflict else "",
                expected_version=0,
            )
            if conflict:
                poc_conflicts.allowance_grant(
                    user=demo_owner(state),
                    declaration=declaration,
                    reason=words["allowance"],
                    expected_version=declaration.version,
                )


def outcome(candidate, case, value: float) -> str:
    if value >= 3:
        return Outcome.PASSED
    if demo_key(candidate) == "slurm" and case.group.key == "inference_serving":
        return Outcome.BLOCKED if value <= 1 else Outcome.FAILED
    return Outcome.FAILED


def measured_value(case, value: float, rng: random.Random) -> Decimal | None:
    """A measurement in the rubric band of the score (poc.scoring.measured_bands), or None when
    the metric has no such band (a zero threshold has only "meets" and "misses")."""
    bands = poc_scoring.measured_bands(case.metric_direction, case.metric_threshold)
    target = Decimal(min(5, int(value)))
    limits = {score: limit for limit, score in bands.steps}
    better = -1 if case.metric_direction == Direction.LOWER else 1
    scale = abs(case.metric_threshold) or Decimal(50)
    if target == 0:
        worst = limits.get(Decimal(1), case.metric_threshold)
        raw = float(worst) - better * float(scale) * rng.uniform(0.1, 1.0)
    elif target in limits:
        inner = float(limits[target])
        outer = limits.get(target + 1)
        outer = float(outer) if outer is not None else inner + better * float(scale) * 0.3
        raw = inner + (outer - inner) * rng.uniform(0.1, 0.9)
    else:
        return None
    if case.metric_unit == "%" and not 0 <= raw <= 100:
        return None
    measured = exact(round(raw, 1))
    return measured if poc_services.measured_to_score(case, measured) == target else None


def score_note(t: dict, case, candidate, value: float, measured: Decimal | None) -> str:
    words = t["score_notes"]
    if measured is not None:
        unit = f" {case.metric_unit}" if case.metric_unit else ""
        return words["measured"].format(value=measured, unit=unit)
    if demo_key(candidate) == "slurm" and case.group.key == "inference_serving":
        return words["slurm_inference"]
    if value < 2.5:
        return words["not_met"]
    if value >= 4.5:
        return words["excellent"]
    return ""


# --- decision ---------------------------------------------------------------------------------


def decide(state: DemoState, lead, t: dict) -> None:
    """The candidate that leads the scorecard is chosen, with the reasons of this language."""
    card = scorecard(state.evaluation, lead, see_all=True)
    ranked = sorted(
        state.shortlisted,
        key=lambda c: card.overall(c).raw_score or Decimal("0"),
        reverse=True,
    )
    best, second = ranked[0], ranked[1]
    words = t["decision"]
    rationale = words["rationale"].format(
        best=best.name,
        score=card.overall(best).score,
        second=second.name,
        second_score=card.overall(second).score,
        why=words["why"].get(demo_key(best), words["why_fallback"]),
    )
    evaluation_services.decision_save(
        user=lead,
        evaluation=state.evaluation,
        chosen=[best],
        rationale=rationale,
        decided_on=timezone.localdate(),
        decided_by=words["decided_by"],
        expected_version=0,
    )


def missing() -> list[str]:
    """The POC test-case library the plan is made from, when it is not seeded."""
    return [] if TestCase.objects.exists() else ["POC test cases"]


def summary(state: DemoState) -> str:
    scores = Score.objects.filter(case__evaluation=state.evaluation).count()
    return f"{scores} POC scores"
