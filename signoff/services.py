"""Approvals after the decision: the writes (signoff.selectors reads them).

The workflow: while the evaluation is decided, its owner names approvers among the current
members, each with the role they sign for (one active request per member and round) and may
withdraw a request nobody decided yet. An approver decides only their own request, while the
evaluation is sealed: they approve or reject one finished report of this evaluation whose
snapshot was built while it was decided (since it was last marked decided), and the request
records that report's snapshot SHA-256, so the approval names exactly the content it covers.
A rejection needs a comment. A request decided once is decided: deciding again is refused unless
the approver says they change their decision (`change=True`), which is kept in the history like
every other step. Reopening the evaluation voids every active request with the reopening's
reason (`void_on_reopening`, run by evaluations' status change); the next round starts from
nothing.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from common.concurrency import bump, lock_and_check
from common.exceptions import Conflict, Forbidden
from common.history import save_as
from common.people import person_name
from evaluations.locking import lock_status
from evaluations.models import SEALED, Evaluation, Membership, Status
from reports.models import ReportRun, RunStatus
from reports.sections import prints_everything

from .models import Approval, ApprovalDecision
from .selectors import decided_since, default_role

# --- writes ----------------------------------------------------------------------------------


def _require_owner_while_decided(user, evaluation: Evaluation, *, naming: bool = True) -> None:
    if user.has_perm("signoff.request_approval", evaluation):
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
                % {"name": person_name(approver)}
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
            _("%(name)s already has a request in this round.") % {"name": person_name(approver)}
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
            % {"name": person_name(row.approver)}
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
    run = ReportRun.objects.filter(pk=run_id, evaluation=evaluation).defer("snapshot").first()
    if run is None:
        raise ValidationError({"run": _("Choose a report of this evaluation.")})
    if run.status != RunStatus.DONE or not run.pdf:
        raise ValidationError(
            {"run": _("This report is not finished yet: approve a finished report.")}
        )
    if not prints_everything(run):  # a signature covers the whole document
        raise ValidationError(
            {
                "run": _(
                    "This report leaves sections out. Approve a report with every section: "
                    "request one on the Reports tab."
                )
            }
        )
    status = ReportRun.objects.filter(pk=run.pk).values_list("snapshot__meta__status", flat=True)[0]
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
    since = decided_since(evaluation)
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
            _("Only %(name)s decides this request.") % {"name": person_name(approval.approver)}
        )
    if not user.has_perm("signoff.decide_approval", evaluation):
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


def void_on_reopening(user, evaluation: Evaluation, old_status, new_status, reason) -> None:
    """Approvals were of the sealed decision: reopening the evaluation (leaving decided or
    archived for an open status) voids them, and the next round starts anew. A status hook
    (evaluations.extensions), run inside the status change's transaction."""
    if old_status in SEALED and new_status not in SEALED:
        approvals_void(user=user, evaluation=evaluation, reason=reason)
