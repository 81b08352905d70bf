"""Evaluation pages. Views parse input and call services; every page is members-only (404)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views import View
from django.views.generic import TemplateView

from common.exceptions import DomainError, Forbidden, StaleEdit

from . import services
from .forms import (
    AddCandidateForm,
    AnswerForm,
    ContextAnswerForm,
    DecisionForm,
    EliminateForm,
    EvaluationForm,
    MemberAddForm,
    MemberRoleForm,
    RestoreForm,
)
from .history import history_entries, history_timeline
from .models import (
    TRANSITIONS,
    ContextQuestion,
    FiveQuestion,
    MemberRole,
    Membership,
    Status,
)
from .reminders import reminders_for
from .rules import member_role
from .selectors import (
    active_context_questions,
    candidate_get,
    evaluation_data,
    evaluation_data_list,
    evaluation_get_for_user,
    shortlist_suggest,
)
from .tabs import TABS


def form_errors_from(form, exc: ValidationError) -> None:
    """Attach a service's ValidationError to the form (unknown fields become form errors)."""
    if hasattr(exc, "error_dict"):
        for name, errors in exc.message_dict.items():
            form.add_error(name if name in form.fields else None, errors)
    else:
        form.add_error(None, exc.messages)


class HomeView(LoginRequiredMixin, TemplateView):
    """Each user's start page: their evaluations (with status, progress, reminders), then tools."""

    template_name = "home.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        user = self.request.user
        ctx["rows"] = [(d, reminders_for(d)) for d in evaluation_data_list(user)]
        ctx["can_create"] = user.has_perm("evaluations.add_evaluation")
        return ctx


class EvaluationListView(LoginRequiredMixin, View):
    def get(self, request):
        rows = [(d, reminders_for(d)) for d in evaluation_data_list(request.user)]
        return render(
            request,
            "evaluations/evaluation_list.html",
            {"rows": rows, "can_create": request.user.has_perm("evaluations.add_evaluation")},
        )


class EvaluationCreateView(LoginRequiredMixin, View):
    template_name = "evaluations/evaluation_form.html"

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and not request.user.has_perm(
            "evaluations.add_evaluation"
        ):
            raise PermissionDenied
        return super().dispatch(request, *args, **kwargs)

    def get(self, request):
        return render(request, self.template_name, {"form": EvaluationForm(), "creating": True})

    def post(self, request):
        form = EvaluationForm(request.POST)
        if form.is_valid():
            data = {k: v for k, v in form.cleaned_data.items() if k != "version"}
            try:
                evaluation = services.evaluation_create(user=request.user, **data)
            except ValidationError as exc:
                form_errors_from(form, exc)
            else:
                messages.success(request, _("Evaluation created. Next: answer the context."))
                return redirect("evaluations:evaluation_context", pk=evaluation.pk)
        return render(request, self.template_name, {"form": form, "creating": True}, status=400)


class EvaluationMixin(LoginRequiredMixin):
    """Loads the evaluation for a member (404 otherwise) and the flags templates need."""

    tab = ""

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        self.evaluation = evaluation_get_for_user(request.user, kwargs["pk"])
        return super().dispatch(request, *args, **kwargs)

    @property
    def data(self):
        """Everything the status strip, overview and reminders read (fixed query count)."""
        if getattr(self, "_data", None) is None:
            self._data = evaluation_data(self.evaluation)
        return self._data

    def refresh_data(self):
        self._data = None
        return self.data

    def base_context(self, **extra):
        user, e = self.request.user, self.evaluation
        answered, total = self.data.progress_totals()
        ctx = {
            "data": self.data,
            "answered": answered,
            "total": total,
            "reminders": reminders_for(self.data),
            "evaluation": e,
            "tab": self.tab,
            "my_role": member_role(user, e),
            "my_role_label": MemberRole(member_role(user, e)).label,
            "can_edit": user.has_perm("evaluations.change_evaluation", e),
            "can_manage": user.has_perm("evaluations.manage_members", e),
            "can_change_status": user.has_perm("evaluations.change_status", e),
            "can_reopen": user.has_perm("evaluations.reopen_evaluation", e),
            "extra_tabs": [
                {
                    "key": t.key,
                    "label": t.label,
                    "url": reverse(t.url_name, kwargs={"pk": e.pk}),
                }
                for t in TABS
            ],
        }
        ctx.update(extra)
        return ctx

    def render(self, template, status=200, **extra):
        return render(self.request, template, self.base_context(**extra), status=status)

    def row_response(self, status: int, row: dict, full_template: str, row_selector: str):
        """Inline saves: on success only the row's state, version and the status strip change,
        so nothing the user is still typing elsewhere in the row is overwritten. On an error or
        a conflict the whole row is swapped to show the messages and the saved values."""
        if status == 200:
            return self.render("evaluations/partials/row_saved.html", row=row)
        response = self.render(full_template, status=status, row=row)
        response["HX-Retarget"] = row_selector
        response["HX-Reswap"] = "outerHTML"
        return response

    def fail(self, exc: DomainError, template: str, **extra):
        return self.render(template, status=exc.status_code, error=exc.message, **extra)


class EvaluationDetailView(EvaluationMixin, View):
    tab = "overview"

    def overview(self, status=200, **extra):
        targets = sorted(TRANSITIONS[Status(self.evaluation.status)], key=list(Status).index)
        return self.render(
            "evaluations/evaluation_detail.html",
            status=status,
            targets=[Status(t) for t in targets],
            sealed=self.evaluation.is_sealed,
            **extra,
        )

    def get(self, request, pk):
        return self.overview()

    def post(self, request, pk):
        """Status transitions (the form on the overview)."""
        target = request.POST.get("status", "")
        try:
            services.evaluation_transition(
                user=request.user,
                evaluation=self.evaluation,
                to_status=target,
                reason=request.POST.get("reason", ""),
            )
        except services.GateRefused as exc:
            return self.overview(status=409, error=exc.message, gate_missing=exc.missing)
        except DomainError as exc:
            return self.overview(status=exc.status_code, error=exc.message)
        except ValidationError as exc:
            return self.overview(status=400, error=" ".join(exc.messages))
        messages.success(request, _("Status changed."))
        return redirect(self.evaluation)


class EvaluationEditView(EvaluationMixin, View):
    tab = "overview"
    template = "evaluations/evaluation_form.html"

    def get(self, request, pk):
        form = EvaluationForm(
            instance=self.evaluation, initial={"version": self.evaluation.version}
        )
        return self.render(self.template, form=form)

    def post(self, request, pk):
        form = EvaluationForm(request.POST, instance=self.evaluation)
        if form.is_valid():
            data = {k: v for k, v in form.cleaned_data.items() if k != "version"}
            try:
                services.evaluation_update(
                    user=request.user,
                    evaluation=self.evaluation,
                    expected_version=form.cleaned_data["version"],
                    **data,
                )
            except StaleEdit as exc:
                fresh = EvaluationForm(
                    instance=exc.current, initial={"version": exc.current.version}
                )
                return self.render(self.template, status=409, form=fresh, error=exc.message)
            except DomainError as exc:
                return self.fail(exc, self.template, form=form)
            except ValidationError as exc:
                form_errors_from(form, exc)
            else:
                messages.success(request, _("Saved."))
                return redirect(self.evaluation)
        return self.render(self.template, status=400, form=form)


class ContextView(EvaluationMixin, View):
    tab = "context"

    def rows(self, overrides=None):
        answers = {a.question_id: a for a in self.evaluation.context_answers.all()}
        rows = []
        for q in active_context_questions():
            a = answers.get(q.pk)
            form = ContextAnswerForm(
                initial={
                    "value": a.value if a else "unknown",
                    "detail": a.detail if a else "",
                    "version": a.version if a else 0,
                },
                prefix=q.key,
            )
            rows.append({"question": q, "answer": a, "form": form})
        if overrides:
            for row in rows:
                row.update(overrides.get(row["question"].key, {}))
        return rows

    def get(self, request, pk):
        return self.render("evaluations/context.html", rows=self.rows())


class ContextAnswerView(EvaluationMixin, View):
    """Saves one context answer (htmx: returns the row; without htmx: redirects)."""

    def post(self, request, pk, key):
        question = get_object_or_404(ContextQuestion, key=key, is_active=True)
        form = ContextAnswerForm(request.POST, prefix=key)
        row = {"question": question, "form": form, "answer": None}
        status = 200
        if form.is_valid():
            try:
                answer = services.context_answer_save(
                    user=request.user,
                    evaluation=self.evaluation,
                    question=question,
                    value=form.cleaned_data["value"],
                    detail=form.cleaned_data["detail"],
                    expected_version=form.cleaned_data["version"],
                )
            except StaleEdit as exc:
                row.update(self._fresh(exc.current, key), error=exc.message)
                status = 409
            except DomainError as exc:
                row["error"], status = exc.message, exc.status_code
            except ValidationError as exc:
                form_errors_from(form, exc)
                status = 400
            else:
                row.update(self._fresh(answer, key), saved=True)
        else:
            status = 400
        if not request.htmx:
            if status == 200:
                messages.success(request, _("Saved."))
                return redirect("evaluations:evaluation_context", pk=pk)
            return self.render("evaluations/context.html", status=status, rows=[row])
        return self.row_response(
            status, row, "evaluations/partials/context_row.html", f"#ctx-{key}"
        )

    @staticmethod
    def _fresh(answer, key):
        form = ContextAnswerForm(
            initial={"value": answer.value, "detail": answer.detail, "version": answer.version},
            prefix=key,
        )
        return {"answer": answer, "form": form}


class ShortlistView(EvaluationMixin, View):
    tab = "shortlist"

    def page(self, status=200, **extra):
        extra.setdefault("add_form", AddCandidateForm(evaluation=self.evaluation))
        return self.render(
            "evaluations/shortlist.html",
            status=status,
            suggestions=shortlist_suggest(self.evaluation),
            **extra,
        )

    def get(self, request, pk):
        return self.page()

    def post(self, request, pk):
        action = request.POST.get("action")
        try:
            if action == "accept":
                slug_ids = request.POST.getlist("solution")
                added = services.candidates_accept_suggestions(
                    user=request.user,
                    evaluation=self.evaluation,
                    solution_ids=[int(i) for i in slug_ids if i.isdigit()] or None,
                )
                messages.success(
                    request, _("%(n)d suggested candidate(s) added.") % {"n": len(added)}
                )
            elif action == "add":
                form = AddCandidateForm(request.POST, evaluation=self.evaluation)
                if not form.is_valid():
                    return self.page(status=400, add_form=form)
                services.candidate_add(
                    user=request.user, evaluation=self.evaluation, **form.cleaned_data
                )
                messages.success(request, _("Candidate added."))
            elif action in ("eliminate", "restore"):
                candidate = candidate_get(self.evaluation, request.POST.get("candidate"))
                form_class = EliminateForm if action == "eliminate" else RestoreForm
                form = form_class(request.POST)
                if not form.is_valid():
                    return self.page(
                        status=400,
                        error=" ".join(e for errs in form.errors.values() for e in errs),
                    )
                if action == "eliminate":
                    services.candidate_eliminate(
                        user=request.user,
                        candidate=candidate,
                        reason=form.cleaned_data["reason"],
                        expected_version=form.cleaned_data["version"],
                    )
                else:
                    services.candidate_restore(
                        user=request.user,
                        candidate=candidate,
                        expected_version=form.cleaned_data["version"],
                    )
                messages.success(request, _("Saved."))
            else:
                return self.page(status=400, error=_("Unknown action."))
        except DomainError as exc:
            return self.page(status=exc.status_code, error=exc.message)
        except ValidationError as exc:
            return self.page(status=400, error=" ".join(exc.messages))
        return redirect("evaluations:evaluation_shortlist", pk=pk)


class QuestionsView(EvaluationMixin, View):
    tab = "questions"

    def get(self, request, pk):
        questions = self.data.questions
        cards = []
        for candidate in self.data.shortlisted:
            answers = {a.question_id: a for a in candidate.answers.all()}
            rows = [answer_row(candidate, q, answers.get(q.pk)) for q in questions]
            done = sum(1 for r in rows if r["answer"] and r["answer"].is_complete)
            cards.append({"candidate": candidate, "rows": rows, "done": done})
        return self.render("evaluations/questions.html", cards=cards, questions=questions)


def answer_row(candidate, question, answer, **extra):
    initial = {"version": 0, "assessment": "unknown"}
    if answer is not None:
        initial = {
            "party": answer.party,
            "assessment": answer.assessment,
            "explanation": answer.explanation,
            "evidence_url": answer.evidence_url,
            "version": answer.version,
        }
    form = AnswerForm(initial=initial, prefix=f"c{candidate.pk}-{question.key}")
    return {"candidate": candidate, "question": question, "answer": answer, "form": form, **extra}


class AnswerView(EvaluationMixin, View):
    def post(self, request, pk, cid, key):
        candidate = candidate_get(self.evaluation, cid)
        question = get_object_or_404(FiveQuestion, key=key, is_active=True)
        form = AnswerForm(request.POST, prefix=f"c{candidate.pk}-{question.key}")
        status, row = 200, None
        if form.is_valid():
            data = form.cleaned_data
            try:
                answer = services.answer_save(
                    user=request.user,
                    candidate=candidate,
                    question=question,
                    party=data["party"],
                    assessment=data["assessment"],
                    explanation=data["explanation"],
                    evidence_url=data["evidence_url"],
                    expected_version=data["version"],
                )
            except StaleEdit as exc:
                row = answer_row(candidate, question, exc.current, error=exc.message)
                status = 409
            except DomainError as exc:
                status = exc.status_code
                row = {
                    "candidate": candidate,
                    "question": question,
                    "form": form,
                    "error": exc.message,
                    "answer": None,
                }
            except ValidationError as exc:
                form_errors_from(form, exc)
                status = 400
            else:
                row = answer_row(candidate, question, answer, saved=True)
        else:
            status = 400
        if row is None:
            row = {"candidate": candidate, "question": question, "form": form, "answer": None}
        if not request.htmx and status == 200:
            messages.success(request, _("Saved."))
            return redirect("evaluations:evaluation_questions", pk=pk)
        return self.row_response(
            status,
            row,
            "evaluations/partials/answer_row.html",
            f"#answer-{candidate.pk}-{question.key}",
        )


class DecisionView(EvaluationMixin, View):
    tab = "decision"
    template = "evaluations/decision.html"

    def form_for(self, decision):
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

    def get(self, request, pk):
        decision = getattr(self.evaluation, "decision", None)
        return self.render(self.template, form=self.form_for(decision), decision=decision)

    def post(self, request, pk):
        form = DecisionForm(request.POST, evaluation=self.evaluation)
        if form.is_valid():
            data = form.cleaned_data
            try:
                services.decision_save(
                    user=request.user,
                    evaluation=self.evaluation,
                    chosen=data["chosen"],
                    rationale=data["rationale"],
                    decided_on=data["decided_on"],
                    decided_by=data["decided_by"],
                    expected_version=data["version"],
                )
            except StaleEdit as exc:
                return self.render(
                    self.template, status=409, form=self.form_for(exc.current), error=exc.message
                )
            except DomainError as exc:
                return self.fail(exc, self.template, form=form)
            except ValidationError as exc:
                form_errors_from(form, exc)
            else:
                messages.success(request, _("Decision record saved."))
                return redirect("evaluations:evaluation_decision", pk=pk)
        return self.render(self.template, status=400, form=form)


class MembersView(EvaluationMixin, View):
    tab = "members"
    template = "evaluations/members.html"

    def page(self, status=200, **extra):
        members = self.evaluation.memberships.select_related("user").order_by(
            "role", "user__username"
        )
        extra.setdefault("add_form", MemberAddForm())
        return self.render(self.template, status=status, members=members, **extra)

    def get(self, request, pk):
        return self.page()

    def post(self, request, pk):
        action = request.POST.get("action")
        try:
            if action == "add":
                form = MemberAddForm(request.POST)
                if not form.is_valid():
                    return self.page(status=400, add_form=form)
                services.member_add(
                    user=request.user,
                    evaluation=self.evaluation,
                    member=form.cleaned_data["username"],
                    role=form.cleaned_data["role"],
                )
            elif action in ("role", "remove"):
                membership = get_object_or_404(
                    Membership, pk=request.POST.get("membership") or 0, evaluation=self.evaluation
                )
                if action == "role":
                    form = MemberRoleForm(request.POST)
                    if not form.is_valid():
                        return self.page(status=400, error=_("Choose a valid role."))
                    services.member_change_role(
                        user=request.user, membership=membership, role=form.cleaned_data["role"]
                    )
                else:
                    services.member_remove(user=request.user, membership=membership)
            else:
                return self.page(status=400, error=_("Unknown action."))
        except Forbidden as exc:
            raise PermissionDenied(exc.message) from exc
        except DomainError as exc:
            return self.page(status=exc.status_code, error=exc.message)
        except ValidationError as exc:
            return self.page(status=400, error=" ".join(exc.messages))
        messages.success(request, _("Members updated."))
        return redirect("evaluations:evaluation_members", pk=pk)


class HistoryView(EvaluationMixin, View):
    tab = "history"

    def get(self, request, pk):
        page = Paginator(history_timeline(self.evaluation), 50).get_page(request.GET.get("page"))
        entries = history_entries(self.evaluation, page.object_list)
        return self.render("evaluations/history.html", entries=entries, page=page)
