"""POC pages: the plan, the scorecard grid (blind until you submit), consensus, results,
evidence files and the .xlsx export. Members only (404 otherwise)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import FileResponse, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views import View

from common.charts import radar_chart
from common.exceptions import DomainError, Forbidden, StaleEdit
from evaluations.selectors import candidate_get
from evaluations.views import EvaluationMixin

from . import services
from .export import scorecard_workbook
from .forms import ConsensusForm, CustomCaseForm, EvidenceForm, LibraryCaseForm, ScoreForm
from .models import Evidence, Outcome, PlanCase, PlanGroup, ScenarioProfile, Score
from .selectors import evidence_for_download, plan_cases, plan_groups, results, scorecard


def _errors(exc: ValidationError) -> str:
    return " ".join(exc.messages)


class PlanView(EvaluationMixin, View):
    tab = "poc"

    def page(self, status=200, **extra):
        extra.setdefault("custom_form", CustomCaseForm())
        extra.setdefault("library_form", LibraryCaseForm(evaluation=self.evaluation))
        return self.render(
            "poc/plan.html",
            status=status,
            groups=plan_groups(self.evaluation),
            cases=plan_cases(self.evaluation),
            profiles=ScenarioProfile.objects.all(),
            can_change_plan=self.request.user.has_perm("poc.change_plan", self.evaluation),
            **extra,
        )

    def get(self, request, pk):
        return self.page()

    def post(self, request, pk):
        action = request.POST.get("action")
        e = self.evaluation
        try:
            if action == "init":
                n = services.plan_init(user=request.user, evaluation=e)
                messages.success(request, _("%(n)d case(s) added from the library.") % {"n": n})
            elif action == "library":
                form = LibraryCaseForm(request.POST, evaluation=e)
                if not form.is_valid():
                    return self.page(status=400, library_form=form)
                services.plan_case_add_library(
                    user=request.user, evaluation=e, case=form.cleaned_data["case"]
                )
            elif action == "custom":
                form = CustomCaseForm(request.POST)
                if not form.is_valid():
                    return self.page(status=400, custom_form=form)
                services.plan_case_add_custom(user=request.user, evaluation=e, **form.cleaned_data)
            elif action in ("case_weight", "group_weight"):
                model = PlanCase if action == "case_weight" else PlanGroup
                obj = get_object_or_404(model, pk=request.POST.get("id") or 0, evaluation=e)
                services.plan_weight_set(
                    user=request.user,
                    obj=obj,
                    weight=request.POST.get("weight"),
                    expected_version=int(request.POST.get("version") or 0),
                )
            elif action == "remove":
                case = get_object_or_404(PlanCase, pk=request.POST.get("id") or 0, evaluation=e)
                services.plan_case_remove(user=request.user, case=case)
            elif action == "profile":
                profile = get_object_or_404(ScenarioProfile, key=request.POST.get("profile", ""))
                services.plan_apply_profile(user=request.user, evaluation=e, profile=profile)
            else:
                return self.page(status=400, error=_("Unknown action."))
        except Forbidden as exc:
            raise PermissionDenied(exc.message) from exc
        except DomainError as exc:
            return self.page(status=exc.status_code, error=exc.message)
        except ValidationError as exc:
            return self.page(status=400, error=_errors(exc))
        except ValueError:
            return self.page(status=400, error=_("The version must be a whole number."))
        if action != "init":
            messages.success(request, _("Plan updated."))
        return redirect("poc:plan", pk=pk)


class ScorecardView(EvaluationMixin, View):
    tab = "poc"

    def get(self, request, pk):
        card = scorecard(self.evaluation, request.user)
        totals = [(c, card.overall(c)) for c in card.candidates]
        return self.render(
            "poc/scorecard.html",
            card=card,
            totals=totals,
            can_score=request.user.has_perm("poc.score", self.evaluation),
            can_consensus=request.user.has_perm("poc.record_consensus", self.evaluation),
            outcomes=Outcome.choices,
        )

    def post(self, request, pk):
        """Submit all my draft scores (optionally for one candidate)."""
        candidate = None
        if request.POST.get("candidate"):
            candidate = candidate_get(self.evaluation, request.POST["candidate"])
        try:
            n = services.scores_submit(
                user=request.user, evaluation=self.evaluation, candidate=candidate
            )
        except Forbidden as exc:
            raise PermissionDenied(exc.message) from exc
        except DomainError as exc:
            messages.error(request, exc.message)
            return redirect("poc:scorecard", pk=pk)
        messages.success(request, _("%(n)d score(s) submitted.") % {"n": n})
        return redirect("poc:scorecard", pk=pk)


def _cell(view, case_id, cid):
    case = get_object_or_404(PlanCase, pk=case_id, evaluation=view.evaluation)
    return case, candidate_get(view.evaluation, cid)


class CellView(EvaluationMixin, View):
    """One cell: my score (autosaved by htmx), or the owner's consensus."""

    def cell_context(self, case, candidate):
        card = scorecard(self.evaluation, self.request.user)
        cell = next(
            c for c in card.cells() if c.case.pk == case.pk and c.candidate.pk == candidate.pk
        )
        return {
            "cell": cell,
            "outcomes": Outcome.choices,
            "can_score": self.request.user.has_perm("poc.score", self.evaluation),
            "can_consensus": self.request.user.has_perm("poc.record_consensus", self.evaluation),
        }

    def post(self, request, pk, case_id, cid):
        case, candidate = _cell(self, case_id, cid)
        consensus = request.POST.get("action") == "consensus"
        form = (ConsensusForm if consensus else ScoreForm)(request.POST)
        status, error = 200, None
        if form.is_valid():
            data = form.cleaned_data
            try:
                if consensus:
                    services.consensus_record(
                        user=request.user,
                        case=case,
                        candidate=candidate,
                        score=data["score"],
                        reason=data["reason"],
                        expected_version=data["version"],
                    )
                else:
                    services.score_save(
                        user=request.user,
                        case=case,
                        candidate=candidate,
                        score=data["score"],
                        measured_value=data["measured_value"],
                        outcome=data["outcome"],
                        notes=data["notes"],
                        submit=request.POST.get("submit") == "1",
                        expected_version=data["version"],
                    )
            except StaleEdit as exc:
                status, error = 409, exc.message
            except DomainError as exc:
                status, error = exc.status_code, exc.message
            except ValidationError as exc:
                status, error = 400, _errors(exc)
        else:
            status = 400
            error = " ".join(
                f"{form.fields[k].label}: {' '.join(v)}" for k, v in form.errors.items()
            )
        ctx = self.cell_context(case, candidate)
        return self.render(
            "poc/partials/cell.html", status=status, error=error, saved=status == 200, **ctx
        )


class EvidenceView(EvaluationMixin, View):
    """Upload evidence for my score of a cell; download any evidence of this evaluation."""

    def post(self, request, pk, case_id, cid):
        case, candidate = _cell(self, case_id, cid)
        score = Score.objects.filter(case=case, candidate=candidate, reviewer=request.user).first()
        form = EvidenceForm(request.POST, request.FILES)
        try:
            if score is None:
                raise ValidationError(_("Save your score for this cell before attaching evidence."))
            if not form.is_valid():
                raise ValidationError(_errors(ValidationError(form.errors.get("file"))))
            services.evidence_add(user=request.user, score=score, upload=form.cleaned_data["file"])
        except Forbidden as exc:
            raise PermissionDenied(exc.message) from exc
        except DomainError as exc:
            messages.error(request, exc.message)
        except ValidationError as exc:
            messages.error(request, _errors(exc))
        else:
            messages.success(request, _("Evidence attached."))
        return redirect("poc:scorecard", pk=pk)


def evidence_response(evidence: Evidence) -> FileResponse:
    """An evidence file as a sandboxed attachment (pages and API alike)."""
    response = FileResponse(
        evidence.file.open("rb"),
        as_attachment=True,
        filename=evidence.original_name,
        content_type=evidence.content_type,
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return response


class EvidenceDownloadView(EvaluationMixin, View):
    def get(self, request, pk, evidence_id):
        try:
            evidence = evidence_for_download(self.evaluation, request.user, evidence_id)
        except Forbidden as exc:
            raise PermissionDenied(exc.message) from exc
        return evidence_response(evidence)


class ResultsView(EvaluationMixin, View):
    tab = "poc"

    def get(self, request, pk):
        res = results(self.evaluation, request.user)
        names = {str(c.pk): c.solution.name for c in res.card.candidates}
        radar = radar_chart(
            axes=[g.plan_group.group.name for g in res.card.groups],
            series=[
                (
                    c.solution.name,
                    [
                        (t.score if t.score is not None else None)
                        for t in res.card.group_totals(c).values()
                    ],
                )
                for c in res.card.candidates
            ],
            title=_("Score by group (0–5)"),
        )
        return self.render(
            "poc/results.html",
            res=res,
            names=names,
            radar=radar,
            totals=[(c, res.overall[c.pk]) for c in res.card.candidates],
        )


class ExportView(EvaluationMixin, View):
    """The scorecard as an .xlsx workbook (one sheet per group plus a summary)."""

    def get(self, request, pk):
        # The workbook follows blind scoring: cells hidden from me on the page are empty.
        content = scorecard_workbook(scorecard(self.evaluation, request.user))
        response = HttpResponse(
            content,
            content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        )
        response["Content-Disposition"] = (
            f'attachment; filename="scorecard-{self.evaluation.pk}.xlsx"'
        )
        return response
