"""POC pages besides the plan: the scorecard grid (blind until you submit), consensus, results,
evidence files and the .xlsx export. Members only (404 otherwise)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View

from common.charts import radar_chart
from common.exceptions import Forbidden
from common.forms import form_error_text
from common.views import PageAction
from evaluations.models import CandidateStatus
from evaluations.scoped import EvaluationMixin
from evaluations.selectors import candidate_get

from .. import services
from ..conflicts.forms import declaration_rows
from ..export import scorecard_workbook
from ..forms import (
    ConsensusForm,
    EvidenceForm,
    ScoreForm,
    SubmitScoresForm,
)
from ..models import Evidence, PlanCase, PlanGroup, Score
from ..selectors import (
    draft_count,
    evidence_for_download,
    results,
    scorecard,
    scorecard_cell,
)


class ScorecardView(EvaluationMixin, PageAction, View):
    """The grid, one group at a time (`?group=<key>`; by default the first group with work left
    for me). Its group links swap the grid in place with htmx, which then gets the grid alone;
    its form submits all my draft scores (optionally for one candidate)."""

    tab = "poc"
    page_cache = True
    template_name = "poc/scorecard.html"
    group_template_name = "poc/partials/scorecard_group.html"
    form_class = SubmitScoresForm
    errors_as_message = True  # the form is a row's button: a refused candidate id is a message

    def requested_group(self) -> str:
        return self.request.GET.get("group", "")  # the page's address, for its forms too

    def context(self, form=None, error=None, **extra):
        user, e = self.request.user, self.evaluation
        card = scorecard(e, user, group=self.requested_group())
        can_score = user.has_perm("poc.score", e)
        return {
            "card": card,
            "shown": card.shown,
            # Declared conflicts of interest: cells of a candidate I may not score say why.
            "declare_first": declaration_rows(card.waiting) if can_score else [],
            "totals": [(c, card.overall(c)) for c in card.candidates],
            "can_score": can_score,
            "can_consensus": user.has_perm("poc.record_consensus", e),
            "error": error,
            **extra,
        }

    def get(self, request, pk):
        htmx = getattr(request, "htmx", False)
        if htmx and htmx.target == "scorecard-group" and not htmx.history_restore_request:
            # Another group picked: only the grid changes, so only the grid is sent.
            context = {"evaluation": self.evaluation, **self.context()}
            return render(request, self.group_template_name, context)
        return self.answer(self.context())

    def post(self, request, pk):
        form = self.get_form(request.POST)
        may_score = request.user.has_perm("poc.score", self.evaluation)
        if may_score and form.is_valid() and not form.cleaned_data["confirmed"]:
            return self.confirm(form.cleaned_data["candidate"])
        return super().post(request, pk)

    def confirm(self, cid):
        """The step before a final submit, a page of its own so that it needs no script."""
        candidate = candidate_get(self.evaluation, cid) if cid else None
        context = {
            "candidate": candidate,
            "drafts": draft_count(self.evaluation, self.request.user, candidate),
            "back": scorecard_url(self.evaluation, self.requested_group()),
        }
        return self.respond("poc/submit_confirm.html", context, 200)

    def perform(self, form):
        cid = form.cleaned_data["candidate"]
        n = services.scores_submit(
            user=self.request.user,
            evaluation=self.evaluation,
            candidate=candidate_get(self.evaluation, cid) if cid else None,
        )
        self.success_message = _("%(n)d score(s) submitted.") % {"n": n}

    def success_url(self):
        return scorecard_url(self.evaluation, self.requested_group())


def scorecard_url(evaluation, group: str = "", cell: str = "") -> str:
    """The scorecard page showing `group` (by its key), scrolled to `cell` (an element id)."""
    url = reverse("poc:scorecard", kwargs={"pk": evaluation.pk})
    if group:
        url += "?" + urlencode({"group": group})
    return f"{url}#{cell}" if cell else url


class CellMixin:
    """One cell of the grid (404 unless both the case and the candidate belong here)."""

    def dispatch(self, request, *args, **kwargs):
        self.case_id, self.cid = kwargs["case_id"], kwargs["cid"]
        return super().dispatch(request, *args, **kwargs)

    @property
    def cell_target(self):
        if not hasattr(self, "_cell_target"):
            candidate = candidate_get(self.evaluation, self.cid)
            if candidate.status != CandidateStatus.SHORTLISTED:
                raise Http404  # an eliminated candidate has no cells on the scorecard
            self._cell_target = (
                get_object_or_404(
                    PlanCase.objects.select_related("group"),
                    pk=self.case_id,
                    evaluation=self.evaluation,
                ),
                candidate,
            )
        return self._cell_target


class CellView(CellMixin, EvaluationMixin, PageAction, View):
    """One cell: my score (autosaved by htmx), or the owner's consensus. Every outcome answers
    the cell, with the messages inside it."""

    template_name = "poc/partials/cell.html"
    partial_template_name = "poc/partials/cell.html"
    errors_as_message = True

    def get_form(self, data=None, files=None, **kwargs):
        consensus = data is not None and data.get("action") == "consensus"
        return (ConsensusForm if consensus else ScoreForm)(data)

    def context(self, form=None, error=None, **extra):
        case, candidate = self.cell_target
        if not PlanGroup.objects.filter(evaluation=self.evaluation, group=case.group).exists():
            raise Http404  # a case of a group the plan no longer has
        # Read alone, with the same blind rule and conflict marks as the page.
        cell = scorecard_cell(self.evaluation, self.request.user, case, candidate)
        return {
            "cell": cell,
            "can_score": self.request.user.has_perm("poc.score", self.evaluation),
            "can_consensus": self.request.user.has_perm("poc.record_consensus", self.evaluation),
            "error": error,
            **extra,
        }

    def respond(self, template, context, status):
        # The cell alone: none of the evaluation's tabs or status strip around it.
        context = {"evaluation": self.evaluation, **context}
        return render(self.request, template, context, status=status)

    def perform(self, form):
        case, candidate = self.cell_target
        data = form.cleaned_data
        if isinstance(form, ConsensusForm):
            return services.consensus_record(
                user=self.request.user,
                case=case,
                candidate=candidate,
                score=data["score"],
                reason=data["reason"],
                expected_version=data["version"],
            )
        return services.score_save(
            user=self.request.user,
            case=case,
            candidate=candidate,
            score=data["score"],
            measured_value=data["measured_value"],
            outcome=data["outcome"],
            notes=data["notes"],
            submit=data["submit"],
            expected_version=data["version"],
        )

    def success(self, result):
        return self.answer(self.context(saved=True))


class EvidenceView(CellMixin, EvaluationMixin, PageAction, View):
    """Upload evidence for my score of a cell; the scorecard shows the outcome as a message."""

    form_class = EvidenceForm
    success_message = gettext_lazy("Evidence attached.")

    def perform(self, form):
        case, candidate = self.cell_target
        score = Score.objects.filter(
            case=case, candidate=candidate, reviewer=self.request.user
        ).first()
        if score is None:
            raise ValidationError(_("Save your score for this cell before attaching evidence."))
        return services.evidence_add(
            user=self.request.user, score=score, upload=form.cleaned_data["file"]
        )

    def refuse(self, form, status, error=None, **extra):
        error = services.upload_refusal(self.request) or error or form_error_text(form)
        messages.error(self.request, error)
        return redirect(self.success_url())

    def success_url(self):
        case, candidate = self.cell_target
        return scorecard_url(self.evaluation, case.group.key, f"cell-{case.pk}-{candidate.pk}")


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
    page_cache = True

    def get(self, request, pk):
        res = results(self.evaluation, request.user, rows=False)
        names = {str(c.pk): c.name for c in res.card.candidates}
        # One chart per comparable group: a chart of every candidate would compare them.
        radars = [
            radar_chart(
                axes=[g.plan_group.group.name for g in res.card.groups],
                series=[
                    (c.name, [tot.score for tot in res.card.group_totals(c).values()])
                    for c in t.candidates
                ],
                title=_("Score by group (0–5)"),
            )
            for t in res.by_type
        ]
        return self.render(
            "poc/results.html",
            res=res,
            names=names,
            groups=list(zip(res.by_type, radars, strict=True)),
            totals=[(c, res.overall[c.pk]) for c in res.card.candidates],
        )


class ExportView(EvaluationMixin, View):
    """The scorecard as an .xlsx workbook (one sheet per group plus a summary)."""

    def get(self, request, pk):
        # The workbook follows blind scoring: cells hidden from me on the page are empty.
        res = results(self.evaluation, request.user)
        content = scorecard_workbook(res.card, res)
        response = HttpResponse(
            content,
            content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        )
        response["Content-Disposition"] = (
            f'attachment; filename="scorecard-{self.evaluation.pk}.xlsx"'
        )
        return response
