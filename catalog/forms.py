from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from common.fields import text_limit
from common.forms import DateInput, VersionField

from .models import (
    LEVEL_RULES,
    AcceleratorSupport,
    CapabilityClaim,
    Solution,
    Source,
    SupportLevel,
)
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


class ClaimEditForm(forms.Form):
    """An administrator's edit of one claim on the solution page, both notes side by side."""

    version = VersionField()
    level = forms.ChoiceField(
        label=_("Support level"), choices=SupportLevel.choices, help_text=LEVEL_RULES
    )
    as_of_version = forms.CharField(
        label=_("As-of version"),
        required=False,
        max_length=text_limit(CapabilityClaim, "as_of_version"),
        help_text=_("The product version the claim describes, e.g. v1.15.1."),
    )
    checked_on = forms.DateField(
        label=_("Checked on"),
        required=False,
        widget=DateInput(),
        error_messages={"invalid": _("Give the day as YYYY-MM-DD.")},
    )
    sources = forms.CharField(
        label=_("Sources"),
        required=False,
        max_length=1000,
        help_text=_("Source keys, separated by commas, e.g. SL-gres, SL-conf."),
    )
    verified_in_poc = forms.BooleanField(
        label=_("Verified in a POC"),
        required=False,
        help_text=_(
            "An evaluation's POC confirmed this level (see the POC verifications to review)."
        ),
    )
    note_en = forms.CharField(
        label=_("Note (English)"),
        required=False,
        max_length=text_limit(CapabilityClaim, "note"),
        widget=forms.Textarea(attrs={"rows": 4, "lang": "en"}),
    )
    note_zh_hans = forms.CharField(
        label=_("Note (Chinese)"),
        required=False,
        max_length=text_limit(CapabilityClaim, "note"),
        widget=forms.Textarea(attrs={"rows": 4, "lang": "zh-Hans"}),
    )

    def clean_sources(self) -> list[Source]:
        keys = []
        for key in self.cleaned_data["sources"].replace("，", ",").split(","):
            if key.strip() and key.strip() not in keys:
                keys.append(key.strip())
        found = {s.key: s for s in Source.objects.filter(key__in=keys)}
        unknown = [k for k in keys if k not in found]
        if unknown:
            raise forms.ValidationError(
                _("No source has the key %(keys)s. Use the keys shown in the Sources column.")
                % {"keys": ", ".join(unknown)}
            )
        return [found[k] for k in keys]

    def clean(self):
        cleaned = super().clean()
        if "level" in cleaned and "sources" in cleaned:
            try:
                claim_validate_sources(level=cleaned["level"], sources=cleaned["sources"])
            except ValidationError as exc:
                self.add_error("sources", exc.message_dict["sources"])
        return cleaned

    @classmethod
    def for_claim(cls, claim: CapabilityClaim, version: int) -> ClaimEditForm:
        return cls(
            initial={
                "version": version,
                "level": claim.level,
                "as_of_version": claim.as_of_version,
                "checked_on": claim.checked_on,
                "sources": ", ".join(s.key for s in claim.sources.all()),
                "verified_in_poc": claim.verified_in_poc,
                "note_en": claim.note_en,
                "note_zh_hans": claim.note_zh_hans,
            }
        )
