"""What every .xlsx sheet the apps write shares (openpyxl): sheet titles a workbook accepts,
rows whose text is stored as text (never as a formula) and the header style."""

from __future__ import annotations

from openpyxl.styles import Font, PatternFill

HEADER = Font(bold=True)
FILL = PatternFill("solid", fgColor="EEF2F6")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def sheet_title(name: str, used: set[str]) -> str:
    """`name` as a sheet title: without the characters a title may not hold, short enough, and
    not one of `used` (which it joins)."""
    title = "".join(ch for ch in name if ch not in "[]:*?/\\")[:28] or "group"
    base, n = title, 2
    while title in used:
        title = f"{base[:25]}-{n}"
        n += 1
    used.add(title)
    return title


def append_values(ws, values) -> None:
    """Append a row in which every string is text typed by someone (case titles, criteria,
    names): it is stored as a text cell, never as a formula, and one that a spreadsheet would
    read as a formula when edited is marked quote-prefixed as well. The workbook holds no
    formula at all."""
    ws.append([None if isinstance(v, str) else v for v in values])
    row = ws.max_row
    for col, value in enumerate(values, start=1):
        if isinstance(value, str):
            cell = ws.cell(row, col)
            # Assigning `cell.value` would make "=..." a formula: store it typed as text.
            cell._value, cell.data_type = value, "s"
            if value.startswith(FORMULA_STARTS):
                cell.quotePrefix = True


def style_header(ws, row: int = 1) -> None:
    for cell in ws[row]:
        cell.font, cell.fill = HEADER, FILL
