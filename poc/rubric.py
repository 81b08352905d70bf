"""How a case's measured values land on the rubric, said in words (pages, API and report).

The maths is poc.scoring.measured_bands; this module only reads a plan case's metric and
formats the bands: "≤ 71.25 ms → 5; ≤ 85.5 ms → 4; meets 95 ms → 3; ≤ 104.5 ms → 2;
≤ 118.75 ms → 1; worse → 0"."""

from __future__ import annotations

from decimal import Decimal

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from . import scoring
from .models import Direction


def number(value: Decimal) -> str:
    """A decimal without trailing zeros or an exponent: 100, 85.5, 71.25."""
    text = format(value.normalize(), "f")
    return text


def case_bands(case) -> scoring.Bands | None:
    """The bands of a case with a metric (direction and threshold), else None."""
    if not case.has_metric or case.metric_direction not in Direction.values:
        return None
    return scoring.measured_bands(
        case.metric_direction, case.metric_threshold, case.metric_good, case.metric_excellent
    )


def _with_unit(value: Decimal, unit: str) -> str:
    return f"{number(value)} {unit}".strip()


def bands_rows(case) -> list[dict]:
    """Best band first: {"score", "limit" (None for the last band, "worse"), "op" (≤ or ≥),
    "meets" (True for the threshold's 3)}."""
    bands = case_bands(case)
    if bands is None:
        return []
    op = "≤" if bands.direction == scoring.LOWER else "≥"
    rows = [
        {"score": score, "limit": limit, "op": op, "meets": score == scoring.MEETS}
        for limit, score in bands.steps
    ]
    rows.append({"score": scoring.ZERO, "limit": None, "op": "", "meets": False})
    return rows


def bands_text(case) -> str:
    """The bands in one line of the active language; empty for a case without a metric."""
    parts = []
    unit = case.metric_unit
    for row in bands_rows(case):
        values = {"op": row["op"], "score": row["score"]}
        if row["limit"] is None:
            parts.append(_("worse → %(score)s") % values)
        elif row["meets"]:
            values["value"] = _with_unit(row["limit"], unit)
            parts.append(_("meets %(value)s → %(score)s") % values)
        else:
            values["value"] = _with_unit(row["limit"], unit)
            parts.append(f"{values['op']} {values['value']} → {values['score']}")
    return pgettext("separator between rubric bands", "; ").join(parts)


def measured_text(case, measured: Decimal | None) -> str:
    """“90 ms → 2”: a measured value and the score it maps to; empty when there is none."""
    bands = case_bands(case)
    if bands is None or measured is None:
        return ""
    return _("%(value)s → %(score)s") % {
        "value": _with_unit(measured, case.metric_unit),
        "score": bands.score(measured),
    }
