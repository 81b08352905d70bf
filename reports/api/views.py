"""Reports API (members only; everyone else gets 404): list, request, follow, retry and
download report runs. The same services as the pages: the snapshot is frozen at request time,
a worker renders it, and reports that print scores follow blind scoring (403 with the reason).
"""

from __future__ import annotations

from django.db import transaction
from django.http import Http404
from django.utils.decorators import method_decorator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from common.http import READ_ERRORS, error_responses
from evaluations.scoped import EvaluationScopedView
from poc.selectors import hidden_cell_count

from .. import services
from ..models import ReportRun
from ..sections import prints_scores
from ..views import pdf_response
from . import serializers as s


class ReportView(EvaluationScopedView):
    serializer_class = s.ReportRunSerializer

    def runs(self):
        return self.get_evaluation().report_runs.select_related("requested_by").defer("snapshot")

    def run(self, pk) -> ReportRun:
        run = self.runs().filter(pk=pk).first()
        if run is None:
            raise Http404
        return run

    def locked(self, runs) -> set[int]:
        hidden = hidden_cell_count(self.get_evaluation(), self.request.user)
        return {r.pk for r in runs if hidden and prints_scores(r.sections)}

    def out_runs(self, runs, serializer=s.ReportRunSerializer, **context):
        context = {**self.get_serializer_context(), "locked": self.locked(runs), **context}
        return serializer(runs, context=context, many=True).data

    def out_run(self, pk, **context):
        (body,) = self.out_runs([self.run(pk)], **context)
        return body

    def queued(self, run, sent: bool) -> Response:
        body = self.out_run(run.pk, serializer=s.ReportRunQueuedSerializer, queued_now=sent)
        return Response(body, status=status.HTTP_202_ACCEPTED)


# Requesting commits the run before it goes to the worker (not at the end of the request).
@method_decorator(transaction.non_atomic_requests, name="dispatch")
class ReportListView(ReportView):
    @extend_schema(
        summary="The evaluation's report runs, newest first",
        responses={200: s.ReportRunSerializer(many=True), **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        return Response(self.out_runs(list(self.runs())))

    @extend_schema(
        summary="Request a PDF report (rendered in the background)",
        description="Freezes the evaluation's data into a snapshot and queues the run. 202 with "
        "the run; poll it until `status` is done or failed. When an earlier finished run has "
        "the same snapshot seal, language and sections, the run is already done, with that PDF. "
        "Sections that print scores "
        "(summary, poc, robustness, appendix) are refused with 400 while blind scoring hides "
        "cells from you.",
        request=s.ReportRequestSerializer,
        responses={202: s.ReportRunQueuedSerializer, **error_responses(400, 404)},
    )
    def post(self, request, evaluation_pk):
        values = self.parse(s.ReportRequestSerializer)
        run, sent = services.report_request(
            user=request.user,
            evaluation=self.get_evaluation(),
            language=values["language"],
            sections=values.get("sections"),
        )
        return self.queued(run, sent)


class ReportDetailView(ReportView):
    @extend_schema(
        summary="One report run (poll it for progress)",
        responses={200: s.ReportRunSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, run_pk):
        return Response(self.out_run(run_pk))


@method_decorator(transaction.non_atomic_requests, name="dispatch")
class ReportRetryView(ReportView):
    @extend_schema(
        summary="Send a queued or failed run to the worker again",
        request=None,
        responses={202: s.ReportRunQueuedSerializer, **error_responses(404)},
    )
    def post(self, request, evaluation_pk, run_pk):
        run = self.run(run_pk)
        sent = services.report_retry(user=request.user, run=run)
        return self.queued(run, sent)


class ReportPdfView(ReportView):
    serializer_class = None

    @extend_schema(
        summary="Download the report's PDF",
        description="404 until the run is done. 403 while blind scoring keeps it from you.",
        responses={
            (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY),
            **error_responses(403, 404),
        },
    )
    def get(self, request, evaluation_pk, run_pk):
        run = self.run(run_pk)
        if not run.pdf:
            raise Http404
        if refusal := services.blind_refusal(request.user, self.get_evaluation(), run.sections):
            raise PermissionDenied(refusal)
        return pdf_response(run)
