"""Evaluation pages. Views parse input and call services; every page is members-only (404).
Every write goes through common.views.PageAction, which maps the services' errors and answers
htmx the same way on every page."""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views import View
from django.views.generic import TemplateView

from common.views import PageAction

from . import extensions, services
from .answer_scales import party_choices
from .filters import EvaluationFilterSet
from .forms import (
    AnswerForm,
    ContextAnswerForm,
    DecisionForm,
    EvaluationForm,
    TransitionForm,
)
from .history import history_entries, history_timeline
from .models import (
    FACT_FLAGS,
    TRANSITIONS,
    CandidateStatus,
    ContextQuestion,
    FiveQuestion,
    Status,
)
from .rows import evaluation_list_queryset, evaluation_rows
from .scoped import EvaluationMixin
from .selectors import (
    active_context_questions,
    active_five_questions,
    answers_prefetch,
    candidate_get,
    evaluation_data,
)

HOME_EVALUATIONS = 10  # the home page lists this many of my most recently changed evaluations
LIST_PAGE_SIZE = 20  # rows per page of the evaluation list


def gate_groups(items: list) -> list[dict]:
    """The decided gate's (item, link) pairs grouped by their heading, in order of first
    appearance: each group with its items, how many, its note and where to start fixing it."""
    groups: dict = {}
    for item, link in items:
        group = groups.setdefault(
            str(item.group), {"label": item.group, "note": item.note, "link": link, "items": []}
        )
        group["items"].append((item, link))
    return list(groups.values())


class HomeView(LoginRequiredMixin, TemplateView):
    """Each user's start page: the panels other apps add (evaluations.extensions), their latest
    evaluations (with status, progress, reminders) and a link to all of them, then tools."""

    template_name = "home.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        user = self.request.user
        qs = evaluation_list_queryset(user)
        ctx["rows"] = evaluation_rows(user, qs[:HOME_EVALUATIONS])
        ctx["evaluation_count"] = (
            len(ctx["rows"]) if len(ctx["rows"]) < HOME_EVALUATIONS else qs.count()
        )
        ctx["can_create"] = user.has_perm("evaluations.add_evaluation")
        return ctx


class EvaluationListView(LoginRequiredMixin, View):
    """Every evaluation the user is a member of, filtered by status or text, a page at a time."""

    def get(self, request):
        user = request.user
        filters = EvaluationFilterSet(request.GET, queryset=evaluation_list_queryset(user))
        qs = filters.qs if filters.is_valid() else filters.queryset.none()
        page = Paginator(qs, LIST_PAGE_SIZE).get_page(request.GET.get("page"))
        query = request.GET.copy()
        query.pop("page", None)
        context = {
            "rows": evaluation_rows(user, page.object_list),
            "page": page,
            "filters": filters,
            "query": query.urlencode(),
            "can_create": user.has_perm("evaluations.add_evaluation"),
        }
        return render(request, "evaluations/evaluation_list.html", context)


class EvaluationCreateView(LoginRequiredMixin, PageAction, View):
    template_name = "evaluations/evaluation_form.html"
    form_class = EvaluationForm
    success_message = gettext_lazy("Evaluation created. Next: answer the context.")

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and not request.user.has_perm(
            "evaluations.add_evaluation"
        ):
            raise PermissionDenied
        return super().dispatch(request, *args, **kwargs)

    def get_form(self, data=None, files=None, **kwargs):
        form = super().get_form(data, files, **kwargs)
        del form.fields["version"]  # nothing saved yet that another editor could change
        return form

    def context(self, form, **extra):
        return {"form": form, "creating": True, **extra}

    def get(self, request):
        return self.answer(self.context(self.get_form()))

    def perform(self, form):
        return services.evaluation_create(user=self.request.user, **form.cleaned_data)

    def success_url(self):
        return reverse("evaluations:evaluation_context", kwargs={"pk": self.result.pk})

    def success(self, result):
        self.result = result
        return super().success(result)


class EvaluationDetailView(EvaluationMixin, PageAction, View):
    """The overview; its form moves the status (the decided gate lists what is missing)."""

    tab = "overview"
    page_cache = True
    template_name = "evaluations/evaluation_detail.html"
    form_class = TransitionForm
    errors_as_message = True
    success_message = gettext_lazy("Status changed.")
    lists_reminders = True

    def page_data(self):
        # Reminders come stored with the strip, or were counted from all the data just now.
        if getattr(self, "_data", None) is not None:
            return self._data
        return evaluation_data(self.evaluation, viewer=self.request.user, light=True)

    def context(self, form, error=None, domain_error=None, **extra):
        targets = sorted(TRANSITIONS[Status(self.evaluation.status)], key=list(Status).index)
        return {
            "targets": [Status(t) for t in targets],
            "sealed": self.evaluation.is_sealed,
            "error": error,
            "gate_groups": gate_groups(
                [(item, self.gate_link(item)) for item in getattr(domain_error, "missing", ())]
            ),
            # Only open POC cells left: the owner may decide anyway with a reason (poc.gate).
            "gate_reason": bool(getattr(domain_error, "missing", ()))
            and all(item.place == "poc" for item in domain_error.missing)
            and self.request.user.has_perm("evaluations.waive_constraint", self.evaluation),
            **extra,
        }

    def gate_link(self, item) -> str:
        """Where a missing item of the decided gate is put right."""
        pk = self.evaluation.pk
        if item.place == "questions":
            url = reverse("evaluations:evaluation_questions", kwargs={"pk": pk})
            return f"{url}#answer-{item.where['candidate']}-{item.where['question']}"
        contributed = extensions.gate_link(self.evaluation, item)  # another app's item
        if contributed:
            return contributed
        if item.place == "shortlist":
            return reverse("evaluations:evaluation_shortlist", kwargs={"pk": pk})
        return reverse("evaluations:evaluation_decision", kwargs={"pk": pk})

    def get(self, request, pk):
        return self.answer(self.context(self.get_form()))

    def perform(self, form):
        return services.evaluation_transition(
            user=self.request.user,
            evaluation=self.evaluation,
            to_status=form.cleaned_data["status"],
            reason=form.cleaned_data["reason"],
        )

    def success_url(self):
        return self.evaluation.get_absolute_url()


class EvaluationEditView(EvaluationMixin, PageAction, View):
    tab = "overview"
    template_name = "evaluations/evaluation_form.html"
    form_class = EvaluationForm
    success_message = gettext_lazy("Saved.")

    def form_kwargs(self):
        return {"instance": self.evaluation}

    def form_for_saved(self, obj):
        return EvaluationForm(instance=obj, initial={"version": obj.version})

    def get(self, request, pk):
        return self.answer({"form": self.form_for_saved(self.evaluation)})

    def perform(self, form):
        unchanged = set(FACT_FLAGS) - set(form.changed_facts())
        data = {k: v for k, v in form.cleaned_data.items() if k != "version" and k not in unchanged}
        return services.evaluation_update(
            user=self.request.user,
            evaluation=self.evaluation,
            expected_version=form.cleaned_data["version"],
            **data,
        )

    def success_url(self):
        return self.evaluation.get_absolute_url()


# --- inline rows -----------------------------------------------------------------------------


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


# --- decision --------------------------------------------------------------------------------


class DecisionView(EvaluationMixin, PageAction, View):
    tab = "decision"
    template_name = "evaluations/decision.html"
    form_class = DecisionForm
    success_message = gettext_lazy("Decision record saved.")

    def form_kwargs(self):
        return {"evaluation": self.evaluation}

    def form_for_saved(self, decision):
        initial = {"version": 0}
        if decision is not None:
            initial = {
                "chosen": list(decision.chosen.all()),
                "rationale": decision.rationale,
                "decided_on": decision.decided_on,
                "decided_by": decision.decided_by,
                "version": decision.version,
            }
        return DecisionForm(initial=initial, evaluation=self.evaluation)

    def context(self, form, **extra):
        return {"form": form, "decision": getattr(self.evaluation, "decision", None), **extra}

    def get(self, request, pk):
        decision = getattr(self.evaluation, "decision", None)
        return self.answer(self.context(self.form_for_saved(decision)))

    def perform(self, form):
        data = form.cleaned_data
        return services.decision_save(
            user=self.request.user,
            evaluation=self.evaluation,
            chosen=data["chosen"],
            rationale=data["rationale"],
            decided_on=data["decided_on"],
            decided_by=data["decided_by"],
            expected_version=data["version"],
        )


class HistoryView(EvaluationMixin, View):
    tab = "history"
    page_cache = True

    def get(self, request, pk):
        page = Paginator(history_timeline(self.evaluation), 50).get_page(request.GET.get("page"))
        entries = history_entries(self.evaluation, page.object_list)
        return self.render("evaluations/history.html", entries=entries, page=page)
