"""The support terms as a sheet of the evaluation's .xlsx workbook (contributed through
evaluations.extensions): a row per term, a column per shortlisted candidate with the value, a
column with its source, and "★" beside the best value of a row where better is clear."""

from __future__ import annotations

from django.utils.translation import gettext as _
from openpyxl.styles import Alignment

from common.xlsx import append_values, sheet_title, style_header

from .rows import comparison_values
from .selectors import comparison


def value_text(value: dict | None, unit_label: str) -> str:
    if value is None:
        return "—"
    text = f"{value['amount']} {unit_label}" if value["amount"] is not None else value["text"]
    return f"{text} ★" if value["best"] else text


def source_text(value: dict | None) -> str:
    if value is None:
        return ""
    text = f"{value['source_kind_label']}: {value['source']}"
    return f"{text} ({value['source_url']})" if value["source_url"] else text


def support_sheet(wb, evaluation, used: set[str]) -> None:
    values = comparison_values(comparison(evaluation))
    ws = wb.create_sheet(sheet_title(_("Support terms"), used))
    header = [_("Term")]
    for c in values["candidates"]:
        header += [c["name"], _("Source: %(name)s") % {"name": c["name"]}]
    append_values(ws, header)
    style_header(ws)
    for term in values["terms"]:
        row = [str(term["label"])]
        for value in term["values"]:
            row += [value_text(value, term["unit_label"]), source_text(value)]
        append_values(ws, row)
    ws.append([])
    ws.cell(ws.max_row + 1, 1, _("★ marks the best value of a row where better is clear."))
    ws.column_dimensions["A"].width = 40
    for row in ws.iter_rows(min_row=2):
        for cell in row:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
