from django import forms
from django.utils.translation import gettext_lazy as _

from .models import AcceleratorSupport, CapabilityClaim, Solution
from .selectors import MAX_COMPARE, MIN_COMPARE
from .services import claim_validate_sources


class CompareForm(forms.Form):
    """Which solutions to put side by side: 2 to 8, by slug, in the order chosen."""

    s = forms.ModelMultipleChoiceField(
        queryset=Solution.objects.select_related("solution_type"),
        to_field_name="slug",
        required=False,
        label=_("Solutions"),
        error_messages={
            "invalid_choice": _("There is no solution '%(value)s' in the catalog."),
        },
    )

    def __init__(self, data=None, **kwargs):
        if data is not None:
            # An empty "s=" (e.g. nothing ticked) means no choice, not an unknown solution.
            data = data.copy()
            data.setlist("s", [v.strip() for v in data.getlist("s") if v.strip()])
        super().__init__(data, **kwargs)

    def clean_s(self):
        chosen = self.cleaned_data["s"]
        if not (MIN_COMPARE <= len(chosen) <= MAX_COMPARE):
            raise forms.ValidationError(
                _("Choose between %(min)d and %(max)d solutions to compare (you chose %(n)d).")
                % {"min": MIN_COMPARE, "max": MAX_COMPARE, "n": len(chosen)}
            )
        order = {slug: i for i, slug in enumerate(self.data.getlist("s"))}
        return sorted(chosen, key=lambda s: order.get(s.slug, 0))


class CapabilityClaimAdminForm(forms.ModelForm):
    class Meta:
        model = CapabilityClaim
        fields = (
            "solution",
            "capability",
            "level",
            "as_of_version",
            "checked_on",
            "sources",
            "verified_in_poc",
            "note",
        )

    def clean(self):
        cleaned = super().clean()
        if "level" in cleaned:
            claim_validate_sources(level=cleaned["level"], sources=cleaned.get("sources") or [])
        return cleaned


class AcceleratorSupportAdminForm(CapabilityClaimAdminForm):
    """The same rule as a claim's: a level other than unknown needs a source."""

    class Meta:
        model = AcceleratorSupport
        fields = ("solution", "family", "level", "as_of_version", "checked_on", "sources", "note")
