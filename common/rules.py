"""Model permissions for users and roles: only admins manage them (Django admin)."""

import rules

from .roles import is_admin

for model in ("user", "group"):
    for action in ("view", "add", "change", "delete"):
        rules.add_perm(f"auth.{action}_{model}", is_admin)
