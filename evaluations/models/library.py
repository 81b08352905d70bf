"""The seeded, admin-editable question libraries: the context questions (answered yes, no or
not sure yet) and the five pre-procurement questions (each with its answer scale)."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from common.fields import BoundedTextField
from common.querysets import SignallingModel
from common.validators import key_validator


class AnswerValue(models.TextChoices):
    YES = "yes", _("Yes")
    NO = "no", _("No")
    UNKNOWN = "unknown", _("Not sure yet")


class LibraryQuestion(SignallingModel):
    """A seeded, admin-editable question. Keys are stable: answers and rules refer to them."""

    key = models.CharField(_("key"), max_length=60, unique=True, validators=[key_validator])
    order = models.PositiveSmallIntegerField(_("order"), default=0)
    text = models.CharField(_("question"), max_length=300)
    help_text = BoundedTextField(_("help"), blank=True)
    is_active = models.BooleanField(_("active"), default=True)

    class Meta:
        abstract = True
        ordering = ["order", "pk"]

    def __str__(self) -> str:
        return self.text


class ContextQuestion(LibraryQuestion):
    """A question about the organisation's context; its key is what shortlist rules test."""

    detail_label = models.CharField(
        _("detail label"),
        max_length=120,
        blank=True,
        help_text=_("If set, a free-text detail is asked for, e.g. 'Which cloud?'."),
    )

    class Meta(LibraryQuestion.Meta):
        verbose_name = _("context question")
        verbose_name_plural = _("context questions")


class AnswerScale(models.TextChoices):
    """How a pre-procurement question is answered."""

    ASSESSMENT = "assessment", _("Yes / partly / no")
    PARTIES = "parties", _("Parties (who)")
    BUDGET = "budget", _("What the budget weighs more")


class FiveQuestion(LibraryQuestion):
    """One of the five pre-procurement questions (SPEC §1.5)."""

    scale = models.CharField(
        _("answer scale"),
        max_length=12,
        choices=AnswerScale.choices,
        default=AnswerScale.ASSESSMENT,
        help_text=_(
            "Parties: answered with who (several allowed); budget: with what the budget weighs "
            "more; otherwise yes / partly / no."
        ),
    )

    class Meta(LibraryQuestion.Meta):
        verbose_name = _("pre-procurement question")
        verbose_name_plural = _("pre-procurement questions")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(scale__in=["assessment", "parties", "budget"]),
                name="five_question_scale_valid",
            )
        ]
