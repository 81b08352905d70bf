"""POC API serializers.

Input serializers only parse types and look up referenced rows; every rule (permissions, sealing,
the 0–5 rubric, metrics, evidence limits, versions) is enforced by `poc.services`, so the pages
and the API cannot drift. Output serializers read what `poc.selectors` built: scorecard cells
already say what the requesting user may see, and nothing here reads other people's scores
from the database. Scores, weights and shares are Decimal and travel as strings.
"""

from decimal import Decimal

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import Capability
from common.fields import text_limit
from common.http import DecimalField, ModelSerializer, VersionField
from evaluations.api.serializers import (
    SolutionBriefSerializer,
    SolutionTypeBriefSerializer,
    UsernameField,
)

from .. import rubric
from ..models import (
    Consensus,
    Direction,
    Outcome,
    PlanCase,
    ScenarioProfile,
    Score,
    TestCase,
    TestGroup,
)

# Schema texts are plain (the API documentation is English); messages a user sees are translated.
TEXT_HELP = "For a case copied from the library: the library's text in the request language."
HIDDEN_HELP = (
    "Null while other reviewers' submitted scores for this cell are hidden from you (submit "
    "your own first), or while the cell has no submitted score."
)
HIDDEN_CELLS_HELP = (
    "Cells other reviewers have scored but you have not: they count as missing in every total "
    "and figure you are shown until you submit your own score for them (always 0 for the "
    "owner and viewers)."
)
CANDIDATE_FIELDS = ("candidate", "candidates", "candidate_id")


def decimal(places: int, **kwargs) -> DecimalField:
    return DecimalField(
        max_digits=20, decimal_places=places, coerce_to_string=True, read_only=True, **kwargs
    )


class NumberField(DecimalField):
    """A number as the client meant it: trailing zeros after the point are dropped (4.00 is 4)
    instead of padding it to `decimal_places` (4.0000), so the services judge the value given
    and the models' digit limits see no zeros that were never part of it."""

    def validate_precision(self, value):
        if value.as_tuple().exponent < 0:
            integral = value == value.to_integral_value()
            value = value.quantize(Decimal(1)) if integral else value.normalize()
        return super().validate_precision(value)

    def quantize(self, value):
        return value


# --- the library -----------------------------------------------------------------------------


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


# --- the plan --------------------------------------------------------------------------------


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


# --- scorecard -------------------------------------------------------------------------------


class EvidenceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField(source="original_name")
    content_type = serializers.CharField()
    size = serializers.IntegerField()
    sha256 = serializers.CharField()
    uploaded_at = serializers.DateTimeField()
    url = serializers.SerializerMethodField(help_text="Download (members who may see it only).")

    def get_url(self, evidence) -> str:
        return reverse(
            "poc-api:evidence_download",
            kwargs={"evaluation_pk": self.context["evaluation_pk"], "evidence_pk": evidence.pk},
        )


class MyScoreSerializer(serializers.Serializer):
    """Your own score for the cell: a draft until submitted; submitted scores are final."""

    score = decimal(1, allow_null=True)
    measured_value = decimal(4, allow_null=True)
    outcome = serializers.ChoiceField(choices=Outcome.choices)
    notes = serializers.CharField()
    submitted = serializers.BooleanField()
    submitted_at = serializers.DateTimeField(allow_null=True)
    version = serializers.IntegerField()
    evidence = EvidenceSerializer(many=True, source="evidence.all")


class OtherScoreSerializer(serializers.Serializer):
    """Another reviewer's submitted score (drafts are never shown)."""

    reviewer = UsernameField()
    score = decimal(1)
    measured_value = decimal(4, allow_null=True)
    outcome = serializers.ChoiceField(choices=Outcome.choices)
    notes = serializers.CharField()
    submitted_at = serializers.DateTimeField()
    evidence = EvidenceSerializer(many=True, source="evidence.all")


class ConsensusSerializer(serializers.Serializer):
    score = decimal(1)
    reason = serializers.CharField()
    decided_by = UsernameField()
    decided_at = serializers.DateTimeField()
    version = serializers.IntegerField()


class CellSerializer(serializers.Serializer):
    """One (case, candidate) cell of the scorecard as the requesting user may see it."""

    case = serializers.IntegerField(source="case.pk")
    candidate = serializers.IntegerField(source="candidate.pk")
    value = serializers.SerializerMethodField(
        help_text="What counts: the consensus, else the mean of submitted scores. " + HIDDEN_HELP
    )
    mine = MyScoreSerializer(allow_null=True)
    others = serializers.SerializerMethodField(
        help_text="Other reviewers' submitted scores; empty while they are hidden from you."
    )
    hidden_count = serializers.IntegerField(
        help_text="Other reviewers' submitted scores you cannot see yet."
    )
    disagreement = serializers.SerializerMethodField(
        help_text="Whether submitted scores differ by 1.5 points or more; null while hidden."
    )
    consensus = serializers.SerializerMethodField(
        help_text="The owner's agreed score. " + HIDDEN_HELP
    )

    @extend_schema_field(decimal(2, allow_null=True))
    def get_value(self, cell):
        if cell.hidden_count or cell.value is None:
            return None
        return decimal(2).to_representation(cell.value)

    @extend_schema_field(OtherScoreSerializer(many=True))
    def get_others(self, cell):
        return OtherScoreSerializer(cell.visible, many=True, context=self.context).data

    def get_disagreement(self, cell) -> bool | None:
        return None if cell.hidden_count else cell.disagreement

    @extend_schema_field(ConsensusSerializer(allow_null=True))
    def get_consensus(self, cell):
        if cell.hidden_count or cell.consensus is None:
            return None
        return ConsensusSerializer(cell.consensus, context=self.context).data


class OverallSerializer(serializers.Serializer):
    """Counts submitted scores and consensus only; missing cells are left out, not zero."""

    score = decimal(2, allow_null=True, help_text="0–5.")
    percent = decimal(1, allow_null=True)
    completeness = decimal(3, help_text="Share of the weight scored, 0–1: show it next to score.")


class ScorecardCandidateSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="candidate.pk")
    solution = SolutionBriefSerializer(source="candidate.solution")
    overall = OverallSerializer()


class ScorecardCaseSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    group = serializers.CharField(source="group.key")
    title = serializers.SerializerMethodField(help_text=TEXT_HELP)
    weight = decimal(2)
    has_metric = serializers.BooleanField()

    def get_title(self, case) -> str:
        return case.text("title")


class ScorecardSerializer(serializers.Serializer):
    can_score = serializers.BooleanField(help_text="Whether you may score (and attach evidence).")
    can_record_consensus = serializers.BooleanField()
    groups = PlanGroupSerializer(many=True)
    cases = ScorecardCaseSerializer(many=True)
    candidates = ScorecardCandidateSerializer(many=True, help_text="Shortlisted candidates.")
    hidden_cells = serializers.IntegerField(help_text=HIDDEN_CELLS_HELP)
    cells = CellSerializer(many=True)


class ScoreWriteSerializer(serializers.Serializer):
    """Your own score for one cell; there is no way to write someone else's."""

    score = NumberField(
        max_digits=10,
        decimal_places=4,
        required=False,
        allow_null=True,
        default=None,
        help_text="0 to 5 in whole or half points; null to leave it to the measured value.",
    )
    measured_value = NumberField(
        max_digits=14,
        decimal_places=4,
        required=False,
        allow_null=True,
        default=None,
        help_text="For a case with a metric: judged against its threshold when score is null.",
    )
    outcome = serializers.ChoiceField(
        choices=Outcome.choices, required=False, default=Outcome.NOT_RUN
    )
    notes = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=text_limit(Score, "notes")
    )
    submit = serializers.BooleanField(
        required=False, default=False, help_text="Submit now; a submitted score is final."
    )
    version = VersionField()


class ScoresSubmitSerializer(serializers.Serializer):
    candidate = serializers.IntegerField(
        required=False, help_text="Submit only this candidate's drafts; omit for all."
    )


class ScoresSubmittedSerializer(serializers.Serializer):
    submitted = serializers.IntegerField(help_text="How many drafts with a value were submitted.")


class ConsensusWriteSerializer(serializers.Serializer):
    score = NumberField(max_digits=4, decimal_places=1, help_text="0 to 5.")
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=text_limit(Consensus, "reason"),
        help_text="Required: why this score.",
    )
    version = VersionField()


class EvidenceUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="PDF, PNG, JPEG, text, CSV, JSON or ZIP.")
    name = serializers.CharField(
        required=False,
        max_length=200,
        help_text="The file name to record instead of the upload's (no paths).",
    )


# --- results ---------------------------------------------------------------------------------


class CandidateOverallSerializer(OverallSerializer):
    candidate = serializers.IntegerField()


class ProfileFitSerializer(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
    leaders = serializers.ListField(
        child=serializers.IntegerField(), help_text="Candidate ids; several on a tie."
    )
    fit = CandidateOverallSerializer(many=True)


class WeightFlipSerializer(serializers.Serializer):
    change = decimal(
        2, help_text="Signed change of the group's weight, as a share of the total group weight."
    )
    new_weight = decimal(2)
    new_leader = serializers.ListField(child=serializers.IntegerField())


class SensitivitySerializer(serializers.Serializer):
    leader = serializers.ListField(child=serializers.IntegerField())
    total_weight = decimal(2)
    by_group = serializers.DictField(
        child=WeightFlipSerializer(allow_null=True),
        help_text="Group key → the smallest change of its weight that changes the leader "
        "(null: none within ±100 % of the total).",
    )
    min_change = decimal(2, allow_null=True)
    group = serializers.CharField(allow_null=True)
    new_leader = serializers.ListField(child=serializers.IntegerField(), allow_null=True)


class WinShareSerializer(serializers.Serializer):
    candidate = serializers.IntegerField()
    share = decimal(3, help_text="Share of random re-weightings it leads, 0–1.")


class ThinCandidateSerializer(serializers.Serializer):
    candidate = serializers.IntegerField()
    completeness = decimal(3, help_text="Share of the weighted cells scored, 0–1.")
    groups_without_score = serializers.ListField(
        child=serializers.CharField(), help_text="Keys of weighted groups it has no score in."
    )


class SufficiencySerializer(serializers.Serializer):
    enough = serializers.BooleanField(
        help_text="False: the scores are too thin to name a leader; `sensitivity` is null and "
        "`win_shares` empty."
    )
    minimum_completeness = decimal(
        3,
        help_text="Every candidate needs this share of the weighted cells scored (and a score "
        "in every weighted group).",
    )
    thin = ThinCandidateSerializer(many=True, help_text="The candidates short of data.")
    note = serializers.CharField(help_text="What the page says instead, in the request's language.")


class AgreementSerializer(serializers.Serializer):
    overall = serializers.FloatField(
        allow_null=True, help_text="Krippendorff's alpha (interval); null: not applicable."
    )
    by_group = serializers.DictField(child=serializers.FloatField(allow_null=True))


class TypeRankSerializer(serializers.Serializer):
    candidate = serializers.IntegerField()
    rank = serializers.IntegerField(
        allow_null=True,
        help_text="1 = highest weighted score within its type (ties share a rank); "
        "null: no score yet.",
    )


class ProfileLeadersSerializer(serializers.Serializer):
    key = serializers.CharField()
    leaders = serializers.ListField(
        child=serializers.IntegerField(), help_text="Candidate ids of this type; several on a tie."
    )


class TypeResultsSerializer(serializers.Serializer):
    type = SolutionTypeBriefSerializer()
    outside_main_type = serializers.BooleanField(
        help_text="True when the evaluation has a type decision and this is another type."
    )
    ranking = TypeRankSerializer(many=True, help_text="Best first under the plan's weights.")
    leaders = serializers.ListField(
        child=serializers.IntegerField(), help_text="Under the plan's weights, within the type."
    )
    profiles = ProfileLeadersSerializer(many=True, help_text="Leaders per scenario profile.")
    sensitivity = SensitivitySerializer(
        allow_null=True,
        help_text="Robustness of the leader within the type; null when the data is too thin.",
    )
    win_shares = WinShareSerializer(many=True, help_text="Empty when the data is too thin.")
    data_sufficiency = SufficiencySerializer()


class ResultsSerializer(serializers.Serializer):
    candidates = ScorecardCandidateSerializer(many=True)
    hidden_cells = serializers.IntegerField(help_text=HIDDEN_CELLS_HELP)
    profiles = ProfileFitSerializer(
        many=True,
        help_text="Each candidate's fit per profile. `leaders` is across every candidate "
        "whatever its type; with several types, read the leaders in `by_type`.",
    )
    by_type = TypeResultsSerializer(
        many=True,
        help_text="Scenario fit within the type context: one entry per solution type present, "
        "the chosen type first, then catalog order. Candidates are ranked only within their "
        "type, never across types.",
    )
    sensitivity = SensitivitySerializer(
        allow_null=True,
        help_text="Across every candidate; with several types, read `by_type`. Null when the "
        "data is too thin to name a leader (see `data_sufficiency`).",
    )
    win_shares = WinShareSerializer(
        many=True,
        help_text="Across every candidate; with several types, read `by_type`. Empty when the "
        "data is too thin.",
    )
    data_sufficiency = SufficiencySerializer()
    agreement = AgreementSerializer()
