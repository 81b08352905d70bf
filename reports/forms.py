from django import forms

from common.forms import IntegerField

from . import sections


class ReportRequestForm(forms.Form):
    """A report request (language; the sections are read by chosen_sections), or
    `retry` naming a failed run of this evaluation."""

    retry = IntegerField(required=False, min_value=1)
    language = forms.CharField(required=False, max_length=10)


class ReportPreviewForm(forms.Form):
    """The preview's query: language (the reader's when absent) and the chosen sections."""

    language = forms.CharField(required=False, max_length=10)

    def clean(self):
        data = super().clean()
        data["chosen"] = sections.clean_sections(chosen_sections(self.data))
        return data


def chosen_sections(data) -> list[str] | None:
    """The report form sends `choose_sections` with its checkboxes, so ticking none is an
    error rather than "all"; a client that sends neither gets every section."""
    if "sections" in data or "choose_sections" in data:
        return data.getlist("sections")
    return None
