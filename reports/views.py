"""Report pages: request, watch progress (htmx polling), download, preview. Members only."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.http import FileResponse, Http404, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.views import View

from common.forms import form_error_text
from common.views import PageAction
from evaluations.models import Membership
from evaluations.rules import remember_member_role
from evaluations.scoped import EvaluationMixin
from poc.selectors import hidden_cell_count

from . import sections, services
from .forms import ReportPreviewForm, ReportRequestForm, chosen_sections
from .models import ReportRun, RunStatus
from .render import report_html
from .snapshot import build_snapshot, snapshot_sha256


@method_decorator(transaction.non_atomic_requests, name="dispatch")
class ReportListView(EvaluationMixin, PageAction, View):
    """The evaluation's report runs; requesting one commits it before it goes to the worker."""

    tab = "reports"
    template_name = "reports/report_list.html"
    partial_template_name = "reports/partials/runs.html"  # the list polls while a run renders

    def get(self, request, pk):
        runs = self.runs()
        if request.htmx:
            return self.poll(runs)
        hidden = hidden_cell_count(self.evaluation, request.user)
        self.lock(runs, hidden)
        return self.answer(
            {
                "runs": runs,
                "polling": any(not r.finished for r in runs),
                "report_languages": settings.LANGUAGES,
                "report_sections": [
                    (key, label, not (hidden and key in sections.WITH_SCORES))
                    for key, label in sections.SECTIONS
                ],
                "blind_message": services.blind_message(hidden) if hidden else "",
            }
        )

    def poll(self, runs: list[ReportRun]) -> HttpResponse:
        """The list alone, fetched every second while a run renders: none of the evaluation's
        tabs, status strip or reminders, and no context processors (the list reads none), so
        it costs the same few queries whatever the evaluation's size."""
        user = self.request.user
        # Blind scoring closes only finished PDFs that print scores: otherwise nothing to count.
        closable = any(run.pdf and sections.prints_scores(run.sections) for run in runs)
        hidden = hidden_cell_count(self.evaluation, user) if closable else 0
        self.lock(runs, hidden)
        html = render_to_string(
            self.partial_template_name,
            {
                "evaluation": self.evaluation,
                "runs": runs,
                "polling": any(not r.finished for r in runs),
                "blind_message": services.blind_message(hidden) if hidden else "",
                "csrf_token": get_token(self.request),  # the Retry button's form
            },
        )
        return HttpResponse(html)

    def runs(self) -> list[ReportRun]:
        """The evaluation's runs, newest first. The snapshots (hundreds of kilobytes each) stay
        in the database; the reader's role comes with the rows, so that blind scoring's check
        (`lock`) asks no query of its own for it."""
        user = self.request.user
        role = Membership.objects.filter(evaluation=OuterRef("evaluation"), user=user).order_by()
        runs = list(
            self.evaluation.report_runs.select_related("requested_by")
            .defer("snapshot")
            .annotate(reader_role=Subquery(role.values("role")[:1]))
        )
        if runs:
            remember_member_role(user, self.evaluation, runs[0].reader_role)
        return runs

    @staticmethod
    def lock(runs: list[ReportRun], hidden: int) -> None:
        """Blind scoring: reports that print scores wait for my own (`hidden` cells)."""
        for run in runs:
            run.locked = bool(hidden) and sections.prints_scores(run.sections)

    def get_form(self, data=None, files=None, **kwargs):
        return ReportRequestForm(data)

    def perform(self, form):
        user, retry = self.request.user, form.cleaned_data["retry"]
        if retry:
            run = get_object_or_404(ReportRun, pk=retry, evaluation=self.evaluation)
            sent = services.report_retry(user=user, run=run)
        else:
            run, sent = services.report_request(
                user=user,
                evaluation=self.evaluation,
                language=form.cleaned_data["language"],
                sections=chosen_sections(self.request.POST),
            )
        run.refresh_from_db(fields=["status", "error"])
        return run, sent

    def refuse(self, form, status, error=None, **extra):
        messages.error(self.request, error or form_error_text(form))
        return redirect(self.success_url())

    def success(self, result):
        run, sent = result
        if run.status == RunStatus.DONE:
            messages.success(self.request, _("Report ready: download it below."))
        elif run.status == RunStatus.FAILED:
            messages.error(self.request, _("The report could not be rendered: the error is below."))
        elif sent:
            messages.success(
                self.request,
                _("Report requested: it is queued, and the list below follows its progress."),
            )
        else:
            messages.warning(
                self.request,
                _(
                    "The task queue is unreachable right now. Your report is recorded and "
                    "waiting; press Retry once the queue is back."
                ),
            )
        return redirect(self.success_url())

    def success_url(self):
        return reverse("reports:report_list", kwargs={"pk": self.evaluation.pk})


def pdf_response(run: ReportRun) -> FileResponse:
    """A finished run's PDF as an attachment (pages and API alike)."""
    response = FileResponse(
        run.pdf.open("rb"),
        as_attachment=True,
        filename=f"shortlist-{run.evaluation_id}-{run.language}-{run.pk}.pdf",
        content_type="application/pdf",
    )
    response["X-Content-Type-Options"] = "nosniff"
    return response


class ReportDownloadView(EvaluationMixin, View):
    def get(self, request, pk, run_id):
        run = get_object_or_404(
            ReportRun.objects.defer("snapshot"), pk=run_id, evaluation=self.evaluation
        )
        if not run.pdf:
            raise Http404
        if refusal := services.blind_refusal(request.user, self.evaluation, run.sections):
            raise PermissionDenied(refusal)
        return pdf_response(run)


class ReportPreviewView(EvaluationMixin, View):
    """The report as HTML, from the evaluation's current data (the same template as the PDF)."""

    def get(self, request, pk):
        form = ReportPreviewForm(request.GET)
        if not form.is_valid():
            return HttpResponse(form_error_text(form), status=400, content_type="text/plain")
        chosen = form.cleaned_data["chosen"]
        language = form.cleaned_data["language"] or request.LANGUAGE_CODE
        if language not in dict(settings.LANGUAGES):
            language = settings.LANGUAGE_CODE
        if refusal := services.blind_refusal(request.user, self.evaluation, chosen):
            raise PermissionDenied(refusal)
        snapshot = build_snapshot(
            self.evaluation,
            language=language,
            generated_at=timezone.now().isoformat(),
            sections=chosen,
        )
        html = report_html(snapshot, snapshot_sha256(snapshot), language, for_pdf=False)
        return HttpResponse(html)
