"""Form plumbing every app's pages share: the version a page write carries, and attaching a
service's ValidationError to the form that sent the input."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from .numbers import parse_decimal, parse_integer

VERSION_MISSING = _(
    "This form was sent without the version of what you edited, so a change saved meanwhile by "
    "someone else could be overwritten. Reload the page and apply your change again."
)


class IntegerField(forms.IntegerField):
    """A form's whole number, read by common.numbers.parse_integer (ASCII digits only)."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        return parse_integer(value)


class VersionField(IntegerField):
    """The version of the row the form edits (0 when it showed nothing saved). Required: a page
    write without it is refused (428), as the API refuses one without If-Match or version."""

    widget = forms.HiddenInput

    def __init__(self, **kwargs):
        kwargs.setdefault("error_messages", {"required": VERSION_MISSING})
        super().__init__(min_value=0, required=True, **kwargs)


def version_missing(form: forms.BaseForm) -> bool:
    """Whether a bound form has a version field the request did not fill (a form of several
    rows, `versioned_rows`, answers for each row it saves)."""
    if getattr(form, "versioned_rows", False):
        return form.row_versions_missing()
    field = form.fields.get("version")
    if not isinstance(field, VersionField):
        return False
    return form.data.get(form.add_prefix("version"), "") in ("", None)


def form_errors_from(form: forms.BaseForm, exc: ValidationError) -> None:
    """Attach a service's ValidationError to the form (unknown fields become form errors)."""
    if hasattr(exc, "error_dict"):
        for name, errors in exc.message_dict.items():
            form.add_error(name if name in form.fields else None, errors)
    else:
        form.add_error(None, exc.messages)


def form_error_text(form: forms.BaseForm) -> str:
    """All of a form's errors as one sentence per field ("Label: message")."""
    parts = []
    for name, errors in form.errors.items():
        label = form.fields[name].label if name in form.fields else None
        text = " ".join(errors)
        parts.append(f"{label}: {text}" if label else text)
    return " ".join(parts)


class DecimalField(forms.DecimalField):
    """A form's decimal, read by common.numbers.parse_decimal (plain ASCII decimals only)."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        return parse_decimal(value)


def number_formfield(db_field, **kwargs):
    """Meta.formfield_callback for model forms: their decimal and integer fields read like
    DecimalField and IntegerField above."""
    from django.db import models

    if isinstance(db_field, models.DecimalField):
        kwargs.setdefault("form_class", DecimalField)
    elif isinstance(db_field, models.IntegerField) and not db_field.choices:
        kwargs.setdefault("form_class", IntegerField)
    return db_field.formfield(**kwargs)


class FileInput(forms.FileInput):
    """A file field whose button and "no file chosen" are the page's language, not the browser's:
    the browser's own control is hidden (still focusable and labelled) behind a label that opens
    it; static/js/app.js shows the chosen file's name."""

    template_name = "common/widgets/file_input.html"

    def __init__(self, attrs=None):
        super().__init__({"class": "file-input", **(attrs or {})})


class DateInput(forms.DateInput):
    """A browser date picker (`type=date`). Its value is always ISO (2026-12-04), whatever the
    language: the field accepts nothing else and shows a localised value (2026/12/04) as empty,
    so saving the form again would clear the date."""

    input_type = "date"

    def __init__(self, attrs=None):
        super().__init__(attrs, format="%Y-%m-%d")
