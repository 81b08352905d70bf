"""Approvals after the decision: reads, writes and what the report prints of them.

The workflow: while the evaluation is decided, its owner names approvers among the current
members, each with the role they sign for (one active request per member and round) and may
withdraw a request nobody decided yet. An approver decides only their own request, while the
evaluation is sealed: they approve or reject one finished report of this evaluation whose
snapshot was built while it was decided (since it was last marked decided), and the request
records that report's snapshot SHA-256, so the approval names exactly the content it covers.
A rejection needs a comment. A request decided once is decided: deciding again is refused unless
the approver says they change their decision (`change=True`), which is kept in the history like
every other step. Reopening the evaluation (`services.evaluation_transition`) voids every active
request with the reopening's reason; the next round starts from nothing.

Pages and the API call these; the report reads `signoff_snapshot`, which sits outside the seal
(reports.snapshot): approvals come after the seal and must not change it.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import CharField, Value
from django.utils import timezone
from django.utils.translation import gettext as _

from common import roles
from common.concurrency import bump, lock_and_check
from common.exceptions import Conflict, Forbidden
from common.history import save_as
from common.people import person_name

from . import extensions
from .locking import lock_status
from .models import Evaluation, Membership, Status, StatusChange
from .models_approvals import Approval, ApprovalDecision

HISTORY_KIND = "approval"
# The app role a request's role label starts from, most specific first.
ROLE_ORDER = (roles.PROCUREMENT, roles.TECH_LEAD, roles.REVIEWER, roles.ADMIN)
ROLE_MAX = Approval._meta.get_field("role").max_length


def _report_run_model():
    # Reports sit above evaluations: the model is reached through the relation, not an import.
    return Approval._meta.get_field("report_run").related_model


def _name(user) -> str:
    return person_name(user)


# --- reads -----------------------------------------------------------------------------------


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
    from django.http import Http404

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


def _decided_since(evaluation: Evaluation):
    """When the evaluation was last marked decided (None: never)."""
    change = (
        StatusChange.objects.filter(evaluation=evaluation, to_status=Status.DECIDED)
        .order_by("-changed_at", "-pk")
        .first()
    )
    return change.changed_at if change else None


def approvable_runs(evaluation: Evaluation) -> list:
    """The finished reports an approver may approve, newest first: built while the evaluation
    was decided (their snapshot says so), since it was last marked decided, with their PDF."""
    since = _decided_since(evaluation)
    if since is None or not evaluation.is_sealed:
        return []
    runs = (
        _report_run_model()
        .objects.filter(
            evaluation=evaluation,
            status="done",
            created_at__gte=since,
            snapshot__meta__status=Status.DECIDED,
        )
        .exclude(pdf="")
        .defer("snapshot")
        .order_by("-created_at", "-pk")
    )
    return [run for run in runs if _complete(run)]


def _complete(run) -> bool:
    """A report that prints every section: a signature covers the whole document, never a
    report that left parts out (the reports app says what that is: evaluations.extensions)."""
    return extensions.report_complete(run)


# --- writes ----------------------------------------------------------------------------------


def _require_owner_while_decided(user, evaluation: Evaluation, *, naming: bool = True) -> None:
    if user.has_perm("evaluations.request_approval", evaluation):
        return
    if user.has_perm("evaluations.manage_members", evaluation):  # the owner, at the wrong time
        status = {"status": evaluation.get_status_display()}
        if naming:
            raise Conflict(
                _(
                    "Approvers are named while the evaluation is decided; it is %(status)s. "
                    "Mark it decided first."
                )
                % status
            )
        raise Conflict(
            _("Requests are withdrawn while the evaluation is decided; it is %(status)s.") % status
        )
    raise Forbidden(_("Only the evaluation's owner names approvers or withdraws a request."))


@transaction.atomic
def approval_request(*, user, evaluation: Evaluation, approver, role: str = "") -> Approval:
    """The owner asks a current member to approve the decided evaluation, for a role (by
    default the approver's app role)."""
    lock_status(evaluation)  # every approval write queues behind a status change
    _require_owner_while_decided(user, evaluation)
    if (
        approver is None
        or not Membership.objects.filter(evaluation=evaluation, user=approver).exists()
    ):
        raise ValidationError(
            {"approver": _("Approvers are members of the evaluation: choose one of its members.")}
        )
    active = Approval.objects.filter(evaluation=evaluation, approver=approver, voided_at=None)
    if active.exists():
        raise ValidationError(
            {
                "approver": _(
                    "%(name)s already has a request in this round; withdraw it first to ask again."
                )
                % {"name": _name(approver)}
            }
        )
    role = " ".join((role or "").split()) or default_role(approver)
    if not role:
        raise ValidationError(
            {"role": _("Say what this approver signs for, e.g. Procurement or Security.")}
        )
    row = Approval(
        evaluation=evaluation,
        approver=approver,
        role=role,
        requested_by=user,
        requested_at=timezone.now(),
        version=0,
    )
    bump(row)
    row.full_clean(exclude=["evaluation", "approver", "requested_by", "report_run"])
    try:
        with transaction.atomic():
            save_as(row, user)
    except IntegrityError as exc:  # a parallel request for the same member won
        raise Conflict(
            _("%(name)s already has a request in this round.") % {"name": _name(approver)}
        ) from exc
    return row


@transaction.atomic
def approval_withdraw(*, user, approval: Approval, expected_version) -> Approval:
    """The owner withdraws a request nobody has decided yet."""
    evaluation = approval.evaluation
    lock_status(evaluation)  # every approval write queues behind a status change
    _require_owner_while_decided(user, evaluation, naming=False)
    row = lock_and_check(Approval, pk=approval.pk, expected_version=expected_version)
    if row.voided_at is not None:
        raise Conflict(_("This request was already withdrawn or voided."))
    if row.decision != ApprovalDecision.PENDING:
        raise Conflict(
            _(
                "%(name)s has already decided on this request; a decided request stays on record "
                "until the evaluation is reopened."
            )
            % {"name": _name(row.approver)}
        )
    row.voided_at = timezone.now()
    row.void_reason = _("Withdrawn by the owner.")
    row._change_reason = row.void_reason
    bump(row)
    save_as(row, user)
    return row


def _check_run(evaluation: Evaluation, run_id):
    # Blind scoring has nothing to hide here: approvals happen once the evaluation is sealed,
    # and then every member sees every score (poc.rules).
    Run = _report_run_model()
    run = Run.objects.filter(pk=run_id, evaluation=evaluation).defer("snapshot").first()
    if run is None:
        raise ValidationError({"run": _("Choose a report of this evaluation.")})
    if run.status != "done" or not run.pdf:
        raise ValidationError(
            {"run": _("This report is not finished yet: approve a finished report.")}
        )
    if not _complete(run):
        raise ValidationError(
            {
                "run": _(
                    "This report leaves sections out. Approve a report with every section: "
                    "request one on the Reports tab."
                )
            }
        )
    status = Run.objects.filter(pk=run.pk).values_list("snapshot__meta__status", flat=True)[0]
    if status != Status.DECIDED:
        raise ValidationError(
            {
                "run": _(
                    "This report was made while the evaluation was not decided (it says "
                    "%(status)s). Request a report now and approve that one."
                )
                % {"status": dict(Status.choices).get(status, status or "—")}
            }
        )
    since = _decided_since(evaluation)
    if since is None or run.created_at < since:
        raise ValidationError(
            {
                "run": _(
                    "This report was made before the evaluation was last marked decided. Approve "
                    "a report made since then."
                )
            }
        )
    return run


@transaction.atomic
def approval_decide(
    *,
    user,
    approval: Approval,
    decision: str,
    run_id: int | None,
    comment: str = "",
    change: bool = False,
    expected_version,
) -> Approval:
    """The approver approves or rejects one finished, decided report (by its snapshot's
    SHA-256), with a comment (required to reject). Deciding a decided request again needs
    `change=True`: the approver says they change their decision."""
    evaluation = approval.evaluation
    lock_status(evaluation)  # every approval write queues behind a status change
    if approval.approver_id != user.pk:
        raise Forbidden(
            _("Only %(name)s decides this request.") % {"name": _name(approval.approver)}
        )
    if not user.has_perm("evaluations.decide_approval", evaluation):
        raise Conflict(
            _(
                "The evaluation is %(status)s: approvals are decided while it is decided or "
                "archived."
            )
            % {"status": evaluation.get_status_display()}
        )
    row = lock_and_check(Approval, pk=approval.pk, expected_version=expected_version)
    if row.voided_at is not None:
        raise Conflict(
            _("This request was voided (%(why)s); there is nothing to decide.")
            % {"why": row.void_reason or "—"}
        )
    if decision not in (ApprovalDecision.APPROVED, ApprovalDecision.REJECTED):
        raise ValidationError({"decision": _("Choose approve or reject.")})
    if row.decision != ApprovalDecision.PENDING and not change:
        raise Conflict(
            _(
                "You already decided on this request (%(decision)s). To change your decision, "
                "say so explicitly (tick “Change my decision”)."
            )
            % {"decision": row.get_decision_display()}
        )
    comment = (comment or "").strip()
    if decision == ApprovalDecision.REJECTED and not comment:
        raise ValidationError({"comment": _("Say why you reject it: the owner reads this.")})
    if not run_id:
        raise ValidationError({"run": _("Choose the report you read.")})
    run = _check_run(evaluation, run_id)
    changing = row.decision != ApprovalDecision.PENDING
    row.decision = decision
    row.comment = comment
    row.report_run = run
    row.snapshot_sha256 = run.snapshot_sha256
    row.report_language = run.language
    row.decided_at = timezone.now()
    if changing:
        row._change_reason = _("Decision changed.")
    bump(row)
    row.full_clean(exclude=["evaluation", "approver", "requested_by", "report_run"])
    save_as(row, user)
    return row


def approvals_void(*, user, evaluation: Evaluation, reason: str) -> int:
    """Void every active request of the evaluation (its reopening), with the reopen's reason.
    Called inside the transition's transaction, the evaluation row locked. Returns how many."""
    now = timezone.now()
    why = _("Voided: the evaluation was reopened (%(reason)s).") % {"reason": reason}
    why = why[: Approval._meta.get_field("void_reason").max_length]
    rows = Approval.objects.select_for_update().filter(evaluation=evaluation, voided_at=None)
    count = 0
    for row in rows.order_by("pk"):
        row.voided_at = now
        row.void_reason = why
        row._change_reason = reason
        bump(row)
        save_as(row, user)
        count += 1
    return count


# --- the report's sign-off (outside the seal) ------------------------------------------------


def _iso(value) -> str | None:
    if value is None:
        return None
    return timezone.localtime(value).replace(microsecond=0).isoformat()


def signoff_snapshot(evaluation: Evaluation) -> dict:
    """What the report's sign-off block prints, as plain JSON values: one row per active
    request (who, role, decision, when, the SHA-256 and language of the report they decided on,
    the comment) and the approvals' history (kind "approval"; the sealed change history leaves
    it out). Outside the seal: approvals come after it."""
    from .history import history_entries

    rows = [
        {
            "name": _name(a.approver),
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
        Approval.history.filter(evaluation_id=evaluation.pk)
        .order_by("-history_date", "-history_id")
        .values("history_id", "history_date")
        .annotate(kind=Value(HISTORY_KIND, output_field=CharField()))
    )
    entries = history_entries(evaluation, timeline[:50])
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


# --- history ---------------------------------------------------------------------------------


def _describe(record) -> str:
    approver = record.approver
    who = _name(approver) if approver else f"#{record.approver_id}"
    return f"{who} — {record.role}"


def history_source() -> extensions.HistorySource:
    """Requests, decisions, withdrawals and voids show on the History tab and in the API."""
    return extensions.HistorySource(
        HISTORY_KIND,
        rows=lambda evaluation: Approval.history.filter(evaluation_id=evaluation.pk),
        describe=_describe,
        related=("approver",),
    )
