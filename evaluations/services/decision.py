"""The decision record, the decided gate's list of what is missing, and the owner's waivers of
hard constraints."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from common.concurrency import bump, lock_or_new
from common.exceptions import Conflict, Forbidden
from common.history import save_as

from ..constraints import Verdict, candidate_checks
from ..models import Candidate, CandidateStatus, Constraint, ConstraintWaiver, Decision, Evaluation
from ..selectors import evaluation_data
from .checks import clean_text, evaluation_require_editable


@transaction.atomic
def decision_save(
    *,
    user,
    evaluation: Evaluation,
    chosen: Iterable[Candidate],
    rationale: str,
    decided_on: datetime.date | None,
    decided_by: str,
    expected_version: int | None,
) -> Decision:
    evaluation_require_editable(user, evaluation)
    chosen = list(chosen)
    foreign = [c for c in chosen if c.evaluation_id != evaluation.pk]
    if foreign:
        raise ValidationError({"chosen": _("Choose candidates of this evaluation only.")})
    eliminated = [c.name for c in chosen if c.status != CandidateStatus.SHORTLISTED]
    if eliminated:
        raise ValidationError(
            {
                "chosen": _("Eliminated candidates cannot be chosen: %(names)s.")
                % {"names": ", ".join(eliminated)}
            }
        )
    decision = lock_or_new(Decision, expected_version=expected_version, evaluation=evaluation)
    bump(decision)
    decision.rationale = clean_text(rationale)
    decision.decided_on = decided_on
    decision.decided_by = clean_text(decided_by)
    decision.recorded_by = user
    decision.full_clean()
    save_as(decision, user)
    decision.chosen.set(chosen)
    return decision


# The headings the decided gate groups its items under, by the place that fixes them.
GATE_GROUPS = {
    "shortlist": pgettext_lazy("candidate list", "Shortlist"),
    "questions": gettext_lazy("Five questions"),
    "decision": gettext_lazy("Decision record"),
}


class GateItem(str):
    """One thing missing before an evaluation may be marked decided: its text (what the API
    returns) and the place that fixes it (`place`: "shortlist", "decision" or "questions", with
    `candidate` and `question` for an answer), which pages turn into a link; `group` is the
    heading pages list it under."""

    def __new__(cls, text: str, place: str, **where):
        item = super().__new__(cls, text)
        item.place, item.where = place, where
        item.group, item.note = GATE_GROUPS[place], ""
        return item


def decided_gate_missing(evaluation: Evaluation) -> list[GateItem]:
    """Everything that keeps this evaluation from being marked decided; empty when it may be."""
    data = evaluation_data(evaluation)
    missing = []
    if not data.shortlisted:
        missing.append(GateItem(_("No candidate is shortlisted."), "shortlist"))
    for row in data.progress():
        for question, parts in row.missing:
            what = (
                _("no answer")
                if parts == ["*"]
                else _("missing %(parts)s")
                % {"parts": pgettext("list separator", ", ").join(parts)}
            )
            text = _("%(candidate)s — question %(n)s “%(q)s”: %(what)s.") % {
                "candidate": row.candidate.name,
                "n": question.order,
                "q": question.text,
                "what": what,
            }
            missing.append(
                GateItem(text, "questions", candidate=row.candidate.pk, question=question.key)
            )
    decision = data.decision
    texts = []
    if decision is None:
        texts.append(_("There is no decision record."))
    else:
        if not decision.chosen.all():
            texts.append(_("The decision record names no chosen candidate."))
        if not decision.rationale:
            texts.append(_("The decision record has no rationale."))
        if not decision.decided_on:
            texts.append(_("The decision record has no date."))
        if not decision.decided_by:
            texts.append(_("The decision record does not say who decided."))
    missing.extend(GateItem(text, "decision") for text in texts)
    shortlisted = {c.pk: c for c in data.shortlisted}
    for chosen in decision.chosen.all() if decision is not None else []:
        candidate = shortlisted.get(chosen.pk)
        for check in candidate_checks(data, candidate) if candidate else []:
            if check.blocks_decision:
                text = _(
                    "%(candidate)s violates the hard constraint “%(constraint)s”: choose another "
                    "candidate, or the owner waives it with a reason."
                ) % {"candidate": candidate.name, "constraint": check.constraint.name}
                missing.append(GateItem(text, "shortlist", candidate=candidate.pk))
    return missing


def _check_for(user, candidate: Candidate, constraint: Constraint):
    evaluation = candidate.evaluation
    evaluation_require_editable(user, evaluation)
    if not user.has_perm("evaluations.waive_constraint", evaluation):
        raise Forbidden(_("Only the evaluation's owner waives a hard constraint."))
    data = evaluation_data(evaluation)
    found = [c for c in data.candidates if c.pk == candidate.pk]
    checks = candidate_checks(data, found[0]) if found else []
    return next((c for c in checks if c.constraint.pk == constraint.pk), None)


@transaction.atomic
def constraint_waive(
    *, user, candidate: Candidate, constraint: Constraint, reason: str
) -> ConstraintWaiver:
    """The owner accepts, with a reason, that a candidate violates a hard constraint."""
    check = _check_for(user, candidate, constraint)
    if check is None or check.verdict != Verdict.VIOLATES:
        raise ValidationError(
            {"constraint": _("Only a constraint this candidate violates can be waived.")}
        )
    if check.waiver is not None:
        raise Conflict(_("This constraint is already waived for this candidate."))
    reason = clean_text(reason, (ConstraintWaiver, "reason", "reason"))
    if not reason:
        raise ValidationError({"reason": _("Say why the decision may accept this violation.")})
    waiver = ConstraintWaiver(candidate=candidate, constraint=constraint, reason=reason)
    waiver.waived_by = user
    waiver._change_reason = reason
    save_as(waiver, user)
    return waiver


@transaction.atomic
def constraint_waiver_withdraw(*, user, candidate: Candidate, constraint: Constraint) -> None:
    check = _check_for(user, candidate, constraint)
    if check is None or check.waiver is None:
        raise ValidationError(
            {"constraint": _("This constraint is not waived for this candidate.")}
        )
    check.waiver._history_user = user
    check.waiver.delete()
