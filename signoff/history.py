"""The approvals' history on an evaluation's timeline: requests, decisions, withdrawals and
voids show on the History tab and in the API under the kind "approval" (a history source
contributed to evaluations.history), and in the report's sign-off, outside the seal."""

from __future__ import annotations

from common.people import person_name
from evaluations.extensions import HistorySource

from .models import Approval

HISTORY_KIND = "approval"


def describe(record) -> str:
    """A history record named by its approver and the role they sign for."""
    approver = record.approver
    who = person_name(approver) if approver else f"#{record.approver_id}"
    return f"{who} — {record.role}"


def history_rows(evaluation):
    return Approval.history.filter(evaluation_id=evaluation.pk)


def history_source() -> HistorySource:
    return HistorySource(HISTORY_KIND, rows=history_rows, describe=describe, related=("approver",))
