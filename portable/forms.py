from django import forms
from django.conf import settings
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from common.forms import FileInput


class ArchiveImportForm(forms.Form):
    archive = forms.FileField(
        label=gettext_lazy("Evaluation archive (.zip)"), required=False, widget=FileInput()
    )

    def __init__(self, *args, too_large: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.too_large = too_large

    def clean_archive(self):
        """Name the size limit when the upload was stopped at it (the file is then missing)."""
        archive = self.cleaned_data.get("archive")
        if self.too_large:
            raise forms.ValidationError(
                _("The archive is larger than %(limit)s, the most this instance imports.")
                % {"limit": filesizeformat(settings.PORTABLE_MAX_BYTES)}
            )
        if not archive:
            raise forms.ValidationError(_("Choose the archive file to import."))
        return archive
