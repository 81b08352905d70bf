"""The five questions: each candidate's answers, and writing one."""

from rest_framework import serializers

from common.fields import text_limit
from common.http import ModelSerializer, VersionField

from ...models import AnswerScale, Assessment, BudgetFocus, QuestionAnswer
from .fields import UsernameField


class QuestionAnswerSerializer(ModelSerializer):
    updated_by = UsernameField()

    class Meta:
        model = QuestionAnswer
        fields = (
            "parties",
            "assessment",
            "budget",
            "explanation",
            "evidence_url",
            "is_complete",
            "version",
            "updated_by",
            "updated_at",
        )
        read_only_fields = fields


class AnswerItemSerializer(serializers.Serializer):
    """One active question with the candidate's answer (null: not answered yet)."""

    key = serializers.CharField(source="question.key")
    order = serializers.IntegerField(source="question.order")
    scale = serializers.ChoiceField(
        source="question.scale",
        choices=AnswerScale.choices,
        help_text="How it is answered: parties (who), budget or assessment (yes / partly / no).",
    )
    text = serializers.CharField(source="question.text")
    help_text = serializers.CharField(source="question.help_text")
    answer = QuestionAnswerSerializer(allow_null=True)
    is_complete = serializers.BooleanField()
    missing = serializers.ListField(
        child=serializers.CharField(), help_text="What the answer still lacks."
    )


class CandidateAnswersSerializer(serializers.Serializer):
    candidate = serializers.IntegerField()
    is_complete = serializers.BooleanField()
    answered = serializers.IntegerField()
    total = serializers.IntegerField()
    questions = AnswerItemSerializer(many=True)


class AnswerWriteSerializer(serializers.Serializer):
    """Send the part the question's scale asks for (see `scale`); the others are stored blank."""

    parties = serializers.ListField(
        child=serializers.CharField(max_length=40),
        required=False,
        default=list,
        max_length=20,
        help_text="Who-questions: keys of this evaluation's parties (shared and its own).",
    )
    assessment = serializers.ChoiceField(
        choices=Assessment.choices, required=False, default=Assessment.UNKNOWN
    )
    budget = serializers.ChoiceField(
        choices=BudgetFocus.choices,
        required=False,
        default=BudgetFocus.UNKNOWN,
        help_text="The budget question: what the budget weighs more.",
    )
    explanation = serializers.CharField(
        allow_blank=True,
        required=False,
        default="",
        max_length=text_limit(QuestionAnswer, "explanation"),
    )
    evidence_url = serializers.CharField(
        allow_blank=True,
        required=False,
        default="",
        max_length=text_limit(QuestionAnswer, "evidence_url"),
    )
    version = VersionField()
