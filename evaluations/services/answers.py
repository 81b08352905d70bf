"""Answers to the five pre-procurement questions, one candidate and question at a time."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from common.concurrency import bump, lock_or_new
from common.exceptions import Conflict
from common.history import save_as

from ..answer_scales import clean_parties, party_choices
from ..models import (
    AnswerScale,
    Assessment,
    BudgetFocus,
    Candidate,
    CandidateStatus,
    FiveQuestion,
    QuestionAnswer,
)
from .checks import clean_text, evaluation_require_editable


@transaction.atomic
def answer_save(
    *,
    user,
    candidate: Candidate,
    question: FiveQuestion,
    parties: list[str] | None = None,
    assessment: str = Assessment.UNKNOWN,
    budget: str = BudgetFocus.UNKNOWN,
    explanation: str,
    evidence_url: str = "",
    expected_version: int | None,
) -> QuestionAnswer:
    """Create or update one candidate's answer to one question (0 = "I saw no answer yet").

    What the answer holds follows the question's scale: the parties of a who-question (keys of
    this evaluation's parties), the budget's weight, or yes / partly / no. Parts outside the
    scale are validated like the rest, then stored blank (they would say nothing).
    """
    evaluation_require_editable(user, candidate.evaluation)
    if candidate.status != CandidateStatus.SHORTLISTED:
        raise Conflict(_("%(s)s is eliminated; restore it first.") % {"s": candidate.name})
    errors = {}
    try:
        parties = clean_parties(parties, party_choices(candidate.evaluation))
    except ValidationError as error:
        errors.update(error.message_dict)
    if assessment not in Assessment.values:
        errors["assessment"] = _("Choose yes, partly, no or unknown.")
    if budget not in BudgetFocus.values:
        errors["budget"] = _("Choose what the budget weighs more: %(choices)s.") % {
            "choices": ", ".join(BudgetFocus.values)
        }
    if errors:
        raise ValidationError(errors)
    answer = lock_or_new(
        QuestionAnswer, expected_version=expected_version, candidate=candidate, question=question
    )
    bump(answer)
    answer.parties = parties if question.scale == AnswerScale.PARTIES else []
    answer.assessment = (
        assessment if question.scale == AnswerScale.ASSESSMENT else Assessment.UNKNOWN
    )
    answer.budget = budget if question.scale == AnswerScale.BUDGET else BudgetFocus.UNKNOWN
    answer.explanation = clean_text(explanation)
    answer.evidence_url = clean_text(evidence_url)
    answer.updated_by = user
    answer.full_clean()
    save_as(answer, user)
    return answer
