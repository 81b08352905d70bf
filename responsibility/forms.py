from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy as _

from common.fields import text_limit
from common.forms import DecimalField, IntegerField, VersionField, number_formfield

from .models import AreaRow, CostInput, CostSettings, PartyKind


class PartyForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)
    kind = forms.ChoiceField(label=_("Kind"), choices=PartyKind.choices)


class CostSettingsForm(forms.ModelForm):
    version = VersionField()

    class Meta:
        model = CostSettings
        fields = ["years", "currency", "fte_cost_per_year"]
        formfield_callback = number_formfield


class CostInputForm(forms.ModelForm):
    version = VersionField()

    class Meta:
        model = CostInput
        fields = CostInput.INPUT_FIELDS
        formfield_callback = number_formfield


class WhatIfForm(forms.Form):
    """Change a few drivers and see the totals, without saving anything."""

    gpu_count = IntegerField(label=_("Cloud GPUs"), min_value=0, required=False)
    utilisation = DecimalField(
        label=_("Utilisation (0–1)"),
        min_value=Decimal("0"),
        max_value=Decimal("1"),
        decimal_places=3,
        required=False,
    )
    fte_cost_per_year = DecimalField(
        label=_("Loaded cost per FTE-year"),
        min_value=Decimal("0"),
        decimal_places=2,
        required=False,
    )

    def __init__(self, *args, **kwargs):
        # Its own ids: the settings form on the same page has a fte_cost_per_year field too. A
        # prefix would rename the query parameters, which the page and the API share.
        kwargs.setdefault("auto_id", "id_what_if_%s")
        super().__init__(*args, **kwargs)

    def overrides(self) -> dict:
        if not self.is_valid():
            return {}
        return {k: v for k, v in self.cleaned_data.items() if v is not None}


class MatrixCellForm(forms.Form):
    """One cell of a matrix row: the party's letter (empty clears it)."""

    area = forms.SlugField()
    party = IntegerField(min_value=1)
    letter = forms.CharField(required=False, max_length=10)
    version = VersionField()


class MatrixRowForm(forms.Form):
    """A row's note and internal effort (FTE)."""

    area = forms.SlugField()
    note = forms.CharField(label=_("Note"), required=False, max_length=text_limit(AreaRow, "note"))
    internal_fte = DecimalField(
        label=_("Internal FTE"),
        required=False,
        min_value=Decimal("0"),
        max_value=Decimal("50"),
        max_digits=5,
        decimal_places=2,
    )
    version = VersionField()
