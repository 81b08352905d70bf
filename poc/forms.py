from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.models import Capability
from common.fields import text_limit
from common.forms import DecimalField, FileInput, IntegerField, VersionField

from .models import (
    Consensus,
    Direction,
    Outcome,
    PlanCase,
    ScenarioProfile,
    Score,
    TestCase,
    TestGroup,
)


class ScoreForm(forms.Form):
    submit = forms.BooleanField(required=False)

    score = DecimalField(
        label=_("Score"), min_value=0, max_value=5, decimal_places=1, required=False
    )
    measured_value = DecimalField(label=_("Measured"), required=False, decimal_places=4)
    outcome = forms.ChoiceField(label=_("Outcome"), choices=Outcome.choices, initial="not_run")
    notes = forms.CharField(
        label=_("Notes"),
        required=False,
        max_length=text_limit(Score, "notes"),
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    version = VersionField()


class ConsensusForm(forms.Form):
    score = DecimalField(label=_("Agreed score"), min_value=0, max_value=5, decimal_places=1)
    reason = forms.CharField(
        label=_("Reason"),
        max_length=text_limit(Consensus, "reason"),
        widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={"required": _("Say why this is the agreed score.")},
    )
    version = VersionField()


class CustomCaseForm(forms.Form):
    group = forms.ModelChoiceField(queryset=TestGroup.objects.all(), label=_("Group"))
    title = forms.CharField(label=_("Title"), max_length=text_limit(PlanCase, "title"))
    steps = forms.CharField(
        label=_("Steps"),
        required=False,
        max_length=text_limit(PlanCase, "steps"),
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    acceptance = forms.CharField(
        label=_("Acceptance criteria"),
        max_length=text_limit(PlanCase, "acceptance"),
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    weight = DecimalField(label=_("Weight"), min_value=0, initial=3, decimal_places=2)
    metric_name = forms.CharField(label=_("Metric"), required=False, max_length=200)
    metric_unit = forms.CharField(label=_("Unit"), required=False, max_length=40)
    metric_direction = forms.ChoiceField(
        label=_("Direction"), choices=[("", "—"), *Direction.choices], required=False
    )
    metric_threshold = DecimalField(label=_("Threshold"), required=False, decimal_places=4)
    metric_good = DecimalField(
        label=_("Value for 4"),
        required=False,
        decimal_places=4,
        help_text=_("Optional. Empty: 10% better than the threshold scores 4."),
    )
    metric_excellent = DecimalField(
        label=_("Value for 5"),
        required=False,
        decimal_places=4,
        help_text=_("Optional. Empty: 25% better than the threshold scores 5."),
    )
    verifies = forms.ModelMultipleChoiceField(
        queryset=Capability.objects.select_related("group"),
        to_field_name="slug",
        required=False,
        label=_("Verifies capabilities"),
        help_text=_("The catalog capabilities a pass of this case shows a candidate has."),
        error_messages={"invalid_choice": _("That capability is not in the catalog.")},
    )


class LibraryCaseForm(forms.Form):
    case = forms.ModelChoiceField(
        queryset=TestCase.objects.filter(is_active=True).select_related("group"),
        label=_("Library case"),
    )

    def __init__(self, *args, evaluation=None, **kwargs):
        super().__init__(*args, **kwargs)
        if evaluation is not None:
            used = evaluation.poc_cases.exclude(source_case=None).values_list(
                "source_case_id", flat=True
            )
            self.fields["case"].queryset = self.fields["case"].queryset.exclude(pk__in=used)


class EvidenceForm(forms.Form):
    file = forms.FileField(label=_("Evidence file"), widget=FileInput())


class WeightForm(forms.Form):
    """A group's or a case's weight (`id` names the row; the view checks it belongs here)."""

    id = IntegerField(min_value=1)
    weight = DecimalField(
        label=_("Weight"),
        min_value=0,
        max_digits=6,
        decimal_places=2,
        error_messages={"required": _("A weight is a number of 0 or more.")},
    )
    version = VersionField()


class PlanCaseForm(forms.Form):
    id = IntegerField(min_value=1)


class ProfileForm(forms.Form):
    profile = forms.ModelChoiceField(
        queryset=ScenarioProfile.objects.all(), to_field_name="key", label=_("Scenario profile")
    )


class SubmitScoresForm(forms.Form):
    candidate = IntegerField(min_value=1, required=False)
    # Submitting is final: without this the page asks first (poc/submit_confirm.html).
    confirmed = forms.BooleanField(required=False)


class VerifyCapabilityForm(forms.Form):
    """Which catalog capability the POC should verify (a hard constraint left unverified)."""

    capability = forms.ModelChoiceField(
        queryset=Capability.objects.all(),
        to_field_name="slug",
        error_messages={"invalid_choice": _("That capability is not in the catalog.")},
    )
