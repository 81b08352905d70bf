"""What every write checks first: the user's permission (saying so when the evaluation is
sealed), the evaluation locked in its saved status, and text trimmed to its field's limit."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from common.exceptions import Conflict, Forbidden

from ..locking import evaluation_lock_for
from ..models import Evaluation
from ..rules import is_editor


def require_permission(user, perm: str, evaluation: Evaluation) -> None:
    """Refuse unless the user holds `perm` on the evaluation: a Conflict that names the sealed
    status when that is what keeps an editor from editing, Forbidden otherwise."""
    if not user.has_perm(perm, evaluation):
        editing = perm == "evaluations.change_evaluation"
        if editing and evaluation.is_sealed and is_editor(user, evaluation):
            raise Conflict(
                _(
                    "This evaluation is %(status)s and sealed: it is read-only until its owner "
                    "reopens it with a reason."
                )
                % {"status": evaluation.get_status_display()}
            )
        raise Forbidden(_("Your role in this evaluation does not allow this."))


def evaluation_require_editable(user, evaluation: Evaluation) -> None:
    """Lock the evaluation row and check the user may edit it in its *saved* status.

    Locking serialises every write with status changes, so nothing slips in while the
    evaluation is being marked decided.
    """
    evaluation_lock_for(user, evaluation, "evaluations.change_evaluation")


def clean_text(value: str | None, limit: tuple[type, str, str] | None = None) -> str:
    """Trimmed text. With ``(model, field, key)``, checked against that model field's validators
    (its maximum length), for text that is not saved through ``full_clean``; errors go to key."""
    text = (value or "").strip()
    if limit:
        model, field, key = limit
        try:
            model._meta.get_field(field).run_validators(text)
        except ValidationError as error:
            raise ValidationError({key: error.messages}) from None
    return text
