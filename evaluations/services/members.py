"""Adding, re-roling and removing an evaluation's members (while it is open; one owner stays)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from common.exceptions import Conflict
from common.history import save_as

from ..locking import lock_status
from ..models import Evaluation, MemberRole, Membership
from .checks import require_permission

User = get_user_model()


def _require_members_open(user, evaluation: Evaluation) -> None:
    """Members change only while the evaluation is open: the people a sealed decision names as
    its members (and whom its approvals and report went to) stay as they were."""
    require_permission(user, "evaluations.manage_members", evaluation)
    lock_status(evaluation)
    if evaluation.is_sealed:
        raise Conflict(
            _(
                "This evaluation is %(status)s and sealed: its members cannot change until its "
                "owner reopens it with a reason."
            )
            % {"status": evaluation.get_status_display()}
        )


@transaction.atomic
def member_add(*, user, evaluation: Evaluation, member: User, role: str) -> Membership:
    _require_members_open(user, evaluation)
    if role not in MemberRole.values:
        raise ValidationError({"role": _("Unknown role '%(role)s'.") % {"role": role}})
    if not member.is_active:
        raise ValidationError({"user": _("This account is disabled.")})
    if evaluation.memberships.filter(user=member).exists():
        raise ValidationError(
            {"user": _("%(name)s is already a member.") % {"name": member.username}}
        )
    membership = Membership(evaluation=evaluation, user=member, role=role)
    save_as(membership, user)
    return membership


def _ensure_an_owner_remains(evaluation: Evaluation, leaving: Membership) -> None:
    # Lock the other owners too: two owners demoting each other at once must not both pass.
    others = (
        evaluation.memberships.select_for_update()
        .filter(role=MemberRole.OWNER)
        .exclude(pk=leaving.pk)
    )
    if leaving.role == MemberRole.OWNER and not others.exists():
        raise Conflict(_("An evaluation needs at least one owner; make someone else owner first."))


@transaction.atomic
def member_change_role(*, user, membership: Membership, role: str) -> Membership:
    evaluation = membership.evaluation
    _require_members_open(user, evaluation)
    if role not in MemberRole.values:
        raise ValidationError({"role": _("Unknown role '%(role)s'.") % {"role": role}})
    membership = Membership.objects.select_for_update().get(pk=membership.pk)
    if role != MemberRole.OWNER:
        _ensure_an_owner_remains(evaluation, membership)
    membership.role = role
    save_as(membership, user)
    return membership


@transaction.atomic
def member_remove(*, user, membership: Membership) -> None:
    evaluation = membership.evaluation
    _require_members_open(user, evaluation)
    _ensure_an_owner_remains(evaluation, membership)
    membership._history_user = user
    membership.delete()
