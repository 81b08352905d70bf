"""Company sign-in against LDAP or Active Directory (django-auth-ldap), off unless
LDAP_SERVER_URI is set.

django-auth-ldap binds, searches the user and reads their groups; this module adds what the
app needs on top:

* the directory groups named by LDAP_<ROLE>_GROUP decide the user's roles at every sign-in
  (roles the directory no longer grants are taken away), and a directory user in none of them is
  refused with a message saying so;
* a local account (one with a usable password: the break-glass admin) never signs in through
  the directory, so a directory entry with the same name cannot take it over;
* when the directory cannot be reached, the sign-in form says so, and local accounts still sign
  in (ModelBackend comes after this backend).
"""

from __future__ import annotations

import ldap
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.dispatch import receiver
from django.utils.translation import gettext_lazy as _
from django_auth_ldap.backend import LDAPBackend, ldap_error

from .roles import ADMIN, ROLES

# Why the directory refused a sign-in, kept on the request for the sign-in form's message.
UNREACHABLE = "unreachable"
NO_ROLE = "no-role"
REQUEST_FLAG = "_directory_refusal"


def granted_roles(held, role_groups: dict[str, str], *, fold=str) -> list[str]:
    """The app's roles, in ROLES order, whose configured group (role → group, empty for none)
    is among the groups `held`; `fold` normalises both sides before they are compared."""
    held = {fold(group) for group in held}
    return [role for role in ROLES if role_groups.get(role) and fold(role_groups[role]) in held]


def mapped_roles(group_dns) -> list[str]:
    """The app's roles the directory grants to a member of `group_dns` (DNs compare without
    case)."""
    return granted_roles(group_dns, settings.LDAP_ROLE_GROUPS, fold=str.lower)


def _flag(request, reason: str) -> None:
    if request is not None:
        setattr(request, REQUEST_FLAG, reason)


class DirectoryBackend(LDAPBackend):
    """django-auth-ldap's backend with the app's role mapping and the rules above."""

    def get_or_build_user(self, username, ldap_user):
        user, built = super().get_or_build_user(username, ldap_user)
        if not built and user.has_usable_password():
            raise ldap_user.AuthenticationFailed("a local account: not signed in by the directory")
        return user, built

    def authenticate_ldap_user(self, ldap_user, password):
        user = super().authenticate_ldap_user(ldap_user, password)
        if user is None:
            return None
        roles = mapped_roles(ldap_user.group_dns)
        with transaction.atomic():
            apply_roles(user, roles)
        if not roles:
            _flag(ldap_user._request, NO_ROLE)
            return None
        return user


def apply_roles(user, roles: list[str]) -> None:
    """Give `user` exactly `roles` among the app's roles (other groups are left alone); admins
    also get Django admin access, as accounts created in the app do."""
    keep = user.groups.exclude(name__in=list(ROLES))
    wanted = [Group.objects.get_or_create(name=role)[0] for role in roles]
    user.groups.set([*keep, *wanted])
    staff = ADMIN in roles
    if user.is_staff != staff:
        user.is_staff = staff
        user.save(update_fields=["is_staff"])
    user.__dict__.pop("_shortlist_roles", None)


@receiver(ldap_error)
def note_unreachable_directory(sender, context, user, request, exception, **kwargs):
    """A directory that does not answer is told apart from a wrong password."""
    if isinstance(
        exception, ldap.SERVER_DOWN | ldap.UNAVAILABLE | ldap.TIMEOUT | ldap.CONNECT_ERROR
    ):
        _flag(request, UNREACHABLE)


class SignInForm(AuthenticationForm):
    """Django's sign-in form, saying why the company directory refused when it did: it could
    not be reached (local accounts still sign in), or it grants no role in Shortlist."""

    def clean(self):
        try:
            return super().clean()
        except ValidationError:
            reason = getattr(self.request, REQUEST_FLAG, None)
            if reason == UNREACHABLE:
                raise ValidationError(
                    _(
                        "The company directory cannot be reached, so directory accounts cannot "
                        "sign in right now. Try again in a few minutes; if it persists, tell "
                        "your administrator. Local accounts still sign in."
                    ),
                    code="directory_unreachable",
                ) from None
            if reason == NO_ROLE:
                raise ValidationError(
                    _(
                        "Your directory account signed in, but it is in none of the directory "
                        "groups that give a role in Shortlist. Ask your administrator to add "
                        "you to one."
                    ),
                    code="directory_no_role",
                ) from None
            raise
