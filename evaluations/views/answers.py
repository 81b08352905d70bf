"""The context and five-questions pages, whose rows save one at a time (inline, with htmx)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views import View

from common.views import PageAction

from .. import services
from ..answer_scales import party_choices
from ..forms import AnswerForm, ContextAnswerForm
from ..models import CandidateStatus, ContextQuestion, FiveQuestion
from ..scoped import EvaluationMixin
from ..selectors import (
    active_context_questions,
    active_five_questions,
    answers_prefetch,
    candidate_get,
)


class InlineRowAction(EvaluationMixin, PageAction, View):
    """An inline save of one row (a context answer, a five-question answer). With htmx, success
    answers only the row's state, version and the status strip, so nothing the user is still
    typing elsewhere in the row is overwritten; a refusal swaps the whole row to show the
    messages and the saved values."""

    success_message = gettext_lazy("Saved.")

    def success(self, result):
        if getattr(self.request, "htmx", False):
            row = self.row_for(result, saved=True)
            return self.respond("evaluations/partials/row_saved.html", {"row": row}, 200)
        return super().success(result)


class ContextView(EvaluationMixin, View):
    tab = "context"

    def get(self, request, pk):
        answers = {a.question_id: a for a in self.evaluation.context_answers.all()}
        rows = [context_row(q, answers.get(q.pk)) for q in active_context_questions()]
        return self.render("evaluations/context.html", rows=rows)


def context_row(question, answer, **extra):
    form = ContextAnswerForm(
        initial={
            "value": answer.value if answer else "unknown",
            "detail": answer.detail if answer else "",
            "version": answer.version if answer else 0,
        },
        prefix=question.key,
    )
    return {"question": question, "answer": answer, "form": form, **extra}


class ContextAnswerView(InlineRowAction):
    """Saves one context answer (htmx: the row; without htmx: redirects to the page)."""

    template_name = "evaluations/context.html"
    partial_template_name = "evaluations/partials/context_row.html"

    def dispatch(self, request, *args, **kwargs):
        self.key = kwargs["key"]
        return super().dispatch(request, *args, **kwargs)

    @property
    def question(self):
        return get_object_or_404(ContextQuestion, key=self.key, is_active=True)

    def get_form(self, data=None, files=None, **kwargs):
        return ContextAnswerForm(data, prefix=self.key)

    def form_for_saved(self, obj):
        return context_row(self.question, obj)["form"]

    def row_for(self, answer, **extra):
        return context_row(self.question, answer, **extra)

    def context(self, form, error=None, current=None, **extra):
        row = {"question": self.question, "form": form, "answer": current, "error": error}
        return {"row": row, "rows": [row], **extra}

    def perform(self, form):
        return services.context_answer_save(
            user=self.request.user,
            evaluation=self.evaluation,
            question=self.question,
            value=form.cleaned_data["value"],
            detail=form.cleaned_data["detail"],
            expected_version=form.cleaned_data["version"],
        )

    def htmx_target(self):
        return f"#ctx-{self.key}"

    def success_url(self):
        return reverse("evaluations:evaluation_context", kwargs={"pk": self.evaluation.pk})


class QuestionsView(EvaluationMixin, View):
    tab = "questions"
    page_cache = True

    def get(self, request, pk):
        # Only the shortlisted candidates and their answers: not what reminders read.
        questions = active_five_questions()
        shortlisted = (
            self.evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED)
            .select_related("solution__solution_type")
            .prefetch_related(answers_prefetch(), "layers__solution")
        )
        parties = party_choices(self.evaluation)
        cards = []
        for candidate in shortlisted:
            answers = {a.question_id: a for a in candidate.answers.all()}
            rows = [answer_row(candidate, q, answers.get(q.pk), parties) for q in questions]
            done = sum(1 for r in rows if r["answer"] and r["answer"].is_complete)
            cards.append({"candidate": candidate, "rows": rows, "done": done})
        return self.render("evaluations/questions.html", cards=cards, questions=questions)


def answered_count(candidate) -> tuple[int, int]:
    """How many of the active five questions this candidate has complete answers for."""
    questions = active_five_questions()
    answers = candidate.answers.filter(question__in=questions).select_related("question")
    return sum(1 for a in answers if a.is_complete), len(questions)


def answer_row(candidate, question, answer, parties, **extra):
    """One question's row for one candidate; `parties`: the evaluation's, as (key, name)."""
    initial = {"version": 0, "assessment": "unknown", "budget": "unknown"}
    if answer is not None:
        initial = {
            "parties": answer.parties,
            "assessment": answer.assessment,
            "budget": answer.budget,
            "explanation": answer.explanation,
            "evidence_url": answer.evidence_url,
            "version": answer.version,
        }
    form = AnswerForm(
        initial=initial,
        prefix=f"c{candidate.pk}-{question.key}",
        scale=question.scale,
        parties=parties,
    )
    return {"candidate": candidate, "question": question, "answer": answer, "form": form, **extra}


class AnswerView(InlineRowAction):
    """Saves one of the five questions for one candidate."""

    template_name = "evaluations/partials/answer_row.html"
    partial_template_name = "evaluations/partials/answer_row.html"

    def dispatch(self, request, *args, **kwargs):
        self.cid, self.key = kwargs["cid"], kwargs["key"]
        return super().dispatch(request, *args, **kwargs)

    @property
    def target(self):
        if not hasattr(self, "_target"):
            self._target = (
                candidate_get(self.evaluation, self.cid),
                get_object_or_404(FiveQuestion, key=self.key, is_active=True),
            )
        return self._target

    @property
    def parties(self):
        if not hasattr(self, "_parties"):
            self._parties = party_choices(self.evaluation)
        return self._parties

    def get_form(self, data=None, files=None, **kwargs):
        candidate, question = self.target
        return AnswerForm(
            data,
            prefix=f"c{candidate.pk}-{question.key}",
            scale=question.scale,
            parties=self.parties,
        )

    def form_for_saved(self, obj):
        return self.row_for(obj)["form"]

    def row_for(self, answer, **extra):
        candidate, question = self.target
        return answer_row(candidate, question, answer, self.parties, **extra)

    def success(self, result):
        response = super().success(result)
        if getattr(self.request, "htmx", False):  # the card's "n / 5" follows the save
            candidate, _question = self.target
            done, total = answered_count(candidate)
            response.write(
                render_to_string(
                    "evaluations/partials/answer_progress.html",
                    {"candidate": candidate, "done": done, "total": total, "oob": True},
                    request=self.request,
                )
            )
        return response

    def context(self, form, error=None, current=None, **extra):
        candidate, question = self.target
        row = {
            "candidate": candidate,
            "question": question,
            "form": form,
            "answer": current,
            "error": error,
        }
        return {"row": row, **extra}

    def perform(self, form):
        candidate, question = self.target
        data = form.cleaned_data
        return services.answer_save(
            user=self.request.user,
            candidate=candidate,
            question=question,
            **form.answer_values(),
            explanation=data["explanation"],
            evidence_url=data["evidence_url"],
            expected_version=data["version"],
        )

    def htmx_target(self):
        candidate, question = self.target
        return f"#answer-{candidate.pk}-{question.key}"

    def success_url(self):
        return reverse("evaluations:evaluation_questions", kwargs={"pk": self.evaluation.pk})
