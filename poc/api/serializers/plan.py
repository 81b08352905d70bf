"""Serializers of an evaluation's POC plan: its groups and cases, and the plan writes (which
never name a candidate: the plan is the same for all)."""

from decimal import Decimal

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import Capability
from common.fields import text_limit
from common.http import VersionField

from ...models import Direction, PlanCase, ScenarioProfile, TestCase, TestGroup
from .base import TEXT_HELP, NumberField, decimal
from .library import MetricSerializer, ProfileChoiceSerializer, metric_of

CANDIDATE_FIELDS = ("candidate", "candidates", "candidate_id")


class PlanGroupSerializer(serializers.Serializer):
    key = serializers.CharField(source="group.key")
    name = serializers.CharField(source="group.name")
    happy_path = serializers.BooleanField(source="group.happy_path")
    weight = decimal(2)
    version = serializers.IntegerField()


class PlanCaseSerializer(serializers.Serializer):
    """One case of the plan. It names no candidate: every candidate gets it."""

    id = serializers.IntegerField()
    group = serializers.CharField(source="group.key")
    library_case = serializers.SerializerMethodField(
        help_text="The library case's key when copied from the library; null for an own case."
    )
    title = serializers.SerializerMethodField(help_text=TEXT_HELP)
    acceptance = serializers.SerializerMethodField(help_text=TEXT_HELP)
    steps = serializers.SerializerMethodField(help_text=TEXT_HELP)
    weight = decimal(2)
    order = serializers.IntegerField()
    metric = serializers.SerializerMethodField()
    verifies = serializers.SerializerMethodField(
        help_text="Slugs of the catalog capabilities the case verifies (a library case's are "
        "the library's)."
    )
    version = serializers.IntegerField()

    def get_verifies(self, case) -> list[str]:
        return [cap.slug for cap in case.verified_capabilities()]

    def get_library_case(self, case) -> str | None:
        return case.source_case.key if case.source_case_id else None

    def get_title(self, case) -> str:
        return case.text("title")

    def get_acceptance(self, case) -> str:
        return case.text("acceptance")

    def get_steps(self, case) -> str:
        return case.text("steps")

    @extend_schema_field(MetricSerializer(allow_null=True))
    def get_metric(self, case):
        if not case.has_metric:
            return None
        return MetricSerializer(metric_of(case, case.text("metric_name"))).data


class PlanSerializer(serializers.Serializer):
    groups = PlanGroupSerializer(many=True)
    cases = PlanCaseSerializer(many=True)
    default_profile = ProfileChoiceSerializer(
        help_text="The scenario profile the evaluation's scenarios choose; groups new to the "
        "plan take its weights."
    )


class PlanInitSerializer(PlanSerializer):
    added = serializers.IntegerField(help_text="Library cases added now; cases in the plan stay.")


class PlanWriteSerializer(serializers.Serializer):
    """Base for plan writes: the plan is one for all candidates, so none can be named."""

    def to_internal_value(self, data):
        if hasattr(data, "keys") and any(name in data for name in CANDIDATE_FIELDS):
            raise serializers.ValidationError(
                {
                    "candidate": [
                        _(
                            "The POC plan is the same for every candidate: a case, a weight or "
                            "a waiver cannot apply to one candidate only."
                        )
                    ]
                }
            )
        return super().to_internal_value(data)


class PlanCaseAddSerializer(PlanWriteSerializer):
    """A library case by key, or an own case (group, title, acceptance, ...)."""

    library_case = serializers.SlugRelatedField(
        slug_field="key",
        queryset=TestCase.objects.filter(is_active=True).select_related("group"),
        required=False,
        help_text="Key of an active library case; when given, the other fields are ignored.",
    )
    group = serializers.SlugRelatedField(
        slug_field="key",
        queryset=TestGroup.objects.all(),
        required=False,
        help_text="An own case's group key.",
    )
    title = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=text_limit(PlanCase, "title")
    )
    acceptance = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=text_limit(PlanCase, "acceptance")
    )
    steps = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=text_limit(PlanCase, "steps")
    )
    weight = NumberField(max_digits=7, decimal_places=2, required=False, default=Decimal("3"))
    metric_name = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=200
    )
    metric_unit = serializers.CharField(required=False, allow_blank=True, default="", max_length=40)
    metric_direction = serializers.ChoiceField(
        choices=Direction.choices, required=False, allow_blank=True, default=""
    )
    metric_threshold = NumberField(
        max_digits=14, decimal_places=4, required=False, allow_null=True, default=None
    )
    metric_good = NumberField(
        max_digits=14,
        decimal_places=4,
        required=False,
        allow_null=True,
        default=None,
        help_text="Optional: a measured value at least this good scores 4 (default: 10 % of "
        "|threshold| better than the threshold).",
    )
    metric_excellent = NumberField(
        max_digits=14,
        decimal_places=4,
        required=False,
        allow_null=True,
        default=None,
        help_text="Optional: a measured value at least this good scores 5 (default: 25 % better).",
    )
    verifies = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=Capability.objects.all(),
        many=True,
        required=False,
        default=list,
        help_text="An own case's catalog capabilities (slugs) that a pass shows a candidate has.",
    )

    def validate(self, attrs):
        if "library_case" not in attrs and "group" not in attrs:
            raise serializers.ValidationError(
                {"group": serializers.Field.default_error_messages["required"]}
            )
        return attrs


class WeightWriteSerializer(PlanWriteSerializer):
    weight = NumberField(max_digits=7, decimal_places=2, help_text="0 or more.")
    version = VersionField()


class ProfileApplySerializer(PlanWriteSerializer):
    profile = serializers.SlugRelatedField(
        slug_field="key",
        queryset=ScenarioProfile.objects.all(),
        help_text="Key of a scenario profile; its group weights replace the plan's.",
    )
