"""The shortlist: candidates (one catalog solution, or a stack of several in layers)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from catalog.models import ShortlistRule, Solution
from common.concurrency import VersionedModel
from common.fields import BoundedTextField
from common.querysets import SignallingModel

from .evaluation import Evaluation


class CandidateStatus(models.TextChoices):
    SHORTLISTED = "shortlisted", _("Shortlisted")
    ELIMINATED = "eliminated", _("Eliminated")


class CandidateOrigin(models.TextChoices):
    SUGGESTED = "suggested", _("Suggested by the rules")
    MANUAL = "manual", _("Added by hand")


class Candidate(VersionedModel):
    """One catalog solution, or a stack: several solutions, each in a layer (`CandidateLayer`).

    A stack's `solution` is its main layer, the one whose type carries the main responsibility;
    everything else (questions, matrix, costs, POC, report) treats a stack as one candidate.
    """

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="candidates")
    solution = models.ForeignKey(
        Solution,
        on_delete=models.PROTECT,
        related_name="candidacies",
        verbose_name=_("solution"),
        help_text=_("For a stack: the layer that carries the main responsibility."),
    )
    stack_name = models.CharField(
        _("stack name"),
        max_length=100,
        blank=True,
        help_text=_("Empty for a single solution; the combined route's name for a stack."),
    )
    status = models.CharField(
        _("status"),
        max_length=12,
        choices=CandidateStatus.choices,
        default=CandidateStatus.SHORTLISTED,
    )
    origin = models.CharField(_("origin"), max_length=10, choices=CandidateOrigin.choices)
    rules = models.ManyToManyField(
        ShortlistRule, blank=True, related_name="+", verbose_name=_("rules that suggested it")
    )
    reason = BoundedTextField(
        _("reason for the shortlist"), blank=True, help_text=_("Why this candidate is on the list.")
    )
    elimination_reason = BoundedTextField(_("reason for elimination"), blank=True)
    eliminated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    eliminated_at = models.DateTimeField(_("eliminated"), null=True, blank=True)
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    added_at = models.DateTimeField(_("added"), auto_now_add=True)
    history = HistoricalRecords(m2m_fields=[rules])

    class Meta:
        ordering = ["solution__solution_type__order", "solution__name", "pk"]
        verbose_name = _("candidate")
        verbose_name_plural = _("candidates")
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "solution"],
                condition=models.Q(stack_name=""),
                name="candidate_unique",
            ),
            models.UniqueConstraint(
                fields=["evaluation", "stack_name"],
                condition=~models.Q(stack_name=""),
                name="candidate_stack_name_unique",
            ),
            models.CheckConstraint(
                condition=~models.Q(status="eliminated") | ~models.Q(elimination_reason=""),
                name="candidate_elimination_has_reason",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_stack(self) -> bool:
        return bool(self.stack_name)

    @property
    def name(self) -> str:
        """What pages and reports call it: the solution's name, or the stack's."""
        return self.stack_name or self.solution.name

    @property
    def stack_layers(self) -> list:
        """A stack's layers, bottom to top; empty for a single solution."""
        if not self.stack_name:
            return []
        order = LayerRole.values
        return sorted(self.layers.all(), key=lambda layer: order.index(layer.role))

    @property
    def is_shortlisted(self) -> bool:
        return self.status == CandidateStatus.SHORTLISTED


class LayerRole(models.TextChoices):
    """The layers a stack is built from, bottom to top (the seeds' usual combination)."""

    EXECUTION = "execution", _("Execution and scheduling")
    BATCH_QUEUE = "batch_queue", _("Batch queue")
    GOVERNANCE = "governance", _("Unified view, tenancy, audit and service")
    BURST = "burst", _("Burst capacity")
    OTHER = "other", _("Other layer")


class CandidateLayer(SignallingModel):
    """One catalog solution in a stack candidate, in a named layer. Set when the stack is
    composed; to change the layers, compose another stack."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="layers")
    solution = models.ForeignKey(
        Solution, on_delete=models.PROTECT, related_name="+", verbose_name=_("solution")
    )
    role = models.CharField(_("layer"), max_length=12, choices=LayerRole.choices)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("stack layer")
        verbose_name_plural = _("stack layers")
        constraints = [
            models.UniqueConstraint(fields=["candidate", "role"], name="layer_role_unique"),
            models.UniqueConstraint(fields=["candidate", "solution"], name="layer_solution_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.solution}"

    @property
    def order(self) -> int:
        return LayerRole.values.index(self.role)

    @property
    def is_main(self) -> bool:
        return self.solution_id == self.candidate.solution_id
