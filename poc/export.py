"""The scorecard as an .xlsx workbook for procurement (openpyxl): a summary sheet with the
group weights and weighted totals as live formulas, and one sheet per group with every case,
its weight and each candidate's score (missing cells stay empty, never zero)."""

from __future__ import annotations

from io import BytesIO

from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter, quote_sheetname

from .selectors import Scorecard

HEADER = Font(bold=True)
FILL = PatternFill("solid", fgColor="EEF2F6")


def _sheet_title(name: str, used: set[str]) -> str:
    title = "".join(ch for ch in name if ch not in "[]:*?/\\")[:28] or "group"
    base, n = title, 2
    while title in used:
        title = f"{base[:25]}-{n}"
        n += 1
    used.add(title)
    return title


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def append_values(ws, values) -> None:
    """Append a row in which every string is text typed by someone (case titles, criteria,
    names): it is stored as a text cell, never as a formula, and one that a spreadsheet would
    read as a formula when edited is marked quote-prefixed as well. Only the formulas this
    export writes itself (see below, through ws.cell) are formulas."""
    ws.append([None if isinstance(v, str) else v for v in values])
    row = ws.max_row
    for col, value in enumerate(values, start=1):
        if isinstance(value, str):
            cell = ws.cell(row, col)
            # Assigning `cell.value` would make "=..." a formula: store it typed as text.
            cell._value, cell.data_type = value, "s"
            if value.startswith(FORMULA_STARTS):
                cell.quotePrefix = True


def scorecard_workbook(card: Scorecard) -> bytes:
    wb = Workbook()
    summary = wb.active
    summary.title = _sheet_title(_("Summary"), set())
    used = {summary.title}
    candidates = card.candidates
    group_refs = []  # (group name, weight cell, {candidate index: group score cell})
    for block in card.groups:
        ws = wb.create_sheet(_sheet_title(block.plan_group.group.name, used))
        append_values(
            ws,
            [_("Case"), _("Acceptance criteria"), _("Weight")] + [c.name for c in candidates],
        )
        for cell in ws[1]:
            cell.font, cell.fill = HEADER, FILL
        first = 2
        for row in block.rows:
            case = row.case
            append_values(
                ws,
                [
                    case.shown_title,
                    case.shown_acceptance,
                    float(case.weight),
                ]
                + [
                    float(c.value) if c.value is not None and c.can_see_others else None
                    for c in row.cells
                ],
            )
        last = ws.max_row
        ws.append([])
        total_row = ws.max_row + 1
        ws.cell(total_row, 1, _("Weighted score (scored cases only)")).font = HEADER
        refs = {}
        for i in range(len(candidates)):
            col = get_column_letter(4 + i)
            weights = f"$C${first}:$C${last}"
            scores = f"{col}{first}:{col}{last}"
            # SUMPRODUCT over scored cells / their weights: an empty cell is missing, not 0.
            formula = (
                f'=IF(SUMPRODUCT(--({scores}<>""),{weights})=0,"",'
                f'SUMPRODUCT({weights},{scores})/SUMPRODUCT(--({scores}<>""),{weights}))'
            )
            if last < first:
                formula = ""
            ws.cell(total_row, 4 + i, formula).font = HEADER
            refs[i] = f"{quote_sheetname(ws.title)}!${col}${total_row}"
        ws.column_dimensions["A"].width = 40
        ws.column_dimensions["B"].width = 60
        for row in ws.iter_rows(min_row=2, max_col=2):
            for cell in row:
                cell.alignment = Alignment(wrap_text=True, vertical="top")
        group_refs.append((block.plan_group.group.name, float(block.plan_group.weight), refs))
    append_values(summary, [_("Group"), _("Group weight")] + [c.name for c in candidates])
    for cell in summary[1]:
        cell.font, cell.fill = HEADER, FILL
    for name, weight, refs in group_refs:
        append_values(summary, [name, weight])
        for i in range(len(candidates)):  # our own formulas: references to the group sheets
            summary.cell(summary.max_row, 3 + i, f"={refs[i]}")
    first, last = 2, summary.max_row
    summary.append([])
    total_row = summary.max_row + 1
    summary.cell(total_row, 1, _("Weighted total (groups with scores)")).font = HEADER
    for i in range(len(candidates)):
        col = get_column_letter(3 + i)
        weights, scores = f"$B${first}:$B${last}", f"{col}{first}:{col}{last}"
        summary.cell(
            total_row,
            3 + i,
            f'=IF(SUMPRODUCT(--({scores}<>""),{weights})=0,"",'
            f'SUMPRODUCT({weights},{scores})/SUMPRODUCT(--({scores}<>""),{weights}))',
        ).font = HEADER
    summary.cell(total_row + 2, 1, _("Scores are 0–5. Empty cells are missing scores, not zero."))
    summary.column_dimensions["A"].width = 36
    out = BytesIO()
    wb.save(out)
    return out.getvalue()
