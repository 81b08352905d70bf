"""The owner's acknowledgements of open high reminders: with one, the decided gate lets the
evaluation be marked decided while that reminder is open, and the report prints it as "decided
despite". Which reminders are open, and what a person is shown of them, is read in
evaluations.acknowledgements."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from common.concurrency import bump, lock_and_check, lock_or_new
from common.exceptions import Forbidden
from common.history import save_as

from ..acknowledgements import open_high_reminder
from ..models import Evaluation, ReminderAcknowledgement
from .checks import clean_text, evaluation_require_editable

PERM = "evaluations.acknowledge_reminder"


def _require_owner(user, evaluation: Evaluation) -> None:
    evaluation_require_editable(user, evaluation)
    if not user.has_perm(PERM, evaluation):
        raise Forbidden(_("Only the evaluation's owner acknowledges a high reminder."))


@transaction.atomic
def reminder_acknowledge(
    *, user, evaluation: Evaluation, key: str, reason: str, expected_version: int | None
) -> ReminderAcknowledgement:
    """The owner accepts, with a reason, that the evaluation may be decided while the open high
    reminder `key` stays open (or changes the reason of an acknowledgement already given)."""
    _require_owner(user, evaluation)
    key = (key or "").strip()
    reminder = open_high_reminder(evaluation, key)
    if reminder is None:
        raise ValidationError(
            {
                "key": _(
                    "“%(key)s” is not an open high reminder of this evaluation: only those are "
                    "acknowledged. Reload the page to see the reminders as they are now."
                )
                % {"key": key}
            }
        )
    reason = clean_text(reason, (ReminderAcknowledgement, "reason", "reason"))
    if not reason:
        raise ValidationError(
            {"reason": _("Say why the evaluation may be decided while this reminder is open.")}
        )
    ack = lock_or_new(
        ReminderAcknowledgement, expected_version=expected_version, evaluation=evaluation, key=key
    )
    bump(ack)
    ack.title = str(reminder.title)[:500]
    ack.reason = reason
    ack.acknowledged_by = user
    ack.full_clean()
    ack._change_reason = reason
    save_as(ack, user)
    return ack


@transaction.atomic
def reminder_acknowledgement_withdraw(
    *, user, evaluation: Evaluation, key: str, expected_version: int | None = None
) -> None:
    """The owner takes an acknowledgement back: the gate asks about that reminder again."""
    _require_owner(user, evaluation)
    pk = (
        ReminderAcknowledgement.objects.filter(evaluation=evaluation, key=(key or "").strip())
        .values_list("pk", flat=True)
        .first()
    )
    if pk is None:
        raise ValidationError({"key": _("This reminder is not acknowledged.")})
    ack = lock_and_check(ReminderAcknowledgement, pk=pk, expected_version=expected_version)
    ack._history_user = user
    ack.delete()
