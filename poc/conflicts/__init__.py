"""Declared conflicts of interest: a scoring member declares, per candidate, any relationship
with its vendor(s) before scoring it, and the owner decides on a declared conflict.

models.py holds the declaration (registered under the `poc` app through poc/models.py),
services.py the rule, reads and writes, forms.py and views.py the page under the POC tab, and
api.py the API. The rule, reads and writes are named here too, as `poc.conflicts.<name>`.

Django imports this package while it loads the models (poc/models.py imports the declaration),
so what is named here must not need the app registry ready.
"""

from .services import (
    CONFLICT,
    UNDECLARED,
    allowance_grant,
    allowance_revoke,
    block_message,
    block_of,
    declaration_get,
    declaration_save,
    declarations,
    declarations_save,
    history_source,
    mark_candidates,
    my_declarations,
    require_clear,
    scoring_block,
    shortlisted,
    vendors_of,
)

__all__ = [
    "CONFLICT",
    "UNDECLARED",
    "allowance_grant",
    "allowance_revoke",
    "block_message",
    "block_of",
    "declaration_get",
    "declaration_save",
    "declarations",
    "declarations_save",
    "history_source",
    "mark_candidates",
    "my_declarations",
    "require_clear",
    "scoring_block",
    "shortlisted",
    "vendors_of",
]
