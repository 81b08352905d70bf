"""A report's history appendix: how many records of each kind the evaluation's change history
holds, and its decisive changes (status changes with their reasons, decision records, constraint
waivers, the owner's allowances on conflicts of interest), oldest first. Every change stays on
the History tab and in the API; the kinds that come after the seal (the sign-off's approvals,
evaluations.extensions.unsealed_history) are left out."""

from __future__ import annotations

from datetime import date

from django.db.models import Q
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from common.report_values import iso_datetime, person
from common.text import shorten

from ..extensions import unsealed_history
from ..history import history_counts, history_entries, history_timeline
from ..models import Evaluation, Status

DECISIVE_LIMIT = 40
DETAIL_CHARS = 140
# The history kinds whose records are decisive, each with a filter on its history rows: the
# decision record, constraint waivers, conflicts of interest (the owner's allowances among them,
# picked by their change to `allowed`). Status changes come from the status log, with their
# reasons. Approvals follow the seal: they are decisive too, but live in the unsealed sign-off.
DECISIVE_KINDS = {
    "decision": None,
    "constraintwaiver": None,
    "conflictdeclaration": Q(has_conflict=True),
}


def history_part(context) -> dict:
    """The history appendix; the last decided status change is marked when the decision was
    accepted with open POC cells (`context.decided_despite`)."""
    return _history(context.evaluation, context.decided_despite)


def _decisive_details(entry) -> str:
    """The fields a decisive change set, shortly: "Chosen: Slurm; Decided by: Board"."""
    parts = []
    for c in entry.changes:
        if c.new_display == entry.reason:
            continue
        shown = c.new_display
        if isinstance(c.new, date):  # in the report's language, like every other date
            shown = formats.date_format(c.new, "DATE_FORMAT")
        label = f"{c.label[:1].upper()}{c.label[1:]}"
        parts.append(f"{label}: {shorten(shown, DETAIL_CHARS)}")
    return pgettext("list separator", "; ").join(parts)


def _history(evaluation: Evaluation, despite: dict | None) -> dict:
    """A summary of the change history: how many records of each kind, and the decisive
    changes (status changes with their reasons, decision records, constraint waivers, the
    owner's allowances on conflicts of interest), oldest first. Every change stays
    on the evaluation's History tab and in the API."""
    # Approvals come after the seal: their history is in the unsealed sign-off.
    counts = history_counts(evaluation, exclude=unsealed_history())
    statuses = dict(Status.choices)
    changes = list(
        evaluation.status_changes.select_related("changed_by").order_by("changed_at", "pk")
    )
    last_decided = next((c for c in reversed(changes) if c.to_status == Status.DECIDED), None)
    # (moment, order, entry): sorted by the exact time, the status log first on a tie, then
    # the history's own order (oldest record first).
    decisive = [
        (
            c.changed_at,
            n,
            {
                "when": iso_datetime(c.changed_at),
                "who": person(c.changed_by),
                "kind": "status",
                "label": str(_("Status change")),
                "object": f"{statuses.get(c.from_status, c.from_status)} → "
                f"{statuses.get(c.to_status, c.to_status)}",
                "action_label": "",
                "details": "",
                "reason": c.reason,
                # The reason this decision was accepted with open POC cells (poc.gate).
                "despite": bool(despite) and c is last_decided,
            },
        )
        for n, c in enumerate(changes)
    ]
    rows = list(history_timeline(evaluation, DECISIVE_KINDS))
    entries = history_entries(evaluation, rows)
    for n, e in enumerate(reversed(entries), start=len(changes)):
        if e.model == "conflictdeclaration" and not any(c.field == "allowed" for c in e.changes):
            continue  # a declaration, not the owner's decision on it
        entry = {
            "when": iso_datetime(e.when),
            "who": e.who,
            "kind": e.model,
            "label": f"{e.model_label[:1].upper()}{e.model_label[1:]}",
            "object": e.object,
            "action_label": e.action_label,
            "details": _decisive_details(e),
            "reason": e.reason,
            "despite": False,
        }
        decisive.append((e.when, n, entry))
    decisive = [entry for _when, _n, entry in sorted(decisive, key=lambda d: (d[0], d[1]))]
    return {
        "total": sum(k.count for k in counts),
        "by_kind": [{"kind": k.kind, "label": k.label, "count": k.count} for k in counts],
        "decisive_total": len(decisive),
        "decisive": decisive[-DECISIVE_LIMIT:],
    }
