"""Evaluation API serializers.

Input serializers only parse types and look up referenced rows; every rule (permissions, sealing,
required reasons, duplicates, versions) is enforced by `evaluations.services`. Output serializers
read the rows the selectors loaded.
"""

from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import Scenario
from common.fields import text_limit
from common.http import ModelSerializer, VersionField
from common.people import person_name

from ..models import (
    AnswerScale,
    AnswerValue,
    Assessment,
    BudgetFocus,
    Candidate,
    ContextAnswer,
    Decision,
    Evaluation,
    LayerRole,
    MemberRole,
    Membership,
    QuestionAnswer,
    Status,
    StatusChange,
)
from ..rules import member_role
from ..selectors import FitLevel

User = get_user_model()

# Schema texts are plain (the API documentation is English); messages a user sees are translated.
# Plain strings, not enums: the same choices are the `role` enum of the member endpoints.
MY_ROLE_HELP = "Your role in this evaluation: owner, editor, reviewer or viewer."
CANDIDATE_STATUS_HELP = "shortlisted or eliminated"


def username(user) -> str | None:
    return user.username if user is not None else None


class UsernameField(serializers.CharField):
    """A user shown by username (read-only)."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, allow_null=True, **kwargs)

    def to_representation(self, value):
        return username(value)


# --- evaluations -----------------------------------------------------------------------------


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


# --- members ---------------------------------------------------------------------------------


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


# --- context ---------------------------------------------------------------------------------


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


# --- suggestions and candidates --------------------------------------------------------------


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


# --- the five questions ----------------------------------------------------------------------


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


# --- decision --------------------------------------------------------------------------------


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


# --- reminders and history -------------------------------------------------------------------


class LinkSerializer(serializers.Serializer):
    url = serializers.CharField()
    label = serializers.CharField()


class ReminderSerializer(serializers.Serializer):
    key = serializers.CharField()
    severity = serializers.ChoiceField(choices=[("high", "high"), ("medium", "medium")])
    title = serializers.CharField()
    why = serializers.CharField()
    fix_url = serializers.CharField()
    fix_label = serializers.CharField()
    links = serializers.SerializerMethodField(
        help_text="More places the reminder points to (e.g. both sides of a disagreement)."
    )

    @extend_schema_field(LinkSerializer(many=True))
    def get_links(self, reminder) -> list[dict]:
        return [{"url": url, "label": label} for url, label in reminder.links]


class FieldChangeSerializer(serializers.Serializer):
    field = serializers.CharField()
    label = serializers.CharField()
    old = serializers.JSONField(allow_null=True)
    new = serializers.JSONField(allow_null=True)
    old_display = serializers.CharField(help_text="The old value in words (request language).")
    new_display = serializers.CharField(help_text="The new value in words (request language).")


class HistoryEntrySerializer(serializers.Serializer):
    when = serializers.DateTimeField()
    who = serializers.CharField(allow_null=True)
    action = serializers.ChoiceField(
        choices=[("created", "created"), ("changed", "changed"), ("deleted", "deleted")]
    )
    model = serializers.CharField(help_text="evaluation, contextanswer, candidate, ...")
    model_label = serializers.CharField()
    object_id = serializers.IntegerField()
    object = serializers.CharField(help_text="What was changed, in words.")
    changes = FieldChangeSerializer(many=True)
    reason = serializers.CharField(help_text="Why, where one was required (e.g. reopening).")
