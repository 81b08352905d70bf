"""The four roles of SPEC §2 as auth groups, and the rules predicates built on them.

Permissions are declared once here (with django-rules) and used by views, the API and admin.
"""

import rules
from django.utils.translation import gettext_lazy as _

ADMIN = "admin"
TECH_LEAD = "tech_lead"
REVIEWER = "reviewer"
PROCUREMENT = "procurement"

ROLES = {
    ADMIN: _("Administrator"),
    TECH_LEAD: _("Tech lead"),
    REVIEWER: _("Reviewer"),
    PROCUREMENT: _("Procurement"),
}

ROLE_DESCRIPTIONS = {
    ADMIN: _("Edits the catalog, question and test-case libraries, rules, users and roles."),
    TECH_LEAD: _(
        "Creates evaluations, answers context and the five questions, fills responsibility "
        "matrices and POC scorecards, invites reviewers."
    ),
    REVIEWER: _("Scores POC cases for the evaluations they are assigned to, attaches evidence."),
    PROCUREMENT: _(
        "Reads the evaluations shared with them and exports reports; cannot change scores."
    ),
}


@rules.predicate
def is_admin(user) -> bool:
    """Superusers and members of the admin group administer Shortlist."""
    if not user or not user.is_authenticated:
        return False
    return ADMIN in user_roles(user)


is_tech_lead = rules.is_group_member(TECH_LEAD)
is_reviewer = rules.is_group_member(REVIEWER)
is_procurement = rules.is_group_member(PROCUREMENT)
is_signed_in = rules.is_authenticated


def user_roles(user) -> list[str]:
    """The role keys a user holds, in the order of ROLES (one query per request and user)."""
    if not user.is_authenticated:
        return []
    cached = getattr(user, "_shortlist_roles", None)
    if cached is None:
        names = set(user.groups.values_list("name", flat=True))
        if user.is_superuser:
            names.add(ADMIN)
        cached = [r for r in ROLES if r in names]
        user._shortlist_roles = cached
    return cached
