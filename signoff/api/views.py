"""Sign-off API: approvals after the decision. The owner names approvers among the members
while the evaluation is decided and withdraws a request nobody decided yet; an approver
approves or rejects a finished report of the decided evaluation by its snapshot's SHA-256. The
rules live in signoff.services, as for the page.

Versioned like every edit: a request answers with `ETag: "<n>"`; deciding and withdrawing name
the version they saw as If-Match (stale: 412) or `version` in the body (stale: 409); without
either they are refused with 428."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from common.http import (
    READ_ERRORS,
    VERSIONED_WRITE_ERRORS,
    WRITE_ERRORS,
    precondition,
    precondition_errors,
    with_etag,
)
from evaluations.scoped import EvaluationScopedView

from .. import selectors, services
from ..models import Approval
from .serializers import (
    ApprovalDecideSerializer,
    ApprovalRequestSerializer,
    ApprovalSerializer,
    ApprovalsSerializer,
    ApprovalWithdrawSerializer,
)


class ApprovalListView(EvaluationScopedView):
    serializer_class = ApprovalsSerializer

    @extend_schema(
        summary="Approval requests of the decided evaluation (active first, then voided)",
        operation_id="evaluations_approvals_list",
        responses={200: ApprovalsSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        rows = list(selectors.approvals_of(evaluation))
        mine = any(a.active and a.approver_id == request.user.pk for a in rows)
        body = {
            "can_request": request.user.has_perm("signoff.request_approval", evaluation),
            "approvable_runs": selectors.approvable_runs(evaluation) if mine else [],
            "approvals": rows,
        }
        return Response(self.out(ApprovalsSerializer, body))

    @extend_schema(
        summary="Name an approver (owner only, while the evaluation is decided)",
        description="The approver is a member without an active request in this round.",
        request=ApprovalRequestSerializer,
        responses={201: ApprovalSerializer, **WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(ApprovalRequestSerializer)
        row = services.approval_request(
            user=request.user,
            evaluation=evaluation,
            approver=values["approver"],
            role=values["role"],
        )
        return with_etag(
            Response(self.out(ApprovalSerializer, row), status=status.HTTP_201_CREATED),
            row.version,
        )


class ApprovalBaseView(EvaluationScopedView):
    def approval(self) -> Approval:
        return selectors.approval_get(self.get_evaluation(), self.kwargs["approval_pk"])

    def current_serializer(self, row: Approval) -> dict:
        return self.out(ApprovalSerializer, row)

    def respond(self, row: Approval) -> Response:
        return with_etag(Response(self.out(ApprovalSerializer, row)), row.version)


class ApprovalDetailView(ApprovalBaseView):
    serializer_class = ApprovalSerializer

    @extend_schema(
        summary="One approval request (ETag: its version)",
        responses={200: ApprovalSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, approval_pk):
        return self.respond(self.approval())


class ApprovalDecideView(ApprovalBaseView):
    serializer_class = ApprovalDecideSerializer

    @extend_schema(
        summary="Approve or reject a finished report of the decided evaluation (the approver)",
        description="Records the report's snapshot SHA-256. A rejection needs a comment; "
        "deciding a decided request again needs `change: true`.",
        request=ApprovalDecideSerializer,
        responses={200: ApprovalSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def post(self, request, evaluation_pk, approval_pk):
        row = self.approval()
        values = self.parse(ApprovalDecideSerializer)
        pre = precondition(request, values.get("version"), exists=True)
        with precondition_errors(pre):
            row = services.approval_decide(
                user=request.user,
                approval=row,
                decision=values["decision"],
                run_id=values["run"],
                comment=values["comment"],
                change=values["change"],
                expected_version=pre.version,
            )
        return self.respond(row)


class ApprovalWithdrawView(ApprovalBaseView):
    serializer_class = ApprovalWithdrawSerializer

    @extend_schema(
        summary="Withdraw a request nobody has decided yet (owner only)",
        request=ApprovalWithdrawSerializer,
        responses={200: ApprovalSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def post(self, request, evaluation_pk, approval_pk):
        row = self.approval()
        values = self.parse(ApprovalWithdrawSerializer)
        pre = precondition(request, values.get("version"), exists=True)
        with precondition_errors(pre):
            row = services.approval_withdraw(
                user=request.user, approval=row, expected_version=pre.version
            )
        return self.respond(row)
