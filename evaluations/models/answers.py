"""Each candidate's answers to the five pre-procurement questions."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from common.concurrency import VersionedModel
from common.fields import LONG_TEXT, BoundedTextField
from common.validators import no_hidden_characters

from ..answer_scales import missing_parts
from .candidates import Candidate
from .library import FiveQuestion


class Assessment(models.TextChoices):
    YES = "yes", _("Yes")
    PARTLY = "partly", _("Partly")
    NO = "no", _("No")
    UNKNOWN = "unknown", _("Unknown")


class BudgetFocus(models.TextChoices):
    SOFTWARE = "software", _("The software purchase")
    PEOPLE = "people", _("Long-term people and stability")
    BOTH = "both", _("Both equally")
    UNKNOWN = "unknown", _("Unknown")


class QuestionAnswer(VersionedModel):
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="answers")
    question = models.ForeignKey(
        FiveQuestion, on_delete=models.PROTECT, related_name="answers", verbose_name=_("question")
    )
    # Who-questions: the keys of the parties named, each one of the evaluation's parties (the
    # shared ones and its own, responsibility.Party), in the order given.
    parties = models.JSONField(_("who"), default=list, blank=True)
    assessment = models.CharField(
        _("assessment"), max_length=10, choices=Assessment.choices, default=Assessment.UNKNOWN
    )
    budget = models.CharField(
        _("the budget weighs more"),
        max_length=10,
        choices=BudgetFocus.choices,
        default=BudgetFocus.UNKNOWN,
    )
    explanation = BoundedTextField(_("explanation"), max_length=LONG_TEXT, blank=True)
    evidence_url = models.URLField(
        _("evidence link"), max_length=500, blank=True, validators=[no_hidden_characters]
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["candidate", "question__order"]
        verbose_name = _("answer")
        verbose_name_plural = _("answers")
        constraints = [
            models.UniqueConstraint(
                fields=["candidate", "question"], name="question_answer_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(assessment__in=Assessment.values)
                & models.Q(budget__in=BudgetFocus.values),
                name="question_answer_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.candidate} · {self.question.key}"

    def missing_parts(self) -> list[str]:
        """What still keeps this answer from counting as complete (empty list: complete); what
        counts follows the question's scale (`answer_scales.missing_parts`)."""
        return missing_parts(
            self.question.scale,
            parties=self.parties,
            assessment=self.assessment,
            budget=self.budget,
            explanation=self.explanation,
        )

    @property
    def is_complete(self) -> bool:
        return not self.missing_parts()
