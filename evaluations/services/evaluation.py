"""Creating and changing an evaluation: its fields, its context answers (a requirement box is
one of them, `models.FACT_FLAGS`) and the type that carries the main responsibility."""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from catalog.models import Scenario, SolutionType
from common.concurrency import bump, lock_and_check, lock_or_new
from common.exceptions import Forbidden
from common.history import save_as

from ..models import (
    FACT_FLAGS,
    AnswerValue,
    ContextAnswer,
    ContextQuestion,
    Evaluation,
    MemberRole,
    Membership,
)
from .checks import clean_text, evaluation_require_editable

EVALUATION_FIELDS = (
    "title",
    "organisation",
    "private_deployment_required",
    "compliance_required",
    "localisation_required",
    "plans_hybrid",
    "unified_view_owner",
    "notes",
)


def _validate_scenarios(scenarios: Iterable[Scenario]) -> list[Scenario]:
    scenarios = list(scenarios)
    if not scenarios:
        raise ValidationError({"scenarios": _("Choose at least one primary scenario.")})
    return scenarios


@transaction.atomic
def evaluation_create(*, user, title: str, organisation: str, scenarios, **fields) -> Evaluation:
    """Create an evaluation; its creator becomes the owner."""
    if not user.has_perm("evaluations.add_evaluation"):
        raise Forbidden(_("Only tech leads and admins create evaluations."))
    unknown = sorted(set(fields) - set(EVALUATION_FIELDS))
    if unknown:
        raise ValidationError({name: _("This field cannot be set here.") for name in unknown})
    facts = _split_facts(fields)
    evaluation = Evaluation(
        title=clean_text(title),
        organisation=clean_text(organisation),
        created_by=user,
        **{k: clean_text(v) if isinstance(v, str) else v for k, v in fields.items()},
    )
    scenarios = _validate_scenarios(scenarios)
    evaluation.full_clean()
    save_as(evaluation, user)
    evaluation.scenarios.set(scenarios)
    save_as(Membership(evaluation=evaluation, user=user, role=MemberRole.OWNER), user)
    _facts_save(evaluation, user, facts)
    return evaluation


def _split_facts(fields: dict) -> dict[str, bool]:
    """Take the requirements that are context answers (models.FACT_FLAGS) out of `fields`."""
    facts = {name: fields.pop(name) for name in FACT_FLAGS if name in fields}
    for name, value in facts.items():
        if not isinstance(value, bool):
            raise ValidationError({name: _("Give true or false.")})
    return facts


def _facts_save(evaluation: Evaluation, user, facts: dict[str, bool]) -> None:
    """A requirement box and its context question are one fact, stored as the answer: a ticked
    box answers yes; a cleared box turns a yes into no (an unanswered question or a "not sure
    yet" stays as it is, since clearing the box does not answer it)."""
    for name, required in facts.items():
        question = ContextQuestion.objects.filter(key=FACT_FLAGS[name]).first()
        answer = None
        if question is not None:
            answer = (
                ContextAnswer.objects.select_for_update()
                .filter(evaluation=evaluation, question=question)
                .first()
            )
        current = answer.value if answer is not None else None
        if required and current != AnswerValue.YES:
            value = AnswerValue.YES
        elif not required and current == AnswerValue.YES:
            value = AnswerValue.NO
        else:
            continue
        if question is None:
            raise ValidationError(
                {name: _("The context question this requirement answers is not installed.")}
            )
        answer = answer or ContextAnswer(evaluation=evaluation, question=question, version=0)
        bump(answer)
        answer.value = value
        answer.updated_by = user
        answer.full_clean()
        save_as(answer, user)


@transaction.atomic
def evaluation_update(
    *, user, evaluation: Evaluation, expected_version: int | None, scenarios=None, **fields
) -> Evaluation:
    evaluation_require_editable(user, evaluation)
    evaluation = lock_and_check(Evaluation, pk=evaluation.pk, expected_version=expected_version)
    for name in fields:
        if name not in EVALUATION_FIELDS:
            raise ValidationError({name: _("This field cannot be changed here.")})
    facts = _split_facts(fields)
    for name, value in fields.items():
        setattr(evaluation, name, clean_text(value) if isinstance(value, str) else value)
    evaluation.full_clean()
    bump(evaluation)
    save_as(evaluation, user)
    if scenarios is not None:
        evaluation.scenarios.set(_validate_scenarios(scenarios))
    _facts_save(evaluation, user, facts)
    return evaluation


@transaction.atomic
def evaluation_type_decide(
    *,
    user,
    evaluation: Evaluation,
    solution_type: SolutionType | None,
    reason: str,
    expected_version: int | None,
) -> Evaluation:
    """Record which type of solution carries the main responsibility, and why (or clear it)."""
    evaluation_require_editable(user, evaluation)
    evaluation = lock_and_check(Evaluation, pk=evaluation.pk, expected_version=expected_version)
    reason = clean_text(reason, (Evaluation, "main_type_reason", "reason"))
    if solution_type is not None and not reason:
        raise ValidationError(
            {"reason": _("Say why this type should carry the main responsibility.")}
        )
    evaluation.main_type = solution_type
    evaluation.main_type_reason = reason if solution_type is not None else ""
    evaluation._change_reason = reason
    bump(evaluation)
    save_as(evaluation, user)
    return evaluation


@transaction.atomic
def context_answer_save(
    *,
    user,
    evaluation: Evaluation,
    question: ContextQuestion,
    value: str,
    detail: str = "",
    expected_version: int | None,
) -> ContextAnswer:
    """Create or update one context answer. `expected_version` 0 means "I saw no answer yet"."""
    evaluation_require_editable(user, evaluation)
    if value not in AnswerValue.values:
        raise ValidationError({"value": _("Answer yes, no or not sure yet.")})
    answer = lock_or_new(
        ContextAnswer, expected_version=expected_version, evaluation=evaluation, question=question
    )
    bump(answer)
    answer.value = value
    answer.detail = clean_text(detail)
    answer.updated_by = user
    answer.full_clean()
    save_as(answer, user)
    return answer
