"""The shared parties and area library: everyone reads, admins edit (Django admin)."""

import rules

from common.roles import is_admin

for model in ("party", "areagroup", "area"):
    rules.add_perm(f"responsibility.view_{model}", rules.is_authenticated)
    for action in ("add", "change", "delete"):
        rules.add_perm(f"responsibility.{action}_{model}", is_admin)
rules.add_perm("responsibility", rules.is_authenticated)
