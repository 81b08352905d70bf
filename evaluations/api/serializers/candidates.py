"""Suggestions and candidates: the rules' suggestions with their scenario fit, candidates and
stack layers, adding, eliminating and restoring."""

from django.urls import reverse
from rest_framework import serializers

from common.fields import text_limit
from common.http import ModelSerializer, VersionField

from ...models import Candidate, LayerRole
from ...selectors import FitLevel
from .fields import UsernameField

# Schema texts are plain (the API documentation is English); messages a user sees are translated.
CANDIDATE_STATUS_HELP = "shortlisted or eliminated"


class SolutionBriefSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()
    type = serializers.SlugField(source="solution_type.slug")


class RuleBriefSerializer(serializers.Serializer):
    key = serializers.CharField()
    reason = serializers.CharField()


class SlugsField(serializers.ListField):
    """Catalog rows (here scenarios) shown by their slugs, read-only."""

    def __init__(self, **kwargs):
        super().__init__(child=serializers.SlugField(), read_only=True, **kwargs)

    def to_representation(self, data):
        return [row.slug for row in data]


class ScenarioFitSerializer(serializers.Serializer):
    """A solution against the evaluation's scenarios, read from `Solution.scenarios`."""

    level = serializers.ChoiceField(
        choices=[FitLevel.FITS, FitLevel.PARTIAL, FitLevel.OFF],
        help_text="fits: the catalog lists the solution for every scenario of the evaluation; "
        "partial: for some of them; off: for none (off-scenario, still suggested).",
    )
    on_scenario = serializers.BooleanField(
        help_text="True when the solution fits at least one of the evaluation's scenarios."
    )
    fits = SlugsField(
        help_text="Slugs of the evaluation's scenarios the solution fits.",
    )
    misses = SlugsField(
        help_text="Slugs of the evaluation's scenarios the solution does not fit.",
    )
    listed = SlugsField(
        help_text="Slugs of every scenario the catalog lists the solution for.",
    )
    reason = serializers.CharField(
        help_text="Why, in one sentence in the request's language (Accept-Language)."
    )


class SolutionTypeBriefSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField(help_text="In the request's language (Accept-Language).")


class SuggestionSerializer(serializers.Serializer):
    """One suggestion. The list is grouped by solution type, as on the shortlist page: the type
    chosen to carry the main responsibility first, then the others in catalog order; within a
    type, on-scenario first (fits, then partial, then off)."""

    solution = SolutionBriefSerializer()
    type = SolutionTypeBriefSerializer(
        source="solution.solution_type", help_text="The solution's type: the group it is in."
    )
    outside_main_type = serializers.BooleanField(
        help_text="True when the evaluation has a type decision and this solution is of "
        "another type. It can still be accepted, but only with a reason."
    )
    rules = RuleBriefSerializer(many=True)
    scenario_fit = ScenarioFitSerializer(source="fit")
    already_candidate = serializers.SerializerMethodField()

    def get_already_candidate(self, suggestion) -> int | None:
        return suggestion.already.pk if suggestion.already is not None else None


class AcceptSuggestionsSerializer(serializers.Serializer):
    solutions = serializers.ListField(
        child=serializers.SlugField(),
        required=False,
        help_text="Slugs of suggested solutions to add; omit to add every suggestion.",
    )
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=text_limit(Candidate, "reason"),
        help_text="Why; required when any solution added is outside the chosen type "
        "(`outside_main_type`), and kept on those candidates.",
    )


class LayerSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=LayerRole.choices)
    role_label = serializers.CharField(source="get_role_display")
    solution = SolutionBriefSerializer()
    main = serializers.BooleanField(
        source="is_main", help_text="The layer whose type carries the main responsibility."
    )


class CandidateSerializer(ModelSerializer):
    url = serializers.SerializerMethodField()
    name = serializers.CharField(
        read_only=True, help_text="The solution's name, or the stack's name for a stack."
    )
    is_stack = serializers.BooleanField(read_only=True)
    layers = LayerSerializer(
        source="stack_layers",
        many=True,
        read_only=True,
        help_text="A stack's layers, bottom to top (empty for a single solution); `solution` "
        "is then the main layer.",
    )
    # A plain string: "status" is the evaluation status enum everywhere else in the schema.
    status = serializers.CharField(read_only=True, help_text=CANDIDATE_STATUS_HELP)
    solution = SolutionBriefSerializer(read_only=True)
    rules = RuleBriefSerializer(many=True, read_only=True)
    added_by = UsernameField()
    eliminated_by = UsernameField()

    class Meta:
        model = Candidate
        fields = (
            "id",
            "url",
            "name",
            "is_stack",
            "solution",
            "layers",
            "status",
            "origin",
            "reason",
            "rules",
            "elimination_reason",
            "eliminated_by",
            "eliminated_at",
            "added_by",
            "added_at",
            "version",
        )
        read_only_fields = fields

    def get_url(self, candidate) -> str:
        return reverse(
            "evaluations-api:candidate_detail",
            kwargs={"evaluation_pk": candidate.evaluation_id, "pk": candidate.pk},
        )


class CandidateAddSerializer(serializers.Serializer):
    solution = serializers.SlugField(help_text="The catalog solution's slug.")
    reason = serializers.CharField(allow_blank=True, max_length=text_limit(Candidate, "reason"))


class EliminateSerializer(serializers.Serializer):
    reason = serializers.CharField(
        allow_blank=True, max_length=text_limit(Candidate, "elimination_reason")
    )
    version = VersionField()


class RestoreSerializer(serializers.Serializer):
    version = VersionField()
