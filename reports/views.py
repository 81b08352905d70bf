"""Report pages: request, watch progress (htmx polling), download, preview. Members only."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.views import View

from common.exceptions import Forbidden
from evaluations.views import EvaluationMixin

from . import services
from .models import ReportRun
from .render import report_html
from .snapshot import build_snapshot, snapshot_sha256


@method_decorator(transaction.non_atomic_requests, name="dispatch")
class ReportListView(EvaluationMixin, View):
    """The evaluation's report runs; requesting one commits it before it goes to the worker."""

    tab = "reports"

    def get(self, request, pk):
        runs = list(self.evaluation.report_runs.select_related("requested_by"))
        template = "reports/partials/runs.html" if request.htmx else "reports/report_list.html"
        return self.render(
            template,
            runs=runs,
            polling=any(not r.finished for r in runs),
            report_languages=settings.LANGUAGES,
        )

    def post(self, request, pk):
        try:
            if request.POST.get("retry"):
                run = get_object_or_404(
                    ReportRun, pk=request.POST["retry"], evaluation=self.evaluation
                )
                sent = services.report_retry(user=request.user, run=run)
            else:
                _run, sent = services.report_request(
                    user=request.user,
                    evaluation=self.evaluation,
                    language=request.POST.get("language", ""),
                )
        except Forbidden as exc:
            raise PermissionDenied(exc.message) from exc
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
            return redirect("reports:report_list", pk=pk)
        if sent:
            messages.success(request, _("Report requested. It appears below when it is ready."))
        else:
            messages.warning(
                request,
                _(
                    "The task queue is unreachable right now. Your report is recorded and "
                    "waiting; press Retry once the queue is back."
                ),
            )
        return redirect("reports:report_list", pk=pk)


class ReportDownloadView(EvaluationMixin, View):
    def get(self, request, pk, run_id):
        run = get_object_or_404(ReportRun, pk=run_id, evaluation=self.evaluation)
        if not run.pdf:
            raise Http404
        response = FileResponse(
            run.pdf.open("rb"),
            as_attachment=True,
            filename=f"shortlist-{self.evaluation.pk}-{run.language}-{run.pk}.pdf",
            content_type="application/pdf",
        )
        response["X-Content-Type-Options"] = "nosniff"
        return response


class ReportPreviewView(EvaluationMixin, View):
    """The report as HTML, from the evaluation's current data (the same template as the PDF)."""

    def get(self, request, pk):
        language = request.GET.get("language") or request.LANGUAGE_CODE
        if language not in dict(settings.LANGUAGES):
            language = settings.LANGUAGE_CODE
        snapshot = build_snapshot(
            self.evaluation, language=language, generated_at=timezone.now().isoformat()
        )
        html = report_html(snapshot, snapshot_sha256(snapshot), language, for_pdf=False)
        return HttpResponse(html)
