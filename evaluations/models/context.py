"""An evaluation's context: its answers to the context questions, and the hard constraints those
answers (or its own requirements) make it carry."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from catalog.models import Capability
from common.concurrency import VersionedModel
from common.fields import BoundedTextField
from common.querysets import SignallingModel
from common.validators import key_validator

from .evaluation import Evaluation
from .library import AnswerValue, ContextQuestion


class ConstraintFlag(models.TextChoices):
    """The evaluation's own yes/no requirements a constraint can follow (the first two are its
    answers to the context questions of the same name: `ContextFact`)."""

    PRIVATE_DEPLOYMENT = "private_deployment_required", _("private deployment required")
    COMPLIANCE = "compliance_required", _("compliance or data-residency requirements")
    LOCALISATION = "localisation_required", _("localisation required")
    HYBRID = "plans_hybrid", _("combines several resource sources")


class Constraint(SignallingModel):
    """A hard requirement an evaluation can carry, and the catalog capabilities every candidate
    must have to meet it (seeded, admin-editable, like the shortlist rules).

    An evaluation carries it when its flag is set or any of its facts (context question keys) is
    answered yes: the create form's checkbox and the context question are one fact.
    """

    key = models.CharField(_("key"), max_length=60, unique=True, validators=[key_validator])
    order = models.PositiveSmallIntegerField(_("order"), default=0)
    name = models.CharField(_("name"), max_length=150)
    description = BoundedTextField(_("description"), blank=True)
    flag = models.CharField(
        _("evaluation flag"), max_length=40, choices=ConstraintFlag.choices, blank=True
    )
    facts = models.JSONField(
        _("context facts"),
        default=list,
        blank=True,
        help_text=_("Context question keys; any one answered yes carries the constraint."),
    )
    capabilities = models.ManyToManyField(
        Capability, related_name="constraints", verbose_name=_("capabilities that must hold")
    )
    checks_families = models.BooleanField(
        _("checks the named accelerator families"),
        default=False,
        help_text=_(
            "Also check each accelerator family the evaluation's context answers name (e.g. "
            "'Ascend 910B' in a detail) against the candidate's recorded support."
        ),
    )
    is_active = models.BooleanField(_("active"), default=True)

    class Meta:
        ordering = ["order", "pk"]
        verbose_name = _("hard constraint")
        verbose_name_plural = _("hard constraints")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        facts = self.facts
        if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
            raise ValidationError({"facts": _("Give a list of context question keys.")})
        unknown = sorted(set(facts) - set(ContextQuestion.objects.values_list("key", flat=True)))
        if unknown:
            raise ValidationError(
                {
                    "facts": _("Unknown context question(s): %(keys)s.")
                    % {"keys": ", ".join(unknown)}
                }
            )


class ContextAnswer(VersionedModel):
    evaluation = models.ForeignKey(
        Evaluation, on_delete=models.CASCADE, related_name="context_answers"
    )
    question = models.ForeignKey(
        ContextQuestion,
        on_delete=models.PROTECT,
        related_name="answers",
        verbose_name=_("question"),
    )
    value = models.CharField(
        _("answer"), max_length=10, choices=AnswerValue.choices, default=AnswerValue.UNKNOWN
    )
    detail = models.CharField(_("detail"), max_length=300, blank=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["question__order"]
        verbose_name = _("context answer")
        verbose_name_plural = _("context answers")
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "question"], name="context_answer_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(value__in=AnswerValue.values), name="context_answer_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.question.key}: {self.value}"
