"""A report's parts built from responsibility's data: each shortlisted candidate's
responsibility matrix with its checks, and the cost of ownership (evaluations.extensions
.ReportPart; responsibility/apps.py registers PARTS). Both read the report's matrices, read once
for the report (`context.matrices`)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from common.charts import cumulative_cost_chart
from common.numbers import amount_units
from common.report_values import decimal_text
from evaluations.extensions import ReportPart
from evaluations.models import Evaluation

from . import checks
from .selectors import evaluation_costs


def matrices_part(context) -> dict:
    """Every shortlisted candidate's matrix, its parties' letters per area and the checks."""
    return _matrices(context.parties, context.matrices)


def costs_part(context) -> dict:
    return _costs(context.evaluation, context.matrices)


def _check_labels() -> dict[str, str]:
    return {
        checks.OK: _("OK"),
        checks.GAP: _("No one accountable"),
        checks.CONFLICT: _("Two or more accountable"),
        checks.NO_RESPONSIBLE: _("No one responsible"),
        checks.UNANSWERED: _("Unanswered"),
    }


def _matrices(parties: list, matrices: list) -> dict:
    labels = _check_labels()
    out = []
    for m in matrices:
        rows = [
            {
                "group": r.area.group.name,
                "area": r.area.name,
                "governance": r.area.governance,
                "letters": [r.letters.get(p.pk, "") for p in parties],
                "status": r.check.status,
                "status_label": labels[r.check.status],
                "note": r.row.note if r.row else "",
                "fte": decimal_text(r.fte),
            }
            for r in m.rows
        ]

        def names(status: str, rows=m.rows) -> list[str]:
            return [r.area.name for r in rows if r.check.status == status]

        out.append(
            {
                "slug": m.candidate.solution.slug,
                "name": m.candidate.name,
                "type": m.candidate.solution.solution_type.name,
                "started": m.started,
                "parties": [p.name for p in parties],
                "rows": rows,
                "gaps": names(checks.GAP),
                "conflicts": names(checks.CONFLICT),
                "no_responsible": names(checks.NO_RESPONSIBLE),
                "unanswered": names(checks.UNANSWERED),
                "governance_without_internal_owner": [
                    a.name for a in m.governance_without_internal_owner
                ],
                "coverage": decimal_text(m.result.coverage),
                "complete": m.result.complete,
                "fte_total": decimal_text(m.fte_total),
            }
        )
    return {"parties": [p.name for p in parties], "candidates": out}


def _costs(evaluation: Evaluation, matrices: list) -> dict:
    """Costs of the candidates someone entered cost inputs for. Those without are listed by
    name under `missing` (and named under the chart) instead of printed as 0.00 totals;
    `entered` is false until at least one candidate has inputs."""
    settings, rows = evaluation_costs(evaluation, matrices=matrices)
    entered = any(not r.missing for r in rows)
    out = {
        "entered": entered,
        "years": settings.years,
        "currency": settings.currency,
        "fte_cost_per_year": decimal_text(settings.fte_cost_per_year),
        "candidates": [],
        "missing": rows.missing_names,
        "chart_svg": "",
    }
    if not entered:
        return out
    for r in rows:
        if r.missing:
            continue
        d = r.data
        out["candidates"].append(
            {
                "slug": r.candidate.solution.slug,
                "name": r.candidate.name,
                "priced": d.has_price,
                "inputs": {
                    "licence_per_year": decimal_text(d.licence_per_year),
                    "vendor_services_per_year": decimal_text(d.vendor_services_per_year),
                    "gpu_count": d.gpu_count,
                    "gpu_hours_per_year": decimal_text(d.gpu_hours_per_year),
                    "gpu_price_per_hour": decimal_text(d.gpu_price_per_hour),
                    "utilisation": decimal_text(d.utilisation),
                    "hardware_one_off": decimal_text(d.hardware_one_off),
                    "hardware_per_year": decimal_text(d.hardware_per_year),
                    "one_off": decimal_text(d.one_off),
                    "internal_fte": decimal_text(r.fte),
                },
                "years": [
                    {
                        "year": y.year,
                        "licences": decimal_text(y.licences),
                        "services": decimal_text(y.services),
                        "cloud": decimal_text(y.cloud),
                        "hardware": decimal_text(y.hardware),
                        "one_off": decimal_text(y.one_off),
                        "people": decimal_text(y.people),
                        "total": decimal_text(y.total),
                        "cumulative": decimal_text(y.cumulative),
                    }
                    for y in r.result.years
                ],
                "total": decimal_text(r.result.total),
                "people_total": decimal_text(r.result.people_total),
                "people_share": decimal_text(r.result.people_share),
            }
        )
    note = ""
    if rows.missing_names:
        note = _("Not in the chart, because their cost inputs are missing: %(names)s.") % {
            "names": ", ".join(rows.missing_names)
        }
    out["chart_svg"] = cumulative_cost_chart(
        [(r.candidate.name, r.result.cumulative) for r in rows],
        title=_("Cumulative cost of ownership"),
        year_label=_("Year %(n)s"),
        units=amount_units(),
        currency=settings.currency,
        note=note,
    )
    return out


PARTS = (
    ReportPart("matrices", matrices_part),
    ReportPart("costs", costs_part),
)
