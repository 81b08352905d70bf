"""A report's parts about the evaluation itself: its facts and members (meta), the solution
types with their candidates, the five questions' answers per candidate, and the risk reminders
(evaluations.reminders, every app's)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from common.placeholders import is_placeholder_url
from common.report_values import person

from ..models import AnswerScale, Assessment, BudgetFocus, ContextFact, Evaluation, MemberRole
from ..reminders import reminders_for
from ..selectors import EvaluationData


def meta_part(context) -> dict:
    """The evaluation's facts, the report's language and render time, and its members."""
    return _meta(context.data, context.members, context.language, context.generated_at)


def types_part(context) -> list[dict]:
    return _types(context.data)


def questions_part(context) -> list[dict]:
    """Each candidate's answers to the five questions; parties named as the report's parties."""
    return _questions(context.data, context.parties)


def reminders_part(context) -> list[dict]:
    return _reminders(context.data)


def _requirement_label(name: str):
    """A requirement's label: its field's, or its context fact's (models.ContextFact)."""
    attribute = getattr(Evaluation, name)
    if isinstance(attribute, ContextFact):
        return attribute.label
    return Evaluation._meta.get_field(name).verbose_name


def _meta(data: EvaluationData, members: list, language: str, generated_at: str) -> dict:
    e = data.evaluation
    constraints = [
        (field, getattr(e, field))
        for field in (
            "private_deployment_required",
            "compliance_required",
            "localisation_required",
            "plans_hybrid",
        )
    ]
    return {
        "evaluation_id": e.pk,
        "title": e.title,
        "organisation": e.organisation,
        "status": e.status,
        "status_label": str(e.get_status_display()),
        "scenarios": [s.name for s in sorted(e.scenarios.all(), key=lambda s: (s.order, s.pk))],
        "constraints": [
            {
                "key": field,
                "label": str(_requirement_label(field)),
                "required": bool(value),
            }
            for field, value in constraints
        ],
        "unified_view_owner": e.unified_view_owner,
        "notes": e.notes,
        "language": language,
        "generated_at": generated_at,
        "members": len(members),
        "owners": sorted(person(m.user) for m in members if m.role == MemberRole.OWNER),
    }


def _types(data: EvaluationData) -> list[dict]:
    return [
        {
            "slug": t.slug,
            "name": t.name,
            "fits": t.fits,
            "boundary": t.boundary,
            "candidates": [c.name for c in candidates],
        }
        for t, candidates in data.types()
    ]


def _answer(question, a, party_names: dict[str, str]) -> dict:
    """One answer in the snapshot: every part, and the scale's part in words (answer_label)."""
    assessment = a.assessment if a else Assessment.UNKNOWN
    budget = a.budget if a else BudgetFocus.UNKNOWN
    parties = list(a.parties) if a else []
    names = [party_names.get(k, k) for k in parties]
    if question.scale == AnswerScale.PARTIES:
        label = pgettext("list separator", ", ").join(names)
    elif question.scale == AnswerScale.BUDGET:
        label = str(BudgetFocus(budget).label)
    else:
        label = str(Assessment(assessment).label)
    return {
        "key": question.key,
        "question": question.text,
        "scale": question.scale,
        "parties": parties,
        "party_names": names,
        "budget": budget,
        "budget_label": str(BudgetFocus(budget).label),
        "assessment": assessment,
        "assessment_label": str(Assessment(assessment).label),
        "answer_label": label,
        "explanation": a.explanation if a else "",
        "evidence_url": a.evidence_url if a else "",
        "evidence_placeholder": bool(a and is_placeholder_url(a.evidence_url)),
        "complete": bool(a and a.is_complete),
        "missing": a.missing_parts() if a else [],
    }


def _questions(data: EvaluationData, parties: list) -> list[dict]:
    party_names = {p.key: p.name for p in parties}
    out = []
    for progress in data.progress():
        c = progress.candidate
        by_question = {a.question_id: a for a in c.answers.all()}
        answers = [_answer(q, by_question.get(q.pk), party_names) for q in data.questions]
        out.append(
            {
                "slug": c.solution.slug,
                "name": c.name,
                "answered": progress.answered,
                "total": progress.total,
                "answers": answers,
            }
        )
    return out


def _reminders(data: EvaluationData) -> list[dict]:
    severity = {"high": _("High"), "medium": _("Medium")}
    return [
        {
            "key": r.key,
            "severity": r.severity,
            "severity_label": severity.get(r.severity, r.severity),
            "title": r.title,
            "why": r.why,
        }
        for r in reminders_for(data)
    ]
