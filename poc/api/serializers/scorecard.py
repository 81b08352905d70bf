"""Serializers of the scorecard: cells as the requesting user may see them (scores, consensus,
evidence), the candidates' totals, and the score, consensus and evidence writes."""

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.fields import text_limit
from common.http import VersionField
from evaluations.api.serializers import SolutionBriefSerializer, UsernameField

from ...models import Consensus, Outcome, Score
from .base import HIDDEN_CELLS_HELP, HIDDEN_HELP, TEXT_HELP, NumberField, decimal
from .plan import PlanGroupSerializer


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
