from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy as _

from evaluations.forms import VersionField

from .models import CostInput, CostSettings, PartyKind


class PartyForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)
    kind = forms.ChoiceField(label=_("Kind"), choices=PartyKind.choices)


class CostSettingsForm(forms.ModelForm):
    version = VersionField()

    class Meta:
        model = CostSettings
        fields = ["years", "currency", "fte_cost_per_year"]


class CostInputForm(forms.ModelForm):
    version = VersionField()

    class Meta:
        model = CostInput
        fields = CostInput.INPUT_FIELDS


class WhatIfForm(forms.Form):
    """Change a few drivers and see the totals, without saving anything."""

    gpu_count = forms.IntegerField(label=_("Cloud GPUs"), min_value=0, required=False)
    utilisation = forms.DecimalField(
        label=_("Utilisation (0–1)"),
        min_value=Decimal("0"),
        max_value=Decimal("1"),
        decimal_places=3,
        required=False,
    )
    fte_cost_per_year = forms.DecimalField(
        label=_("Loaded cost per FTE-year"),
        min_value=Decimal("0"),
        decimal_places=2,
        required=False,
    )

    def overrides(self) -> dict:
        if not self.is_valid():
            return {}
        return {k: v for k, v in self.cleaned_data.items() if v is not None}
