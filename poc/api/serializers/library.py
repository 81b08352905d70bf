"""Serializers of the test-case library: groups, cases with their metric and rubric bands,
scenario profiles and the profile an evaluation's plan starts from."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.http import ModelSerializer

from ... import rubric
from ...models import ScenarioProfile, TestCase, TestGroup
from .base import decimal


class BandSerializer(serializers.Serializer):
    score = decimal(1, help_text="The rubric score of this band (0–5).")
    limit = decimal(
        4,
        allow_null=True,
        help_text="A measured value at least as good as this (≤ for lower, ≥ for higher is "
        "better) scores `score`, unless a better band applies; null: the last band (worse).",
    )


class MetricSerializer(serializers.Serializer):
    """What a measured value is judged against: meeting the threshold scores 3 (the rubric's
    "meets the acceptance criteria"); the bands say what scores 4, 5 and 2, 1, 0."""

    name = serializers.CharField()
    unit = serializers.CharField()
    # A plain string: the same choices are the `metric_direction` enum of case creation.
    direction = serializers.CharField(help_text="lower or higher: which is better.")
    threshold = decimal(4)
    good = decimal(4, allow_null=True, help_text="The value for 4 set on the case, if any.")
    excellent = decimal(4, allow_null=True, help_text="The value for 5 set on the case, if any.")
    bands = BandSerializer(
        many=True,
        read_only=True,
        help_text="Best band first. By default 10 % / 25 % of |threshold| better than the "
        "threshold scores 4 / 5, up to 10 % / 25 % worse 2 / 1, worse still 0; a threshold of 0 "
        "has only 3 (meets) and 0.",
    )
    bands_text = serializers.CharField(
        read_only=True, help_text="The bands in words, in the request's language."
    )


def metric_of(case, name: str) -> dict | None:
    if not case.has_metric:
        return None
    return {
        "name": name,
        "unit": case.metric_unit,
        "direction": case.metric_direction,
        "threshold": case.metric_threshold,
        "good": case.metric_good,
        "excellent": case.metric_excellent,
        "bands": [
            {"score": row["score"], "limit": row["limit"]} for row in rubric.bands_rows(case)
        ],
        "bands_text": rubric.bands_text(case),
    }


class TestGroupSerializer(ModelSerializer):
    __test__ = False  # not a pytest test class
    default_weight = decimal(2)

    class Meta:
        model = TestGroup
        fields = ("key", "name", "description", "default_weight", "happy_path", "order")
        read_only_fields = fields


class TestCaseSerializer(ModelSerializer):
    __test__ = False  # not a pytest test class
    group = serializers.CharField(source="group.key", read_only=True)
    default_weight = decimal(2)
    metric = serializers.SerializerMethodField()

    class Meta:
        model = TestCase
        fields = (
            "key",
            "group",
            "title",
            "steps",
            "acceptance",
            "default_weight",
            "metric",
            "sources",
            "order",
        )
        read_only_fields = fields

    @extend_schema_field(MetricSerializer(allow_null=True))
    def get_metric(self, case):
        return MetricSerializer(metric_of(case, case.metric_name)).data if case.has_metric else None


class ProfileWeightSerializer(serializers.Serializer):
    group = serializers.CharField(source="group.key")
    weight = decimal(2)


class ScenarioProfileSerializer(ModelSerializer):
    weights = ProfileWeightSerializer(many=True, read_only=True)
    scenarios = serializers.SlugRelatedField(
        slug_field="slug",
        many=True,
        read_only=True,
        help_text="Slugs of the catalog scenarios this profile serves: an evaluation whose "
        "scenarios all lead to it starts its plan from its weights.",
    )

    class Meta:
        model = ScenarioProfile
        fields = ("key", "name", "scenarios", "weights")
        read_only_fields = fields


class ProfileChoiceSerializer(serializers.Serializer):
    """The profile the evaluation's plan starts from (poc.selectors.ProfileChoice)."""

    key = serializers.CharField(
        source="profile.key",
        allow_null=True,
        help_text="null: no profile; new groups take their default weights.",
    )
    name = serializers.CharField(source="profile.name", allow_null=True)
    scenario_led = serializers.BooleanField(
        help_text="True when every scenario of the evaluation leads to this profile; false "
        "when they disagree (or one has no profile) and the plan starts balanced."
    )
    reason = serializers.CharField(help_text="Why, in the request's language.")
