"""User and role management shared by the operator commands and tests."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from .roles import ADMIN, ROLES

User = get_user_model()


def generate_password(**attributes: str) -> str:
    """A random password that passes the password validators for a user with these attributes
    (username, names, e-mail): a random one can, rarely, resemble a short username."""
    user = User(**attributes)
    for _attempt in range(20):
        password = secrets.token_urlsafe(12)
        try:
            validate_password(password, user)
        except ValidationError:
            continue
        return password
    raise RuntimeError("Could not generate a password that passes the password validators.")


@transaction.atomic
def user_create(
    *,
    username: str,
    roles: list[str],
    password: str,
    email: str = "",
    first_name: str = "",
    last_name: str = "",
):
    """Create a user holding the given roles. Admins also get Django admin access."""
    unknown = [r for r in roles if r not in ROLES]
    if unknown:
        raise ValidationError(
            _("Unknown role(s): %(bad)s. Choose from: %(good)s.")
            % {"bad": ", ".join(unknown), "good": ", ".join(ROLES)}
        )
    if not roles:
        raise ValidationError(_("Give the user at least one role."))
    if User.objects.filter(username=username).exists():
        raise ValidationError(_("A user named '%(name)s' already exists.") % {"name": username})
    user = User(
        username=username,
        email=email,
        first_name=first_name,
        last_name=last_name,
        is_staff=ADMIN in roles,
    )
    validate_password(password, user)
    user.set_password(password)
    user.full_clean()
    user.save()
    # get_or_create: the groups come from a migration, but a flushed database has none.
    user.groups.set([Group.objects.get_or_create(name=role)[0] for role in roles])
    return user
