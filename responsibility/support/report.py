"""The report's support terms (evaluations.extensions.ReportPart "support"): the shortlisted
candidates' terms side by side, in the report's language, printed in the matrices section."""

from __future__ import annotations

from evaluations.extensions import ReportPart

from .rows import comparison_values
from .selectors import comparison


def support_part(context) -> dict:
    values = comparison_values(comparison(context.evaluation))
    for c in values["candidates"]:
        c.pop("id")
    for term in values["terms"]:
        for value in term["values"]:
            if value is not None:
                value.pop("version")
    values["recorded"] = any(v for t in values["terms"] for v in t["values"])
    return values


PARTS = (ReportPart("support", support_part),)
