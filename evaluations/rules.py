"""Who may do what with an evaluation. Declared once; pages, API and exports all ask these.

Non-members never reach these checks: selectors only return evaluations the user belongs to,
so everything else answers 404.
"""

import rules

from common.roles import is_admin, is_tech_lead

from .models import MemberRole, Status


def member_role(user, evaluation) -> str | None:
    """The user's role in this evaluation (one query per evaluation object, then cached; none
    when its memberships are prefetched, as on the list pages, whose reminders ask for it)."""
    if evaluation is None or not user.is_authenticated:
        return None
    cache = evaluation.__dict__.setdefault("_member_roles", {})
    if user.pk not in cache:
        prefetched = getattr(evaluation, "_prefetched_objects_cache", {}).get("memberships")
        if prefetched is not None:
            cache[user.pk] = next((m.role for m in prefetched if m.user_id == user.pk), None)
        else:
            cache[user.pk] = (
                evaluation.memberships.filter(user=user).values_list("role", flat=True).first()
            )
    return cache[user.pk]


def remember_member_role(user, evaluation, role: str | None) -> None:
    """Record the user's role in this evaluation, read along with other rows (a subquery
    annotation), so that the predicates below need no query of their own for it."""
    evaluation.__dict__.setdefault("_member_roles", {})[user.pk] = role


@rules.predicate
def is_member(user, evaluation) -> bool:
    return member_role(user, evaluation) is not None


@rules.predicate
def is_owner(user, evaluation) -> bool:
    return member_role(user, evaluation) == MemberRole.OWNER


@rules.predicate
def is_editor(user, evaluation) -> bool:
    return member_role(user, evaluation) in (MemberRole.OWNER, MemberRole.EDITOR)


@rules.predicate
def is_open(user, evaluation) -> bool:
    return evaluation is not None and not evaluation.is_sealed


@rules.predicate
def is_decided(user, evaluation) -> bool:
    return evaluation is not None and evaluation.status == Status.DECIDED


can_create = is_tech_lead | is_admin

rules.add_perm("evaluations.add_evaluation", can_create)
rules.add_perm("evaluations.view_evaluation", is_member)
rules.add_perm("evaluations.change_evaluation", is_editor & is_open)
rules.add_perm("evaluations.manage_members", is_owner)
rules.add_perm("evaluations.change_status", is_editor)
rules.add_perm("evaluations.reopen_evaluation", is_owner)
rules.add_perm("evaluations.waive_constraint", is_owner & is_open)
# Accepting, with a reason, that the evaluation is decided while a high reminder is open.
rules.add_perm("evaluations.acknowledge_reminder", is_owner & is_open)

# The question libraries are catalog-like: everyone reads, admins edit (Django admin).
for model in ("contextquestion", "fivequestion", "constraint"):
    rules.add_perm(f"evaluations.view_{model}", rules.is_authenticated)
    for action in ("add", "change", "delete"):
        rules.add_perm(f"evaluations.{action}_{model}", is_admin)
rules.add_perm("evaluations", rules.is_authenticated)
