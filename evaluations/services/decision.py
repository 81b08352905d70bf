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

from ..acknowledgements import gate_reminders
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
    "type": gettext_lazy("Type decision"),
    "shortlist": pgettext_lazy("candidate list", "Shortlist"),
    "questions": gettext_lazy("Five questions"),
    "decision": gettext_lazy("Decision record"),
    "reminder": gettext_lazy("Open high reminders"),
}
GATE_NOTES = {
    "reminder": gettext_lazy(
        "Put each right, or the owner acknowledges it with a reason: kept in the history and "
        "printed in the report as “decided despite”."
    ),
}
# The reminder the type decision's own gate item stands for while no type is decided.
TYPE_REMINDER = "leaderboard-without-type"


class GateItem(str):
    """One thing missing before an evaluation may be marked decided: its text (what the API
    returns) and the place that fixes it (`place`: "type", "shortlist", "decision", "questions"
    with `candidate` and `question` for an answer, or "reminder" with the reminder's `key` and
    `fix_url`), which pages turn into a link; `group` is the heading pages list it under."""

    def __new__(cls, text: str, place: str, **where):
        item = super().__new__(cls, text)
        item.place, item.where = place, where
        item.group, item.note = GATE_GROUPS[place], GATE_NOTES.get(place, "")
        return item


def type_gate_item(evaluation: Evaluation) -> GateItem | None:
    """The method's second step: the type that carries the main responsibility, with its
    reason, is decided before the tools are."""
    if evaluation.main_type_id is not None and evaluation.main_type_reason.strip():
        return None
    if evaluation.main_type_id is None:
        text = _(
            "No type has been decided to carry the main responsibility: decide the type "
            "(scenario → type → tools), then choose the tools."
        )
    else:
        text = _("The type decision gives no reason: say why this type carries it.")
    return GateItem(text, "type")


def reminder_gate_items(data, user, *, leave_out=()) -> list[GateItem]:
    """Each open high reminder the owner has not acknowledged, as `user` may see it; those
    blind scoring hides from them are counted, not named (evaluations.acknowledgements)."""
    found = gate_reminders(data, user, leave_out=leave_out)
    items = [
        GateItem(
            _("High reminder: %(title)s") % {"title": r.title},
            "reminder",
            key=r.key,
            fix_url=r.fix_url,
        )
        for r in found.unacknowledged
    ]
    if found.hidden_open:
        text = _(
            "%(n)d more open high reminder(s) rest on scores hidden from you until you submit "
            "your own; the owner sees and acknowledges them."
        ) % {"n": found.hidden_open}
        items.append(GateItem(text, "reminder"))
    return items


def decided_gate_missing(evaluation: Evaluation, user=None) -> list[GateItem]:
    """Everything that keeps this evaluation from being marked decided, as `user` may see it
    (None: everything); empty when it may be."""
    data = evaluation_data(evaluation)
    missing = []
    type_item = type_gate_item(data.evaluation)
    if type_item is not None:
        missing.append(type_item)
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
    leave_out = (TYPE_REMINDER,) if type_item is not None else ()
    missing.extend(reminder_gate_items(data, user, leave_out=leave_out))
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
