"""Moving an evaluation along its status workflow: the decided gate, reopening with a reason."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from common.concurrency import bump
from common.exceptions import Conflict
from common.history import save_as

from .. import extensions
from ..models import TRANSITIONS, Evaluation, Status, StatusChange
from .checks import clean_text, require_permission
from .decision import decided_gate_missing


class GateRefused(Conflict):
    def __init__(self, missing: list[str], message: str | None = None):
        super().__init__(
            message
            or _("The evaluation cannot be marked decided yet. Missing: %(n)d item(s).")
            % {"n": len(missing)}
        )
        self.missing = missing


def _decided_gate(user, evaluation: Evaluation, reason: str) -> None:
    """What must hold before an evaluation is decided: evaluations' own list
    (`decided_gate_missing`), then each higher app's check (evaluations.extensions), which
    refuses with that list and its own items or lets the decision through."""
    missing = decided_gate_missing(evaluation, user)
    for check in extensions.decided_gate_checks():
        check(user, evaluation, reason, missing)
    if missing:
        raise GateRefused(missing)


def decided_gate_preview(user, evaluation: Evaluation) -> list:
    """What the decided gate would list for `user` now (empty: it would let the evaluation
    through without a reason), without moving anything."""
    try:
        _decided_gate(user, evaluation, "")
    except GateRefused as refused:
        return list(refused.missing)
    return []


@transaction.atomic
def evaluation_transition(
    *, user, evaluation: Evaluation, to_status: str, reason: str = ""
) -> Evaluation:
    """Move the status along the workflow. Leaving decided/archived is a reopen: owner only,
    with a reason, which is recorded. Every contributed status hook runs after the change is
    saved, in the same transaction (sign-off voids the approvals of a reopened decision)."""
    if to_status not in Status.values:
        raise ValidationError({"status": _("Unknown status '%(s)s'.") % {"s": to_status}})
    evaluation = Evaluation.objects.select_for_update().get(pk=evaluation.pk)
    current = Status(evaluation.status)
    target = Status(to_status)
    if target not in TRANSITIONS[current]:
        allowed = ", ".join(str(s.label) for s in TRANSITIONS[current]) or "—"
        raise Conflict(
            _("An evaluation cannot go from %(a)s to %(b)s. Allowed next: %(allowed)s.")
            % {"a": current.label, "b": target.label, "allowed": allowed}
        )
    reason = clean_text(reason, (StatusChange, "reason", "reason"))
    reopening = evaluation.is_sealed and target not in (Status.DECIDED, Status.ARCHIVED)
    if reopening:
        require_permission(user, "evaluations.reopen_evaluation", evaluation)
        if not reason:
            raise ValidationError({"reason": _("Give the reason for reopening.")})
    else:
        require_permission(user, "evaluations.change_status", evaluation)
    if target == Status.DECIDED:
        _decided_gate(user, evaluation, reason)
    StatusChange.objects.create(
        evaluation=evaluation,
        from_status=current,
        to_status=target,
        reason=reason,
        changed_by=user,
    )
    evaluation.status = target
    evaluation._change_reason = reason  # shown with this change on the History tab
    bump(evaluation)
    save_as(evaluation, user)
    for hook in extensions.status_hooks():
        hook(user, evaluation, current, target, reason)
    return evaluation
