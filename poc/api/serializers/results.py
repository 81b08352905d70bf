"""Serializers of the results: scenario fit, robustness (sensitivity, win shares), whether the
data is enough to name a leader, agreement, and the same by solution type."""

from rest_framework import serializers

from evaluations.api.serializers import SolutionTypeBriefSerializer

from .base import HIDDEN_CELLS_HELP, decimal
from .scorecard import OverallSerializer, ScorecardCandidateSerializer


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


class BootstrapSerializer(serializers.Serializer):
    leader = serializers.IntegerField(
        allow_null=True, help_text="The leader on the scores as they are; null on a tie."
    )
    share = serializers.DecimalField(
        max_digits=4,
        decimal_places=3,
        allow_null=True,
        help_text="Share (0–1) of resamples of reviewers and cells in which the leader stays "
        "leader; null when there is no single leader.",
    )
    resamples = serializers.IntegerField()
    seed = serializers.IntegerField(help_text="Fixed: the same scores give the same share.")
    names_leader = serializers.BooleanField(
        help_text="False when the share is below 0.8: `leaders` is then empty."
    )
    note = serializers.CharField(help_text="Why no leader is named; empty otherwise.")


class GroupEquivalenceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    first = serializers.IntegerField(help_text="Candidate id.")
    second = serializers.IntegerField(help_text="Candidate id.")
    first_test_bed = serializers.CharField()
    second_test_bed = serializers.CharField()
    reason = serializers.CharField()


class GroupBedSerializer(serializers.Serializer):
    label = serializers.CharField(
        help_text="The group's test-bed conditions (accelerator × count, nodes; versions), "
        "or “test bed not recorded”, in the request's language."
    )
    recorded = serializers.BooleanField(help_text="False: these candidates have no test bed.")
    equivalences = GroupEquivalenceSerializer(
        many=True, help_text="The owner's declarations that joined test beds into this group."
    )


class NotComparableSerializer(serializers.Serializer):
    test_bed = serializers.CharField()
    candidates = serializers.ListField(child=serializers.IntegerField())
    note = serializers.CharField(
        help_text="“not comparable: different test bed (A vs B)”, in the request's language."
    )


class TypeResultsSerializer(serializers.Serializer):
    type = SolutionTypeBriefSerializer()
    outside_main_type = serializers.BooleanField(
        help_text="True when the evaluation has a type decision and this is another type."
    )
    ranking = TypeRankSerializer(many=True, help_text="Best first under the plan's weights.")
    leaders = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Under the plan's weights, within the type; empty when the data is too thin "
        "or the bootstrap share is below 0.8.",
    )
    profiles = ProfileLeadersSerializer(many=True, help_text="Leaders per scenario profile.")
    sensitivity = SensitivitySerializer(
        allow_null=True,
        help_text="Robustness of the leader within the type; null when the data is too thin.",
    )
    win_shares = WinShareSerializer(many=True, help_text="Empty when the data is too thin.")
    bootstrap = BootstrapSerializer(
        allow_null=True,
        help_text="How often the leader stays leader over resampled reviewers and cells; null "
        "when the data is too thin.",
    )
    data_sufficiency = SufficiencySerializer()
    test_bed = GroupBedSerializer()
    not_comparable = NotComparableSerializer(
        many=True,
        help_text="The same type's candidates tested on other test beds: never ranked with "
        "this group.",
    )


class ResultsSerializer(serializers.Serializer):
    candidates = ScorecardCandidateSerializer(many=True)
    hidden_cells = serializers.IntegerField(help_text=HIDDEN_CELLS_HELP)
    profiles = ProfileFitSerializer(
        many=True,
        help_text="Each candidate's fit per profile. `leaders` is empty unless every "
        "candidate is in one comparable group; read the leaders in `by_type`.",
    )
    by_type = TypeResultsSerializer(
        many=True,
        help_text="One entry per comparable group (same solution type, same or declared "
        "equivalent test bed), the chosen type first, then catalog order; within a type, "
        "recorded test beds first, then “test bed not recorded”. Candidates are ranked only "
        "within their group, never across types or test beds.",
    )
    sensitivity = SensitivitySerializer(
        allow_null=True,
        help_text="Only when every candidate is in one comparable group (then the same as "
        "`by_type[0]`); null otherwise, and when the data is too thin to name a leader.",
    )
    win_shares = WinShareSerializer(
        many=True,
        help_text="Only when every candidate is in one comparable group (then the same as "
        "`by_type[0]`); empty otherwise, and when the data is too thin.",
    )
    data_sufficiency = SufficiencySerializer()
    agreement = AgreementSerializer()
