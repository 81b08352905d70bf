"""Reads of approvals: an evaluation's requests, a user's waiting ones, and the finished reports
an approver may approve (signoff.services writes; pages, the API and the report read these)."""

from __future__ import annotations

from django.http import Http404

from common import roles
from evaluations.models import Evaluation, Status, StatusChange
from reports.models import ReportRun, RunStatus
from reports.sections import prints_everything

from .models import Approval, ApprovalDecision

# The app role a request's role label starts from, most specific first.
ROLE_ORDER = (roles.PROCUREMENT, roles.TECH_LEAD, roles.REVIEWER, roles.ADMIN)


def default_role(user) -> str:
    """The role label a request starts with: the approver's app role (common.roles)."""
    held = roles.user_roles(user)
    key = next((r for r in ROLE_ORDER if r in held), None)
    return str(roles.ROLES[key]) if key else ""


def approvals_of(evaluation: Evaluation, *, active_only: bool = False):
    """The evaluation's requests, oldest first, voided ones after the active (one query)."""
    rows = Approval.objects.filter(evaluation=evaluation).select_related("approver", "requested_by")
    if active_only:
        rows = rows.filter(voided_at__isnull=True)
    return rows.order_by("voided_at", "requested_at", "pk")


def approval_get(evaluation: Evaluation, pk) -> Approval:
    """One request of this evaluation (404 otherwise)."""
    found = approvals_of(evaluation).filter(pk=pk).first()
    if found is None:
        raise Http404
    found.evaluation = evaluation
    return found


def pending_for(user, *, limit: int = 10) -> list[Approval]:
    """The user's requests waiting for their decision, newest first, in evaluations they are
    still a member of: one query, at most `limit` rows."""
    rows = (
        Approval.objects.filter(
            approver=user,
            decision=ApprovalDecision.PENDING,
            voided_at__isnull=True,
            evaluation__memberships__user=user,
        )
        .select_related("evaluation", "requested_by")
        .order_by("-requested_at", "-pk")
    )
    return list(rows[:limit])


def decided_since(evaluation: Evaluation):
    """When the evaluation was last marked decided (None: never)."""
    change = (
        StatusChange.objects.filter(evaluation=evaluation, to_status=Status.DECIDED)
        .order_by("-changed_at", "-pk")
        .first()
    )
    return change.changed_at if change else None


def approvable_runs(evaluation: Evaluation) -> list[ReportRun]:
    """The finished reports an approver may approve, newest first: built while the evaluation
    was decided (their snapshot says so), since it was last marked decided, with their PDF, and
    printing every section (a signature covers the whole document, never a report that left
    parts out)."""
    since = decided_since(evaluation)
    if since is None or not evaluation.is_sealed:
        return []
    runs = (
        ReportRun.objects.filter(
            evaluation=evaluation,
            status=RunStatus.DONE,
            created_at__gte=since,
            snapshot__meta__status=Status.DECIDED,
        )
        .exclude(pdf="")
        .defer("snapshot")
        .order_by("-created_at", "-pk")
    )
    return [run for run in runs if prints_everything(run)]
