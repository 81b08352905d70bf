"""The forms of the catalog bundle page: the upload to preview, and the confirmation to apply."""

from django import forms
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from common.forms import FileInput

from .common import MAX_BYTES

SHA256 = r"^[0-9a-f]{64}$"


class BundleUploadForm(forms.Form):
    bundle = forms.FileField(
        label=gettext_lazy("Catalog bundle (.zip)"), required=False, widget=FileInput()
    )

    def __init__(self, *args, too_large: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.too_large = too_large

    def clean_bundle(self):
        """Name the size limit when the upload was stopped at it (the file is then missing)."""
        bundle = self.cleaned_data.get("bundle")
        if self.too_large:
            raise forms.ValidationError(
                _("The file is larger than %(limit)s, the most a catalog bundle may hold.")
                % {"limit": filesizeformat(MAX_BYTES)}
            )
        if not bundle:
            raise forms.ValidationError(_("Choose the bundle file (.zip) to preview."))
        return bundle


class BundleApplyForm(forms.Form):
    """The previewed upload, named by its SHA-256 (the server kept the file), and the state of
    the catalog the preview was made against."""

    sha256 = forms.RegexField(regex=SHA256)
    state = forms.RegexField(regex=SHA256)
