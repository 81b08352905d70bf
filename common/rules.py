"""Model permissions for users and roles, and sign-in lockouts (django-axes): only admins
manage them (Django admin); deleting a lockout unlocks the account."""

import rules

from .roles import is_admin

for model in ("user", "group"):
    for action in ("view", "add", "change", "delete"):
        rules.add_perm(f"auth.{action}_{model}", is_admin)

rules.add_perm("axes", is_admin)
for model in ("accessattempt", "accesslog", "accessfailurelog"):
    for action in ("view", "delete"):
        rules.add_perm(f"axes.{action}_{model}", is_admin)
