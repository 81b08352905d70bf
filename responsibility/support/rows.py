"""The comparison as plain values (the API, the xlsx sheet and the report print the same
thing): per term its label, unit and whether better is marked, and per candidate the value,
its source and whether it is the best of the row."""

from __future__ import annotations

from common.placeholders import is_placeholder_url
from common.report_values import decimal_text

from .selectors import Comparison


def cell_values(cell) -> dict | None:
    row = cell.row
    if row is None:
        return None
    url = row.source_url
    return {
        "amount": decimal_text(row.amount) if row.amount is not None else None,
        "text": row.text,
        "source_kind": row.source_kind,
        "source_kind_label": str(row.get_source_kind_display()),
        "source": row.source,
        "source_url": url if url and not is_placeholder_url(url) else "",
        "best": cell.best,
        "version": row.version,
    }


def comparison_values(table: Comparison) -> dict:
    return {
        "candidates": [
            {
                "id": c.pk,
                "name": c.name,
                "slug": c.solution.slug,
                "missing": [t.key for t in table.missing(c)],
            }
            for c in table.candidates
        ],
        "terms": [
            {
                "key": line.term.key,
                "label": str(line.term.label),
                "unit": line.term.unit,
                "unit_label": line.term.unit_name,
                "better": line.term.better,
                "values": [cell_values(cell) for cell in line.cells],
            }
            for line in table.lines
        ],
    }
