"""The decision record, read and written."""

from rest_framework import serializers

from common.fields import text_limit
from common.http import ModelSerializer, VersionField

from ...models import Decision
from .fields import UsernameField


class DecisionSerializer(ModelSerializer):
    """The decision record; before one is saved: empty values and version 0."""

    chosen = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    chosen_solutions = serializers.SerializerMethodField()
    recorded_by = UsernameField()
    updated_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="Null before the record is first saved."
    )

    class Meta:
        model = Decision
        fields = (
            "chosen",
            "chosen_solutions",
            "rationale",
            "decided_on",
            "decided_by",
            "version",
            "recorded_by",
            "updated_at",
        )
        read_only_fields = fields

    def get_chosen_solutions(self, decision) -> list[str]:
        if decision.pk is None:
            return []
        return [c.solution.slug for c in decision.chosen.select_related("solution")]

    def to_representation(self, decision):
        if decision.pk is None:
            # An unsaved record has no m2m yet; say "nothing saved" explicitly.
            return {
                "chosen": [],
                "chosen_solutions": [],
                "rationale": "",
                "decided_on": None,
                "decided_by": "",
                "version": 0,
                "recorded_by": None,
                "updated_at": None,
            }
        return super().to_representation(decision)


class DecisionWriteSerializer(serializers.Serializer):
    chosen = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        default=list,
        help_text="Ids of this evaluation's candidates.",
    )
    rationale = serializers.CharField(
        allow_blank=True, required=False, default="", max_length=text_limit(Decision, "rationale")
    )
    decided_on = serializers.DateField(allow_null=True, required=False, default=None)
    decided_by = serializers.CharField(
        allow_blank=True, required=False, default="", max_length=text_limit(Decision, "decided_by")
    )
    version = VersionField()
