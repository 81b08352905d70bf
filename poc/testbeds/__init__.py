"""Test beds: where each candidate's POC ran (versions under test, accelerators, scale, dates),
and the rule that the candidates' beds should match.

models.py holds the test bed (registered under the `poc` app through poc/models.py),
services.py the rule and the reads and writes, reminders.py the "test beds differ" reminder,
forms.py and views.py the page under the POC tab, and api.py the API. The rule, reads and
writes are named here too, as `poc.testbeds.<name>`.

Django imports this package while it loads the models (poc/models.py imports the test bed), so
what is named here must not need the app registry ready (the reminder does: it stays in
reminders.py).
"""

from .services import (
    TEXT_FIELDS,
    Bed,
    Mismatch,
    accelerator_key,
    bed_mismatch,
    bed_of,
    bed_save,
    beds_of,
)

__all__ = [
    "TEXT_FIELDS",
    "Bed",
    "Mismatch",
    "accelerator_key",
    "bed_mismatch",
    "bed_of",
    "bed_save",
    "beds_of",
]
