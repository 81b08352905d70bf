"""Approvals after the decision: the owner names approvers among the members (the tech lead,
procurement, security, ...); each approves or rejects the sealed report they read, identified
by its snapshot's SHA-256. Reopening the evaluation voids every approval of that round.

Moved here from evaluations with their rows (migrations: evaluations 0015 and signoff 0001)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from common.concurrency import VersionedModel
from common.fields import BoundedTextField
from evaluations.models import Evaluation
from reports.models import ReportRun


class ApprovalDecision(models.TextChoices):
    PENDING = "pending", _("Pending")
    APPROVED = "approved", _("Approved")
    REJECTED = "rejected", _("Rejected")


class Approval(VersionedModel):
    """One approver's request in one round. Active while not voided: withdrawn by the owner or
    voided by a reopening (`void_reason` says which), it stays for the record."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="approvals")
    approver = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="approvals",
        verbose_name=_("approver"),
    )
    role = models.CharField(
        _("role"),
        max_length=100,
        help_text=_("What the approver signs for, e.g. Procurement, Security, Tech lead."),
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("requested by"),
    )
    requested_at = models.DateTimeField(_("requested"))
    decision = models.CharField(
        _("decision"),
        max_length=10,
        choices=ApprovalDecision.choices,
        default=ApprovalDecision.PENDING,
    )
    comment = BoundedTextField(_("comment"), blank=True)
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    report_run = models.ForeignKey(
        ReportRun,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="approvals",
        verbose_name=_("approved report"),
    )
    snapshot_sha256 = models.CharField(_("snapshot SHA-256"), max_length=64, blank=True)
    report_language = models.CharField(_("report language"), max_length=10, blank=True)
    voided_at = models.DateTimeField(_("voided"), null=True, blank=True)
    void_reason = BoundedTextField(_("why voided"), blank=True)
    history = HistoricalRecords()

    history_hidden_fields = ("requested_by", "requested_at", "decided_at", "report_run")
    # Its rows belong to an evaluation and show on its kept History tab: every write moves the
    # evaluation's stamp (evaluations.digests), as a write to evaluations' own rows does.
    evaluation_data = True

    class Meta:
        ordering = ["requested_at", "pk"]
        verbose_name = _("approval")
        verbose_name_plural = _("approvals")
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "approver"],
                condition=models.Q(voided_at__isnull=True),
                name="approval_once_per_round",
            ),
            models.CheckConstraint(
                condition=models.Q(decision__in=ApprovalDecision.values),
                name="approval_decision_valid",
            ),
            models.CheckConstraint(
                condition=~models.Q(decision="rejected") | ~models.Q(comment=""),
                name="approval_rejection_has_comment",
            ),
            models.CheckConstraint(
                condition=models.Q(decision="pending")
                | (~models.Q(snapshot_sha256="") & models.Q(decided_at__isnull=False)),
                name="approval_decision_names_snapshot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.evaluation} · {self.approver} · {self.decision}"

    @property
    def active(self) -> bool:
        return self.voided_at is None

    @property
    def pending(self) -> bool:
        return self.active and self.decision == ApprovalDecision.PENDING
