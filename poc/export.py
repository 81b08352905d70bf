"""The scorecard as an .xlsx workbook for procurement (openpyxl): a summary sheet with the
group weights and weighted totals, one sheet per group with every case, its weight and
each candidate's score (missing cells stay empty, never zero), and a sheet of the comparable
groups: ranks and win shares within a group only (the same type on the same test bed), never
across types or test beds.

The totals are stored as values, not formulas: openpyxl cannot store a formula's result, and
a tool that does not recalculate (viewers, mail previews, pandas) would show a formula's cell
empty. A note on the summary says how they are computed, so a reader can check them."""

from __future__ import annotations

from decimal import Decimal
from io import BytesIO

from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.styles import Alignment

from common.xlsx import FILL, HEADER, append_values, sheet_title
from evaluations.extensions import workbook_sheets

from .selectors import Scorecard


def weighted_mean(pairs) -> float | None:
    """The weighted mean of (weight, score) pairs over the scored ones (a missing score is
    left out, not 0); None when no scored pair has weight."""
    scored = [(Decimal(str(w)), Decimal(str(v))) for w, v in pairs if v is not None]
    weight = sum((w for w, _v in scored), Decimal(0))
    if not weight:
        return None
    return float(sum((w * v for w, v in scored), Decimal(0)) / weight)


def comparable_sheet(wb, res) -> None:
    """One block of rows per comparable group (poc.selectors.results_by_type): its type, its
    test bed, each candidate's rank and win share within the group, and the same type's
    candidates on other test beds, named as not comparable."""
    ws = wb.create_sheet(sheet_title(_("Comparable groups"), set(wb.sheetnames)))
    header = [
        _("Solution type"),
        _("Test bed"),
        _("Candidate"),
        _("Rank in group"),
        _("Weighted total (0–5)"),
        _("Share of wins in group"),
        _("Not comparable with"),
    ]
    append_values(ws, header)
    for cell in ws[1]:
        cell.font, cell.fill = HEADER, FILL
    for t in res.by_type:
        others = "; ".join(f"{', '.join(c.name for c in o.candidates)}: {o.note}" for o in t.others)
        for c, rank in t.ranked:
            score = res.overall[c.pk].score
            share = (t.wins or {}).get(str(c.pk))
            append_values(
                ws,
                [t.solution_type.name, t.bed_label, c.name, rank]
                + [None if score is None else float(score)]
                + [None if share is None else float(share), others],
            )
        ws.append([])
    ws.cell(
        ws.max_row + 1,
        1,
        _(
            "Ranks and win shares compare a candidate only with the candidates of the same "
            "solution type tested on the same test bed (or on test beds the owner declared "
            "equivalent)."
        ),
    )
    for col, width in (("A", 24), ("B", 36), ("C", 28), ("G", 60)):
        ws.column_dimensions[col].width = width


def scorecard_workbook(card: Scorecard, res=None) -> bytes:
    """The workbook; `res` (poc.selectors.Results from the same user's scorecard) adds the
    sheet of comparable groups."""
    wb = Workbook()
    summary = wb.active
    summary.title = sheet_title(_("Summary"), set())
    used = {summary.title}
    candidates = card.candidates
    group_totals = []  # (group name, group weight, [each candidate's weighted score or None])
    for block in card.groups:
        ws = wb.create_sheet(sheet_title(block.plan_group.group.name, used))
        append_values(
            ws,
            [_("Case"), _("Acceptance criteria"), _("Weight")] + [c.name for c in candidates],
        )
        for cell in ws[1]:
            cell.font, cell.fill = HEADER, FILL
        rows = []
        for row in block.rows:
            case = row.case
            scores = [
                float(c.value) if c.value is not None and c.can_see_others else None
                for c in row.cells
            ]
            rows.append((float(case.weight), scores))
            append_values(ws, [case.shown_title, case.shown_acceptance, float(case.weight)])
            for i, score in enumerate(scores):
                ws.cell(ws.max_row, 4 + i, score)
        ws.append([])
        total_row = ws.max_row + 1
        ws.cell(total_row, 1, _("Weighted score (scored cases only)")).font = HEADER
        totals = [weighted_mean((w, s[i]) for w, s in rows) for i in range(len(candidates))]
        for i, total in enumerate(totals):
            ws.cell(total_row, 4 + i, total).font = HEADER
        ws.column_dimensions["A"].width = 40
        ws.column_dimensions["B"].width = 60
        for row in ws.iter_rows(min_row=2, max_col=2):
            for cell in row:
                cell.alignment = Alignment(wrap_text=True, vertical="top")
        group_totals.append((block.plan_group.group.name, float(block.plan_group.weight), totals))
    append_values(summary, [_("Group"), _("Group weight")] + [c.name for c in candidates])
    for cell in summary[1]:
        cell.font, cell.fill = HEADER, FILL
    for name, weight, totals in group_totals:
        append_values(summary, [name, weight])
        for i, total in enumerate(totals):
            summary.cell(summary.max_row, 3 + i, total)
    summary.append([])
    total_row = summary.max_row + 1
    summary.cell(total_row, 1, _("Weighted total (groups with scores)")).font = HEADER
    for i in range(len(candidates)):
        total = weighted_mean((weight, totals[i]) for _n, weight, totals in group_totals)
        summary.cell(total_row, 3 + i, total).font = HEADER
    summary.cell(total_row + 2, 1, _("Scores are 0–5. Empty cells are missing scores, not zero."))
    summary.cell(
        total_row + 3,
        1,
        _(
            "Totals are values, not formulas: each is the weighted mean of the scored cases "
            "(on a group's sheet) or of the groups with scores (here), by their weights."
        ),
    )
    summary.column_dimensions["A"].width = 36
    if res is not None:
        summary.cell(
            total_row + 4,
            1,
            _("Compare totals only within a comparable group: see “Comparable groups”."),
        )
        comparable_sheet(wb, res)
    for add_sheet in workbook_sheets():  # the sheets other apps contribute
        add_sheet(wb, card.evaluation, used)
    out = BytesIO()
    wb.save(out)
    return out.getvalue()
