from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.models import Scenario, Solution, SolutionType
from common.fields import text_limit
from common.forms import DateInput, IntegerField, VersionField

from .models import (
    FACT_FLAGS,
    AnswerScale,
    AnswerValue,
    Assessment,
    BudgetFocus,
    Candidate,
    CandidateStatus,
    Constraint,
    ConstraintWaiver,
    Decision,
    Evaluation,
    LayerRole,
    MemberRole,
    QuestionAnswer,
    ReminderAcknowledgement,
    StatusChange,
)
from .people import person_named


class EvaluationForm(forms.ModelForm):
    scenarios = forms.ModelMultipleChoiceField(
        queryset=Scenario.objects.all(),
        widget=forms.CheckboxSelectMultiple,
        label=_("Primary scenarios"),
        error_messages={"required": _("Choose at least one primary scenario.")},
    )
    # The context questions of the same name, shown as boxes: one answer (models.ContextFact).
    # show_hidden_initial: the page carries the value it showed, so a box left alone on a page
    # loaded before the question was answered elsewhere is not taken for a change.
    private_deployment_required = forms.BooleanField(
        label=_("Private deployment required"),
        required=False,
        show_hidden_initial=True,
        help_text=_("The same answer as the context question on private deployment."),
    )
    compliance_required = forms.BooleanField(
        label=_("Compliance, data-residency or audit requirements"),
        required=False,
        show_hidden_initial=True,
        help_text=_("The same answer as the context question on compliance."),
    )
    version = VersionField()

    class Meta:
        model = Evaluation
        fields = [
            "title",
            "organisation",
            "scenarios",
            "private_deployment_required",
            "compliance_required",
            "localisation_required",
            "plans_hybrid",
            "unified_view_owner",
            "notes",
        ]
        widgets = {"notes": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            for name in FACT_FLAGS:
                self.initial.setdefault(name, getattr(self.instance, name))

    def changed_facts(self) -> list[str]:
        """The requirement boxes the user changed: only those are saved, so a box left alone
        does not overwrite an answer given meanwhile on the context page."""
        return [name for name in FACT_FLAGS if name in self.changed_data]


class ContextAnswerForm(forms.Form):
    value = forms.ChoiceField(choices=AnswerValue.choices, widget=forms.RadioSelect)
    detail = forms.CharField(required=False, max_length=300)
    version = VersionField()


class AddCandidateForm(forms.Form):
    solution = forms.ModelChoiceField(
        queryset=Solution.objects.filter(is_active=True).select_related("solution_type"),
        to_field_name="slug",
        label=_("Solution"),
        error_messages={"invalid_choice": _("That solution is not in the catalog.")},
    )
    reason = forms.CharField(
        label=_("Why it belongs on the shortlist"),
        max_length=text_limit(Candidate, "reason"),
        widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={"required": _("Say why this solution belongs on the shortlist.")},
    )

    def __init__(self, *args, evaluation=None, **kwargs):
        super().__init__(*args, **kwargs)
        if evaluation is not None:
            taken = evaluation.candidates.filter(stack_name="").values_list(
                "solution_id", flat=True
            )
            self.fields["solution"].queryset = self.fields["solution"].queryset.exclude(
                pk__in=taken
            )


class StackForm(forms.Form):
    """Compose a stack: a solution per layer (at least two), and the layer that carries the
    main responsibility."""

    name = forms.CharField(
        label=_("Stack name"),
        max_length=Candidate._meta.get_field("stack_name").max_length,
        error_messages={
            "required": _("Give the stack a name, e.g. “Volcano + enterprise platform”.")
        },
    )
    reason = forms.CharField(
        label=_("Why this combination belongs on the shortlist"),
        max_length=text_limit(Candidate, "reason"),
        widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={"required": _("Say why this combination belongs on the shortlist.")},
    )
    main = forms.ChoiceField(
        label=_("Layer that carries the main responsibility"),
        choices=LayerRole.choices,
        initial=LayerRole.GOVERNANCE,
    )

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "stack_%s")  # the page has other forms with a reason
        super().__init__(*args, **kwargs)
        # One query for the five layer menus, grouped by type.
        self.solutions = {
            s.slug: s
            for s in Solution.objects.filter(is_active=True).select_related("solution_type")
        }
        groups: dict[str, list] = {}
        for solution in sorted(
            self.solutions.values(), key=lambda s: (s.solution_type.order, s.name)
        ):
            groups.setdefault(solution.solution_type.name, []).append(
                (solution.slug, solution.name)
            )
        choices = [("", "—"), *groups.items()]
        for role, label in LayerRole.choices:
            self.fields[f"layer_{role}"] = forms.ChoiceField(
                label=label,
                choices=choices,
                required=False,
                error_messages={"invalid_choice": _("That solution is not in the catalog.")},
            )

    def layer_fields(self):
        return [self[f"layer_{role}"] for role in LayerRole.values]

    @classmethod
    def from_reference(cls, solution) -> StackForm:
        """The form filled with a catalog entry's reference stack (its layers and main layer);
        the reason stays for the tech lead to write."""
        layers = {r: slug for r, slug in solution.reference_layers().items() if r in LayerRole}
        main = (solution.reference_stack or {}).get("main")
        return cls(
            initial={
                "name": solution.name,
                "main": main if main in LayerRole.values else LayerRole.GOVERNANCE,
                **{f"layer_{role}": slug for role, slug in layers.items()},
            }
        )

    def clean(self):
        data = super().clean()
        data["layers"] = {
            role: self.solutions.get(data.get(f"layer_{role}") or "") for role in LayerRole.values
        }
        return data


class EliminateForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason for elimination"),
        max_length=text_limit(Candidate, "elimination_reason"),
        error_messages={"required": _("Give the reason for eliminating this candidate.")},
    )
    version = VersionField()


class RestoreForm(forms.Form):
    version = VersionField()


class AnswerForm(forms.Form):
    """One answer, with the fields of the question's scale: who (the evaluation's parties,
    several allowed), what the budget weighs more, or yes / partly / no."""

    parties = forms.MultipleChoiceField(
        label=_("Who"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={
            "invalid_choice": _("%(value)s is not one of this evaluation's parties."),
        },
    )
    assessment = forms.ChoiceField(label=_("Assessment"), choices=Assessment.choices)
    budget = forms.ChoiceField(label=_("The budget weighs more"), choices=BudgetFocus.choices)
    explanation = forms.CharField(
        label=_("Explanation"),
        required=False,
        max_length=text_limit(QuestionAnswer, "explanation"),
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    evidence_url = forms.URLField(
        label=_("Evidence link"), required=False, max_length=500, assume_scheme="https"
    )
    version = VersionField()

    SCALE_FIELDS = {
        AnswerScale.PARTIES: "parties",
        AnswerScale.BUDGET: "budget",
        AnswerScale.ASSESSMENT: "assessment",
    }

    def __init__(self, *args, scale: str, parties=(), **kwargs):
        super().__init__(*args, **kwargs)
        keep = self.SCALE_FIELDS.get(scale, "assessment")
        for name in set(self.SCALE_FIELDS.values()) - {keep}:
            del self.fields[name]
        if "parties" in self.fields:
            self.fields["parties"].choices = list(parties)

    def answer_values(self) -> dict:
        """The service's keyword arguments for the scale's field."""
        data = self.cleaned_data
        return {name: data[name] for name in self.SCALE_FIELDS.values() if name in self.fields}


class DecisionForm(forms.Form):
    chosen = forms.ModelMultipleChoiceField(
        queryset=None,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        label=_("Chosen candidate(s)"),
    )
    rationale = forms.CharField(
        label=_("Rationale"),
        required=False,
        max_length=text_limit(Decision, "rationale"),
        widget=forms.Textarea(attrs={"rows": 4}),
    )
    decided_on = forms.DateField(label=_("Decision date"), required=False, widget=DateInput())
    decided_by = forms.CharField(label=_("Decided by"), required=False, max_length=200)
    version = VersionField()

    def __init__(self, *args, evaluation, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["chosen"].queryset = evaluation.candidates.filter(
            status=CandidateStatus.SHORTLISTED
        ).select_related("solution")
        self.fields["chosen"].label_from_instance = lambda c: c.name


class TransitionForm(forms.Form):
    status = forms.ChoiceField(choices=[])
    reason = forms.CharField(
        required=False,
        max_length=text_limit(StatusChange, "reason"),
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, **kwargs):
        from .models import Status

        super().__init__(*args, **kwargs)
        self.fields["status"].choices = Status.choices


class MemberAddForm(forms.Form):
    # Named `username` (what is sent is the username picked from the list); a name or an e-mail
    # address only one account has is taken too (evaluations.people).
    username = forms.CharField(
        label=_("Person (name, username or e-mail)"),
        max_length=254,
        widget=forms.TextInput(attrs={"autocomplete": "off", "list": "member-options"}),
    )
    role = forms.ChoiceField(label=_("Role"), choices=MemberRole.choices)

    def clean_username(self):
        try:
            return person_named(self.cleaned_data["username"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(label=_("Role"), choices=MemberRole.choices)


class AcceptSuggestionsForm(forms.Form):
    """Which suggested solutions to add (by id); none ticked means every suggestion."""

    solution = forms.TypedMultipleChoiceField(coerce=int, required=False, choices=[])
    # Required by the service for a suggestion outside the chosen type, and only then.
    reason = forms.CharField(
        label=_("Why add it although it is outside the chosen type"),
        required=False,
        max_length=text_limit(Candidate, "reason"),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["solution"]
        field.choices = [(v, v) for v in self.data.getlist("solution") if v.isdigit()]


class CandidateActionForm(forms.Form):
    """Names the candidate a row's button acts on (checked against the evaluation in the view)."""

    candidate = IntegerField(min_value=1)


class EliminateCandidateForm(CandidateActionForm, EliminateForm):
    pass


class RestoreCandidateForm(CandidateActionForm, RestoreForm):
    pass


class WaiverForm(CandidateActionForm):
    """Which hard constraint of which candidate a waiver button acts on."""

    constraint = forms.ModelChoiceField(
        queryset=Constraint.objects.filter(is_active=True),
        to_field_name="key",
        error_messages={"invalid_choice": _("That is not one of the hard constraints.")},
    )


class WaiveForm(WaiverForm):
    reason = forms.CharField(
        label=_("Why the decision may accept this"),
        max_length=text_limit(ConstraintWaiver, "reason"),
        error_messages={"required": _("Say why the decision may accept this violation.")},
    )


class MembershipForm(forms.Form):
    membership = IntegerField(min_value=1)


class MemberChangeRoleForm(MembershipForm, MemberRoleForm):
    pass


class TypeDecisionForm(forms.Form):
    """The type that carries the main responsibility (none clears it), and why."""

    main_type = forms.ModelChoiceField(
        queryset=SolutionType.objects.all(),
        to_field_name="slug",
        required=False,
        error_messages={"invalid_choice": _("That is not one of the solution types.")},
    )
    reason = forms.CharField(required=False, max_length=text_limit(Evaluation, "main_type_reason"))
    version = VersionField()


class ReminderKeyForm(forms.Form):
    """Which open high reminder an acknowledgement (or its withdrawal) is about."""

    key = forms.CharField(max_length=200)


class AcknowledgeForm(ReminderKeyForm):
    reason = forms.CharField(
        label=_("Why decide while this reminder is open"),
        max_length=text_limit(ReminderAcknowledgement, "reason"),
        widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={
            "required": _("Say why the evaluation may be decided while this reminder is open.")
        },
    )
    version = VersionField()
