"""Catalog permissions: every signed-in user reads, only admins write."""

import rules

from common.roles import is_admin, is_signed_in

MODELS = (
    "solutiontype",
    "scenario",
    "capabilitygroup",
    "capability",
    "source",
    "solution",
    "capabilityclaim",
    "shortlistrule",
)

rules.add_perm("catalog", is_signed_in)
for model in MODELS:
    rules.add_perm(f"catalog.view_{model}", is_signed_in)
    for action in ("add", "change", "delete"):
        rules.add_perm(f"catalog.{action}_{model}", is_admin)
