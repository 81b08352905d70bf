"""Evaluations API: approvals after the decision. The owner names approvers among the members
while the evaluation is decided and withdraws a request nobody decided yet; an approver
approves or rejects a finished report of the decided evaluation by its snapshot's SHA-256. The
rules live in evaluations/approvals.py, as for the page.

Versioned like every edit: a request answers with `ETag: "<n>"`; deciding and withdrawing name
the version they saw as If-Match (stale: 412) or `version` in the body (stale: 409); without
either they are refused with 428."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from common.fields import text_limit
from common.http import (
    READ_ERRORS,
    VERSIONED_WRITE_ERRORS,
    WRITE_ERRORS,
    IntegerField,
    VersionField,
    precondition,
    precondition_errors,
    with_etag,
)
from common.people import person_name

from .. import approvals
from ..models_approvals import Approval, ApprovalDecision
from ..scoped import EvaluationScopedView
from .serializers import UsernameField


class ApprovalSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    approver = UsernameField()
    approver_name = serializers.SerializerMethodField()
    role = serializers.CharField()
    requested_by = UsernameField()
    requested_at = serializers.DateTimeField()
    decision = serializers.ChoiceField(choices=ApprovalDecision.choices)
    comment = serializers.CharField()
    decided_at = serializers.DateTimeField(allow_null=True)
    run = serializers.IntegerField(
        source="report_run_id", allow_null=True, help_text="The report run decided on."
    )
    snapshot_sha256 = serializers.CharField(
        help_text="The SHA-256 of the decided report's snapshot (empty while pending)."
    )
    report_language = serializers.CharField()
    active = serializers.BooleanField(help_text="False once withdrawn or voided by a reopening.")
    voided_at = serializers.DateTimeField(allow_null=True)
    void_reason = serializers.CharField()
    version = serializers.IntegerField()

    def get_approver_name(self, row) -> str:
        return person_name(row.approver)


class ApprovableRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    language = serializers.CharField()
    snapshot_sha256 = serializers.CharField()
    created_at = serializers.DateTimeField()


class ApprovalsSerializer(serializers.Serializer):
    can_request = serializers.BooleanField(help_text="You may name approvers now (the owner).")
    approvable_runs = ApprovableRunSerializer(
        many=True,
        help_text="Finished reports of the decided evaluation you may approve (with a request).",
    )
    approvals = ApprovalSerializer(many=True, help_text="Active requests first, then voided.")


class ApprovalRequestSerializer(serializers.Serializer):
    approver = serializers.CharField(help_text="The username of a member.")
    role = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=text_limit(Approval, "role"),
        help_text="What they sign for (empty: their role in Shortlist).",
    )

    def validate_approver(self, value):
        user = get_user_model().objects.filter(username=value).first()
        if user is None:
            raise serializers.ValidationError(
                _("There is no user named '%(name)s'.") % {"name": value}
            )
        return user


class ApprovalDecideSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(
        choices=[ApprovalDecision.APPROVED, ApprovalDecision.REJECTED]
    )
    run = IntegerField(min_value=1, help_text="The id of the finished report run you read.")
    comment = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=text_limit(Approval, "comment"),
        help_text="Required to reject.",
    )
    change = serializers.BooleanField(
        required=False,
        default=False,
        help_text="True to change a decision you made: deciding again is refused without it.",
    )
    version = VersionField()


class ApprovalWithdrawSerializer(serializers.Serializer):
    version = VersionField()


class ApprovalListView(EvaluationScopedView):
    serializer_class = ApprovalsSerializer

    @extend_schema(
        summary="Approval requests of the decided evaluation (active first, then voided)",
        operation_id="evaluations_approvals_list",
        responses={200: ApprovalsSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        rows = list(approvals.approvals_of(evaluation))
        mine = any(a.active and a.approver_id == request.user.pk for a in rows)
        body = {
            "can_request": request.user.has_perm("evaluations.request_approval", evaluation),
            "approvable_runs": approvals.approvable_runs(evaluation) if mine else [],
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
        row = approvals.approval_request(
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
        return approvals.approval_get(self.get_evaluation(), self.kwargs["approval_pk"])

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
            row = approvals.approval_decide(
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
            row = approvals.approval_withdraw(
                user=request.user, approval=row, expected_version=pre.version
            )
        return self.respond(row)
