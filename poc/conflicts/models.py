"""Declared conflicts of interest: before scoring a candidate, each scoring member says whether
they have a relationship with its vendor(s); a declared conflict blocks their scoring of it
until the owner allows it with a reason."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from common.concurrency import VersionedModel
from common.fields import BoundedTextField
from evaluations.models import Candidate, Evaluation


class ConflictDeclaration(VersionedModel):
    """One member's declaration about one candidate (its vendor or, for a stack, vendors), and
    the owner's decision on a declared conflict. Changing the declaration withdraws an
    allowance: the owner decides again on what is declared now."""

    evaluation = models.ForeignKey(
        Evaluation, on_delete=models.CASCADE, related_name="conflict_declarations"
    )
    candidate = models.ForeignKey(
        Candidate, on_delete=models.CASCADE, related_name="conflict_declarations"
    )
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="conflict_declarations",
        verbose_name=_("member"),
    )
    vendors = models.CharField(
        _("vendors"),
        max_length=500,
        blank=True,
        help_text=_("The candidate's vendor(s) as the catalog named them when declared."),
    )
    has_conflict = models.BooleanField(_("conflict of interest"), default=False)
    description = BoundedTextField(_("relationship"), blank=True)
    declared_at = models.DateTimeField(_("declared"))
    allowed = models.BooleanField(_("scoring allowed by the owner"), default=False)
    allowance_reason = BoundedTextField(_("reason for allowing"), blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decided by"),
    )
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    history = HistoricalRecords()

    # Bookkeeping the History tab leaves out (who and when are the record's own).
    history_hidden_fields = ("member", "declared_at", "decided_by", "decided_at")

    class Meta:
        ordering = ["candidate_id", "member_id"]
        verbose_name = _("conflict-of-interest declaration")
        verbose_name_plural = _("conflict-of-interest declarations")
        constraints = [
            models.UniqueConstraint(
                fields=["candidate", "member"], name="conflict_declaration_once"
            ),
            models.CheckConstraint(
                condition=models.Q(has_conflict=False) | ~models.Q(description=""),
                name="conflict_has_description",
            ),
            models.CheckConstraint(
                condition=models.Q(allowed=False)
                | (models.Q(has_conflict=True) & ~models.Q(allowance_reason="")),
                name="conflict_allowance_has_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.candidate} · {self.member}"

    @property
    def blocks_scoring(self) -> bool:
        return self.has_conflict and not self.allowed
