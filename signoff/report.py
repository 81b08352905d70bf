"""The report's sign-off: what it prints of the approvals, a part of the snapshot that reports
builds through evaluations.extensions (ReportPart) and leaves outside the seal, since approvals
come after the content they approve and must not change its SHA-256."""

from __future__ import annotations

from django.db.models import CharField, Value
from django.utils import timezone

from common.people import person_name
from evaluations.extensions import ReportPart
from evaluations.history import history_entries
from evaluations.models import Evaluation

from .history import HISTORY_KIND, history_rows
from .selectors import approvals_of

HISTORY_LIMIT = 50  # the newest history records the sign-off prints


def _iso(value) -> str | None:
    if value is None:
        return None
    return timezone.localtime(value).replace(microsecond=0).isoformat()


def signoff_snapshot(evaluation: Evaluation) -> dict:
    """What the report's sign-off block prints, as plain JSON values: one row per active
    request (who, role, decision, when, the SHA-256 and language of the report they decided on,
    the comment) and the approvals' history (kind "approval"; the sealed change history leaves
    it out). Outside the seal: approvals come after it."""
    rows = [
        {
            "name": person_name(a.approver),
            "username": a.approver.get_username(),
            "role": a.role,
            "decision": a.decision,
            "decision_label": str(a.get_decision_display()),
            "requested_at": _iso(a.requested_at),
            "decided_at": _iso(a.decided_at),
            "sha256": a.snapshot_sha256,
            "language": a.report_language,
            "comment": a.comment,
        }
        for a in approvals_of(evaluation, active_only=True)
    ]
    timeline = (
        history_rows(evaluation)
        .order_by("-history_date", "-history_id")
        .values("history_id", "history_date")
        .annotate(kind=Value(HISTORY_KIND, output_field=CharField()))
    )
    entries = history_entries(evaluation, timeline[:HISTORY_LIMIT])
    history = [
        {
            "kind": HISTORY_KIND,
            "when": _iso(e.when),
            "who": e.who,
            "object": e.object,
            "action": e.action,
            "action_label": e.action_label,
            "changes": [
                {"label": c.label, "old": c.old_display, "new": c.new_display} for c in e.changes
            ],
            "reason": e.reason,
        }
        for e in entries
    ]
    return {"approvals": rows, "history": history}


def report_part() -> ReportPart:
    """The sign-off part: built from the evaluation reports.snapshot builds for, printed but not
    sealed, and its history kind left out of the sealed history."""
    return ReportPart(
        key="signoff",
        build=lambda context: signoff_snapshot(context.evaluation),
        sealed=False,
        unsealed_history=(HISTORY_KIND,),
    )
