from __future__ import annotations

from datetime import timedelta

from django import forms
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from common.forms import DateInput

from .models import ApiToken, Scope

DEFAULT_DAYS = 90


class TokenForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=ApiToken._meta.get_field("name").max_length,
        help_text=_("What the token is for, e.g. “import of the POC measurements”."),
        error_messages={"required": _("Name the token: what or who will use it.")},
    )
    scope = forms.ChoiceField(
        label=_("Scope"),
        choices=Scope.choices,
        initial=Scope.READ,
        widget=forms.RadioSelect,
    )
    expires = forms.DateField(
        label=_("Expires on"),
        widget=DateInput(),
        error_messages={"required": _("Give the date the token stops working.")},
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        self.fields["expires"].initial = timezone.localdate() + timedelta(days=DEFAULT_DAYS)

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError(_("Name the token: what or who will use it."))
        if ApiToken.objects.filter(user=self.user, name=name).exists():
            raise forms.ValidationError(
                _("You already have a token named “%(name)s”: choose another name."),
                params={"name": name},
            )
        return name

    def clean_expires(self):
        day = self.cleaned_data["expires"]
        today = timezone.localdate()
        longest = today + timedelta(days=settings.API_TOKEN_MAX_DAYS)
        if day <= today:
            raise forms.ValidationError(_("Choose a day after today."))
        if day > longest:
            raise forms.ValidationError(
                _("A token may last %(days)s days at most: choose %(day)s or earlier."),
                params={"days": settings.API_TOKEN_MAX_DAYS, "day": longest.isoformat()},
            )
        return day
