"""An evaluation (a list row, the full record, its writes and status moves), its members and
its context answers."""

from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import Scenario
from common.fields import text_limit
from common.http import ModelSerializer, VersionField
from common.people import person_name

from ...models import (
    AnswerValue,
    ContextAnswer,
    Evaluation,
    MemberRole,
    Membership,
    Status,
    StatusChange,
)
from ...rules import member_role
from .fields import UsernameField

User = get_user_model()


# Schema texts are plain (the API documentation is English); messages a user sees are translated.
# Plain strings, not enums: the same choices are the `role` enum of the member endpoints.
MY_ROLE_HELP = "Your role in this evaluation: owner, editor, reviewer or viewer."


class EvaluationListSerializer(serializers.Serializer):
    """One row of the evaluation list, read from a `ListRow` (evaluations/rows.py). The fields
    declare the schema; `to_representation` writes a row directly, because DRF's field-by-field
    walk cost more than the rest of a 100-row page."""

    id = serializers.IntegerField(source="evaluation.pk")
    url = serializers.SerializerMethodField()
    title = serializers.CharField(source="evaluation.title")
    organisation = serializers.CharField(source="evaluation.organisation")
    status = serializers.ChoiceField(source="evaluation.status", choices=Status.choices)
    scenarios = serializers.SerializerMethodField()
    my_role = serializers.CharField(source="evaluation.my_role", help_text=MY_ROLE_HELP)
    candidate_count = serializers.SerializerMethodField(
        help_text="Shortlisted candidates (eliminated ones are not counted)."
    )
    progress = serializers.SerializerMethodField()
    open_reminders = serializers.SerializerMethodField()
    updated_at = serializers.DateTimeField(source="evaluation.updated_at")

    def get_url(self, row) -> str:
        return reverse("evaluations-api:evaluation_detail", kwargs={"pk": row.evaluation.pk})

    def get_scenarios(self, row) -> list[str]:
        return [s.slug for s in row.scenarios]

    def get_candidate_count(self, row) -> int:
        return row.evaluation.shortlisted_count

    @extend_schema_field(
        {
            "type": "object",
            "properties": {"answered": {"type": "integer"}, "total": {"type": "integer"}},
        }
    )
    def get_progress(self, row):
        return {"answered": row.status.answered, "total": row.status.total}

    def get_open_reminders(self, row) -> int:
        return row.status.reminders

    def to_representation(self, row):
        e = row.evaluation
        return {
            "id": e.pk,
            "url": self.get_url(row),
            "title": e.title,
            "organisation": e.organisation,
            "status": e.status,
            "scenarios": self.get_scenarios(row),
            "my_role": e.my_role,
            "candidate_count": self.get_candidate_count(row),
            "progress": self.get_progress(row),
            "open_reminders": self.get_open_reminders(row),
            "updated_at": self.fields["updated_at"].to_representation(e.updated_at),
        }


class EvaluationSerializer(ModelSerializer):
    """The full evaluation (read-only representation)."""

    url = serializers.SerializerMethodField()
    scenarios = serializers.SlugRelatedField(slug_field="slug", many=True, read_only=True)
    created_by = UsernameField()
    my_role = serializers.SerializerMethodField(help_text=MY_ROLE_HELP)
    is_sealed = serializers.BooleanField(read_only=True)
    private_deployment_required = serializers.BooleanField(
        read_only=True,
        help_text="The answer to the context question `private_deployment` is yes; setting it "
        "here answers that question.",
    )
    compliance_required = serializers.BooleanField(
        read_only=True,
        help_text="The answer to the context question `compliance_regime` is yes; setting it "
        "here answers that question.",
    )

    class Meta:
        model = Evaluation
        fields = (
            "id",
            "url",
            "title",
            "organisation",
            "scenarios",
            "private_deployment_required",
            "compliance_required",
            "localisation_required",
            "plans_hybrid",
            "unified_view_owner",
            "notes",
            "status",
            "is_sealed",
            "my_role",
            "version",
            "created_by",
            "created_at",
            "updated_at",
        )
        read_only_fields = fields

    def get_url(self, evaluation) -> str:
        return reverse("evaluations-api:evaluation_detail", kwargs={"pk": evaluation.pk})

    def get_my_role(self, evaluation) -> str | None:
        request = self.context.get("request")
        return member_role(request.user, evaluation) if request else None


class EvaluationWriteSerializer(serializers.Serializer):
    """Create (POST) or change (PATCH) an evaluation; the service validates the values."""

    title = serializers.CharField(
        allow_blank=True, trim_whitespace=False, max_length=text_limit(Evaluation, "title")
    )
    organisation = serializers.CharField(
        allow_blank=True, trim_whitespace=False, max_length=text_limit(Evaluation, "organisation")
    )
    scenarios = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=Scenario.objects.all(),
        many=True,
        required=False,
        help_text="Slugs of the primary scenarios, e.g. ['training'].",
    )
    private_deployment_required = serializers.BooleanField(
        required=False,
        help_text="Answers the context question `private_deployment`: true is yes; false turns "
        "a yes into no.",
    )
    compliance_required = serializers.BooleanField(
        required=False,
        help_text="Answers the context question `compliance_regime`: true is yes; false turns "
        "a yes into no.",
    )
    localisation_required = serializers.BooleanField(required=False)
    plans_hybrid = serializers.BooleanField(required=False)
    unified_view_owner = serializers.CharField(
        required=False, allow_blank=True, max_length=text_limit(Evaluation, "unified_view_owner")
    )
    notes = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        max_length=text_limit(Evaluation, "notes"),
    )
    version = VersionField()

    def to_internal_value(self, data):
        if isinstance(data, dict) and "status" in data:
            raise serializers.ValidationError(
                {"status": _("Change the status with POST …/transition/ {status, reason}.")}
            )
        return super().to_internal_value(data)


class TransitionSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Status.choices)
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=text_limit(StatusChange, "reason"),
        help_text="Required when reopening a decided or archived evaluation.",
    )


class MembershipSerializer(ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)
    name = serializers.SerializerMethodField()

    class Meta:
        model = Membership
        fields = ("id", "username", "name", "role", "added_at")
        read_only_fields = fields

    def get_name(self, membership) -> str:
        return person_name(membership.user)


class MemberAddSerializer(serializers.Serializer):
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=MemberRole.choices)

    def validate_username(self, value):
        user = User.objects.filter(username=value).first()
        if user is None:
            raise serializers.ValidationError(
                _("There is no user named '%(name)s'.") % {"name": value}
            )
        return user


class MemberRoleSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=MemberRole.choices)


class ContextAnswerSerializer(ModelSerializer):
    updated_by = UsernameField()

    class Meta:
        model = ContextAnswer
        fields = ("value", "detail", "version", "updated_by", "updated_at")
        read_only_fields = fields


class ContextItemSerializer(serializers.Serializer):
    """One active context question with this evaluation's answer (null: not answered yet)."""

    key = serializers.CharField(source="question.key")
    order = serializers.IntegerField(source="question.order")
    text = serializers.CharField(source="question.text")
    help_text = serializers.CharField(source="question.help_text")
    detail_label = serializers.CharField(source="question.detail_label")
    answer = ContextAnswerSerializer(allow_null=True)


class ContextAnswerWriteSerializer(serializers.Serializer):
    value = serializers.ChoiceField(choices=AnswerValue.choices)
    detail = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=text_limit(ContextAnswer, "detail")
    )
    version = VersionField()
