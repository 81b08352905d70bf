"""Forms of the "Import measurements" page (views.py)."""

import base64
import binascii
import hashlib

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from common.forms import FileInput

from .files import MAX_BYTES


class ImportUploadForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Measurements file (.csv or .json)"), widget=FileInput()
    )


class ImportApplyForm(forms.Form):
    """The previewed file, carried by the confirm form so that any web worker can apply it; its
    SHA-256 must be the previewed one."""

    name = forms.CharField(max_length=200)
    content = forms.CharField(max_length=MAX_BYTES * 2, strip=False)
    sha256 = forms.RegexField(regex=r"^[0-9a-f]{64}$")
    state = forms.RegexField(regex=r"^[0-9a-f]{32}$")

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            data["bytes"] = base64.b64decode(data["content"].encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):
            damaged = _("The previewed file was damaged; upload it again.")
            raise ValidationError({"content": damaged}) from None
        if hashlib.sha256(data["bytes"]).hexdigest() != data["sha256"]:
            raise ValidationError(
                {"sha256": _("This is not the file you previewed; upload it again.")}
            )
        return data
