"""Forms of the declared-conflicts page (poc/views_conflicts.py)."""

from django import forms
from django.utils.translation import gettext_lazy as _

from common.fields import text_limit
from common.forms import IntegerField, VersionField

from .models_conflicts import ConflictDeclaration


class DeclarationForm(forms.Form):
    """My declaration for one candidate: no relationship with its vendor(s), or what it is."""

    candidate = IntegerField(min_value=1)
    has_conflict = forms.TypedChoiceField(
        label=_("Relationship with the vendor"),
        choices=[("no", _("None")), ("yes", _("Yes, as described"))],
        coerce=lambda value: value == "yes",
        widget=forms.RadioSelect,
        error_messages={"required": _("Say whether you have a relationship with the vendor.")},
    )
    description = forms.CharField(
        label=_("Relationship"),
        required=False,
        max_length=text_limit(ConflictDeclaration, "description"),
    )
    next = forms.ChoiceField(required=False, choices=[("", ""), ("scorecard", "scorecard")])
    version = VersionField()


class AllowanceForm(forms.Form):
    """The owner allows scoring despite a declared conflict, with the reason."""

    id = IntegerField(min_value=1)
    reason = forms.CharField(
        label=_("Reason"),
        max_length=text_limit(ConflictDeclaration, "allowance_reason"),
        error_messages={"required": _("Say why this member may score despite the conflict.")},
    )
    version = VersionField()


class RevokeForm(forms.Form):
    """The owner withdraws an allowance."""

    id = IntegerField(min_value=1)
    version = VersionField()
