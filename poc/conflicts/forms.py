"""Forms of the declared-conflicts page (views.py)."""

from dataclasses import dataclass

from django import forms
from django.utils.translation import gettext_lazy as _

from common.fields import text_limit
from common.forms import IntegerField, VersionField

from .models import ConflictDeclaration


class DeclarationsForm(forms.Form):
    """My declarations, one row per candidate, sent together: per candidate `c<id>-has_conflict`
    (no relationship with its vendor, or one), `c<id>-description` (what it is) and
    `c<id>-version`. A candidate with nothing chosen is left as it is; at least one must be
    chosen."""

    # version_missing (common.forms) asks each chosen row for its version.
    versioned_rows = True
    next = forms.ChoiceField(required=False, choices=[("", ""), ("scorecard", "scorecard")])

    def __init__(self, *args, candidates=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.candidates = list(candidates)
        for c in self.candidates:
            self.fields[f"c{c.pk}-has_conflict"] = forms.TypedChoiceField(
                label=c.name,
                required=False,
                choices=[("no", _("None")), ("yes", _("Yes, as described"))],
                coerce=lambda value: value == "yes",
                widget=forms.RadioSelect,
            )
            self.fields[f"c{c.pk}-description"] = forms.CharField(
                label=_("Relationship: %(candidate)s") % {"candidate": c.name},
                required=False,
                max_length=text_limit(ConflictDeclaration, "description"),
            )
            # Required of the chosen rows only (row_versions_missing: 428 without it).
            self.fields[f"c{c.pk}-version"] = IntegerField(
                min_value=0, required=False, widget=forms.HiddenInput
            )

    def chosen(self, data=None) -> list:
        """The candidates a choice was made for (from the sent data before cleaning)."""
        data = self.data if data is None else data
        return [c for c in self.candidates if data.get(f"c{c.pk}-has_conflict")]

    def row_versions_missing(self) -> bool:
        return any(self.data.get(f"c{c.pk}-version", "") in ("", None) for c in self.chosen())

    def clean(self):
        data = super().clean()
        if not self.chosen():
            raise forms.ValidationError(
                _(
                    "Choose, for at least one candidate, whether you have a relationship with "
                    "its vendor."
                )
            )
        return data

    def rows(self) -> list[tuple]:
        """(candidate, has_conflict, description, version) of each chosen candidate."""
        data = self.cleaned_data
        return [
            (
                c,
                data[f"c{c.pk}-has_conflict"],
                data[f"c{c.pk}-description"],
                data[f"c{c.pk}-version"],
            )
            for c in self.chosen()
        ]


@dataclass
class DeclarationRow:
    """One candidate's row of the declarations form, as the page shows it."""

    choice: str  # "yes", "no" or "" (nothing chosen yet)
    description: str
    version: int
    errors: list


def declaration_rows(candidates, form: DeclarationsForm | None = None) -> list[tuple]:
    """(candidate, row) per candidate: what the sent form held when it was refused, else the
    candidate's saved `declaration` (services.mark_candidates)."""
    rows = []
    for c in candidates:
        d = getattr(c, "declaration", None)
        saved = ("yes" if d.has_conflict else "no") if d else ""
        row = DeclarationRow(saved, d.description if d else "", d.version if d else 0, [])
        if form is not None and form.is_bound:
            prefix = f"c{c.pk}-"
            row.choice = form.data.get(prefix + "has_conflict", "")
            row.description = form.data.get(prefix + "description", "")
            row.errors = [
                e
                for name in ("has_conflict", "description")
                for e in form.errors.get(prefix + name, [])
            ]
        rows.append((c, row))
    return rows


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
