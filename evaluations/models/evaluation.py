"""An evaluation: its requirements (some of them answers to context questions), its status and
the moves between statuses, with every move logged."""

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from catalog.models import Scenario, SolutionType
from common.concurrency import VersionedModel
from common.fields import LONG_TEXT, BoundedTextField
from common.querysets import SignallingModel

from .library import AnswerValue


class Status(models.TextChoices):
    DRAFT = "draft", _("Draft")
    POC = "poc", _("POC")
    DECIDED = "decided", _("Decided")
    ARCHIVED = "archived", _("Archived")


# Allowed moves; reopening (out of decided/archived) is the owner's, with a reason.
TRANSITIONS = {
    Status.DRAFT: {Status.POC},
    Status.POC: {Status.DRAFT, Status.DECIDED},
    Status.DECIDED: {Status.ARCHIVED, Status.POC},
    Status.ARCHIVED: {Status.POC},
}
SEALED = {Status.DECIDED, Status.ARCHIVED}


class ContextFact:
    """An evaluation requirement that is also a context question: one fact, stored once, as the
    evaluation's answer to the question `key` (yes: required; no or not answered: not).

    Reading it on an evaluation says whether that answer is yes, from the prefetched answers
    when they are loaded. It is read-only: `services.evaluation_create` / `evaluation_update`
    take the box's value and save the answer (ticked: yes; cleared: a yes becomes no).
    """

    def __init__(self, key: str, label) -> None:
        self.key = key
        self.label = label

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return instance.fact(self.key)

    def __set__(self, instance, value) -> None:
        raise AttributeError(
            f"{self.name} is the answer to the context question {self.key!r}: save that answer."
        )


class Evaluation(VersionedModel):
    title = models.CharField(_("title"), max_length=200)
    organisation = models.CharField(_("organisation / team"), max_length=200)
    scenarios = models.ManyToManyField(
        Scenario, related_name="evaluations", verbose_name=_("primary scenarios")
    )
    # Asked once, as context questions: the create form's boxes show and change those answers.
    private_deployment_required = ContextFact(
        "private_deployment", _("private deployment required")
    )
    compliance_required = ContextFact(
        "compliance_regime", _("compliance, data-residency or audit requirements")
    )
    localisation_required = models.BooleanField(
        _("localisation (domestic hardware and delivery) required"), default=False
    )
    plans_hybrid = models.BooleanField(
        _("combines several resource sources (hybrid route)"),
        default=False,
        help_text=_("For example open-source scheduling on premises plus cloud GPUs."),
    )
    unified_view_owner = models.CharField(
        _("owner of the unified resource view and audit trail"),
        max_length=200,
        blank=True,
        help_text=_(
            "Who runs the single resource catalog, request flow, cost attribution and audit "
            "across sources."
        ),
    )
    notes = BoundedTextField(_("notes"), max_length=LONG_TEXT, blank=True)
    # The method's second step, before tools: which type of solution carries the main
    # responsibility, and why (kept in history, printed as scenario -> type -> tools).
    main_type = models.ForeignKey(
        SolutionType,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("type carrying the main responsibility"),
    )
    main_type_reason = BoundedTextField(_("why this type"), blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.DRAFT
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    # Set by portable's import (and only there): the archive's file name and when, so that a
    # copy imported next to its original is told apart in the list.
    imported_from = models.CharField(_("imported from"), max_length=255, blank=True)
    imported_at = models.DateTimeField(_("imported"), null=True, blank=True)
    history = HistoricalRecords(m2m_fields=[scenarios])

    class Meta:
        ordering = ["-updated_at", "-pk"]
        verbose_name = _("evaluation")
        verbose_name_plural = _("evaluations")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=Status.values), name="evaluation_status_valid"
            )
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("evaluations:evaluation_detail", kwargs={"pk": self.pk})

    @property
    def is_sealed(self) -> bool:
        return self.status in SEALED

    def fact(self, key: str) -> bool:
        """Whether the context question `key` is answered yes."""
        if self.pk is None:
            return False
        prefetched = getattr(self, "_prefetched_objects_cache", {}).get("context_answers")
        if prefetched is not None:
            return any(a.question.key == key and a.value == AnswerValue.YES for a in prefetched)
        return self.context_answers.filter(question__key=key, value=AnswerValue.YES).exists()


# Evaluation requirement (the create form's box) -> the context question it is the answer to.
FACT_FLAGS = {
    name: field.key for name, field in vars(Evaluation).items() if isinstance(field, ContextFact)
}


class StatusChange(SignallingModel):
    """Every status move, with the reason where one is required (reopening)."""

    evaluation = models.ForeignKey(
        Evaluation, on_delete=models.CASCADE, related_name="status_changes"
    )
    from_status = models.CharField(_("from"), max_length=10, choices=Status.choices)
    to_status = models.CharField(_("to"), max_length=10, choices=Status.choices)
    reason = BoundedTextField(_("reason"), blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    changed_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-pk"]
        verbose_name = _("status change")
        verbose_name_plural = _("status changes")

    def __str__(self) -> str:
        return f"{self.from_status} → {self.to_status}"
