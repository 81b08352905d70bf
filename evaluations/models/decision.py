"""The decision record, the owner's waivers of hard constraints a chosen candidate violates, and
the owner's acknowledgements of open high reminders."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from common.concurrency import VersionedModel
from common.fields import LONG_TEXT, BoundedTextField
from common.querysets import SignallingModel

from .candidates import Candidate
from .context import Constraint
from .evaluation import Evaluation


class Decision(VersionedModel):
    evaluation = models.OneToOneField(Evaluation, on_delete=models.CASCADE, related_name="decision")
    chosen = models.ManyToManyField(
        Candidate, related_name="+", blank=True, verbose_name=_("chosen candidates")
    )
    rationale = BoundedTextField(_("rationale"), max_length=LONG_TEXT, blank=True)
    decided_on = models.DateField(_("decision date"), null=True, blank=True)
    decided_by = models.CharField(
        _("decided by"), max_length=200, blank=True, help_text=_("A person or a committee.")
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    history = HistoricalRecords(m2m_fields=[chosen])

    class Meta:
        verbose_name = _("decision record")
        verbose_name_plural = _("decision records")

    def __str__(self) -> str:
        return f"{self.evaluation} · {self.decided_on or '—'}"


class ConstraintWaiver(SignallingModel):
    """The owner's explicit, reasoned acceptance that a candidate violates a hard constraint;
    without one the decided gate refuses a decision that chooses it."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="waivers")
    constraint = models.ForeignKey(
        Constraint, on_delete=models.PROTECT, related_name="waivers", verbose_name=_("constraint")
    )
    reason = BoundedTextField(_("reason"))
    waived_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    waived_at = models.DateTimeField(_("when"), auto_now_add=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["constraint__order", "pk"]
        verbose_name = _("constraint waiver")
        verbose_name_plural = _("constraint waivers")
        constraints = [
            models.UniqueConstraint(
                fields=["candidate", "constraint"], name="constraint_waiver_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.candidate} · {self.constraint}"


class ReminderAcknowledgement(VersionedModel):
    """The owner's reasoned acceptance that the evaluation may be marked decided while a high
    reminder is open. It applies to the reminder's key (the rule, and the candidate where the
    rule names one: `private-deployment-ignored:12`), so it holds while the reminder goes away
    and comes back under the same key; a reminder of the same rule about another candidate has
    another key and needs its own. `title` is the reminder's title when it was acknowledged."""

    evaluation = models.ForeignKey(
        Evaluation, on_delete=models.CASCADE, related_name="acknowledgements"
    )
    key = models.CharField(_("reminder"), max_length=200)
    title = models.CharField(_("title"), max_length=500, blank=True)
    reason = BoundedTextField(_("reason"))
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    acknowledged_at = models.DateTimeField(_("when"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["key", "pk"]
        verbose_name = _("reminder acknowledgement")
        verbose_name_plural = _("reminder acknowledgements")
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "key"], name="reminder_acknowledgement_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.evaluation} · {self.key}"
