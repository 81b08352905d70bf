"""common's demo step: the demo users (data.yaml), created if missing, before any other step."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from common.roles import user_roles
from common.services import generate_password, user_create

from . import DemoFiles, DemoState

FILES = DemoFiles(Path(__file__).resolve().parent)


def load(state: DemoState) -> None:
    """The demo users by username, created if missing (state.created names those created)."""
    User = get_user_model()
    for person in FILES.data["users"]:
        username, role = person["username"], person["role"]
        user = User.objects.filter(username=username).first()
        if user is not None and role not in user_roles(user):
            # Never widen an existing account's rights behind an operator's back.
            raise CommandError(
                f"A user named {username!r} exists without the {role} role the demo gives "
                f"it. Add the role (python manage.py shell, or the admin) or rename the user."
            )
        if user is None:
            user = user_create(
                username=username,
                roles=[role],
                password=generate_password(
                    username=username,
                    first_name=person["first_name"],
                    last_name=person["last_name"],
                ),
                first_name=person["first_name"],
                last_name=person["last_name"],
            )
            state.created.append(username)
        state.users[username] = user
