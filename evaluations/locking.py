"""Where every write to an evaluation's data starts, whichever app makes it: lock the evaluation
row (so the write queues behind a status change, and sealing never lets one slip in), read its
saved status, and check the writer's permission in that status."""

from __future__ import annotations

from django.utils.translation import gettext as _

from common.exceptions import Conflict, Forbidden

from .models import Evaluation, MemberRole
from .rules import member_role

# Members whose role writes while the evaluation is open: they are told it is sealed (409);
# anyone else, that their role does not allow it (403).
WRITING_ROLES = (MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER)


def lock_status(evaluation: Evaluation) -> None:
    """Lock the evaluation row and read its saved status into `evaluation`."""
    saved = Evaluation.objects.select_for_update().values_list("status", flat=True)
    evaluation.status = saved.get(pk=evaluation.pk)


def evaluation_lock_for(user, evaluation: Evaluation, perm: str) -> None:
    """Lock the evaluation and check that `user` has `perm` on it as saved: Conflict (409) when
    it is sealed for a member who writes while it is open, Forbidden (403) otherwise."""
    lock_status(evaluation)
    if user.has_perm(perm, evaluation):
        return
    if evaluation.is_sealed and member_role(user, evaluation) in WRITING_ROLES:
        raise Conflict(
            _(
                "This evaluation is %(status)s and sealed: it is read-only until its owner "
                "reopens it with a reason."
            )
            % {"status": evaluation.get_status_display()}
        )
    raise Forbidden(_("Your role in this evaluation does not allow this."))
