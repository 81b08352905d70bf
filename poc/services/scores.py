"""Writes to the scorecard: my score for a cell (a draft until submitted; submitted scores are
final), submitting my drafts, and the owner's consensus. Every score write asks the declared
conflicts of interest first (poc.conflicts.require_clear)."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from common.concurrency import bump, lock_or_new
from common.exceptions import Conflict
from common.history import save_as
from evaluations.locking import evaluation_lock_for
from evaluations.models import Candidate, CandidateStatus, Evaluation

from .. import scoring
from ..conflicts import require_clear
from ..models import Consensus, Direction, Outcome, PlanCase, Score
from .numbers import field_decimal


def _rubric_error(value: Decimal | None) -> str | None:
    """Scores are 0–5 in whole or half points (scoring.rubric_problem)."""
    problem = scoring.rubric_problem(value)
    if problem == "range":
        return _("Scores run from 0 to 5.")
    if problem == "step":
        return _("Use whole or half points (e.g. 3 or 3.5).")
    return None


def _check_cell(case: PlanCase, candidate: Candidate) -> None:
    if case.evaluation_id != candidate.evaluation_id:
        raise ValidationError({"case": _("This case is not in the candidate's POC plan.")})
    if candidate.status != CandidateStatus.SHORTLISTED:
        raise Conflict(_("%(s)s is eliminated; it is not scored.") % {"s": candidate.solution})


def measured_to_score(case: PlanCase, value: Decimal) -> Decimal:
    """A measured value on the rubric for this case's metric: meeting the threshold is 3, the
    documented bands above and below it give the rest (scoring.measured_bands)."""
    return scoring.measured_to_score(
        Direction(case.metric_direction).value,
        case.metric_threshold,
        value,
        case.metric_good,
        case.metric_excellent,
    )


@transaction.atomic
def score_save(
    *,
    user,
    case: PlanCase,
    candidate: Candidate,
    score=None,
    measured_value=None,
    outcome: str = Outcome.NOT_RUN,
    notes: str = "",
    submit: bool = False,
    expected_version: int | None,
) -> Score:
    """Save my score for one cell (a draft until submitted; submitted scores are final)."""
    evaluation_lock_for(user, case.evaluation, "poc.score")
    _check_cell(case, candidate)
    require_clear(user, candidate)  # a declared conflict of interest, or none declared yet
    errors = {}
    value = field_decimal(score, "score")
    measured = field_decimal(measured_value, "measured_value")
    rubric_error = _rubric_error(value)
    if rubric_error:
        errors["score"] = [rubric_error]
    if measured is not None and not case.has_metric:
        errors["measured_value"] = [_("This case has no metric to measure against.")]
    if outcome not in Outcome.values:
        errors["outcome"] = [_("Unknown outcome '%(o)s'.") % {"o": outcome}]
    if submit and value is None and measured is None:
        errors["score"] = [_("Give a score or a measured value before submitting.")]
    if errors:
        raise ValidationError(errors)
    if value is None and measured is not None:
        value = measured_to_score(case, measured)
    value = value.quantize(Decimal("0.1")) if value is not None else None
    row = lock_or_new(
        Score, expected_version=expected_version, case=case, candidate=candidate, reviewer=user
    )
    if row.submitted:
        raise Conflict(_("You submitted this score; submitted scores cannot be changed."))
    row.score = value
    row.measured_value = measured
    row.outcome = outcome
    row.notes = (notes or "").strip()
    if submit:
        row.submitted_at = timezone.now()
    bump(row)
    row.full_clean(exclude=["case", "candidate", "reviewer"])
    save_as(row, user)
    return row


@transaction.atomic
def scores_submit(*, user, evaluation: Evaluation, candidate: Candidate | None = None) -> int:
    """Submit all my draft scores (for one candidate, or all) that have a value."""
    evaluation_lock_for(user, evaluation, "poc.score")
    drafts = Score.objects.filter(
        case__evaluation=evaluation, reviewer=user, submitted_at=None, score__isnull=False
    )
    if candidate is not None:
        drafts = drafts.filter(candidate=candidate)
    for blocked in Candidate.objects.filter(pk__in=drafts.values("candidate")).select_related(
        "solution"
    ):
        require_clear(user, blocked)  # a conflict declared since the draft was saved
    count = 0
    for row in drafts.select_for_update():
        row.submitted_at = timezone.now()
        bump(row)
        save_as(row, user)
        count += 1
    return count


@transaction.atomic
def consensus_record(
    *,
    user,
    case: PlanCase,
    candidate: Candidate,
    score,
    reason: str,
    expected_version: int | None,
) -> Consensus:
    """The owner's agreed score for a cell, with the reason; individual scores stay visible."""
    evaluation_lock_for(user, case.evaluation, "poc.record_consensus")
    _check_cell(case, candidate)
    value = field_decimal(score, "score")
    errors = {}
    rubric_error = _("Scores run from 0 to 5.") if value is None else _rubric_error(value)
    if rubric_error:
        errors["score"] = [rubric_error]
    if not (reason or "").strip():
        errors["reason"] = [_("Say why this is the agreed score.")]
    if errors:
        raise ValidationError(errors)
    if not case.scores.filter(candidate=candidate).exclude(submitted_at=None).exists():
        raise Conflict(_("No reviewer has submitted a score for this cell yet."))
    row = lock_or_new(Consensus, expected_version=expected_version, case=case, candidate=candidate)
    row.score = value.quantize(Decimal("0.1"))
    row.reason = reason.strip()
    row.decided_by = user
    bump(row)
    row.full_clean(exclude=["case", "candidate", "decided_by"])
    save_as(row, user)
    return row
