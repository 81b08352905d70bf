"""The page's form for one support term of one candidate."""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy as _

from common.forms import DecimalField, VersionField

from .models import SourceKind
from .terms import CHOICES


class SupportTermForm(forms.Form):
    candidate = forms.TypedChoiceField(label=_("Candidate"), coerce=int)
    term = forms.ChoiceField(label=_("Term"), choices=CHOICES)
    amount = DecimalField(
        label=_("Value (a number, in the term's unit)"),
        required=False,
        min_value=Decimal("0"),
        max_digits=6,
        decimal_places=1,
    )
    text = forms.CharField(
        label=_("Commitment (for a term written in words)"), required=False, max_length=300
    )
    source_kind = forms.ChoiceField(label=_("Source"), choices=SourceKind.choices)
    source = forms.CharField(
        label=_("Where it is written"),
        required=False,
        max_length=300,
        help_text=_("The clause, who answered and when, or which meeting."),
    )
    source_url = forms.URLField(label=_("Link"), required=False, max_length=500)
    version = VersionField()

    def __init__(self, data=None, *, candidates=(), **kwargs):
        super().__init__(data, **kwargs)
        self.fields["candidate"].choices = [(c.pk, c.name) for c in candidates]

    def values(self) -> dict:
        """What the service takes, besides the candidate and the version."""
        data = self.cleaned_data
        return {
            "term": data["term"],
            "amount": data["amount"],
            "text": data["text"],
            "source_kind": data["source_kind"],
            "source": data["source"],
            "source_url": data["source_url"],
        }
