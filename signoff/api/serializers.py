"""Sign-off API: the shapes of approval requests, their decisions and withdrawals
(signoff.api.views)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from rest_framework import serializers

from common.fields import text_limit
from common.http import IntegerField, VersionField
from common.people import person_name
from evaluations.api.serializers import UsernameField

from ..models import Approval, ApprovalDecision


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
