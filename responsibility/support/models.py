"""A candidate's support terms: one row per term it commits to, each with its source."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from common.concurrency import VersionedModel
from common.placeholders import is_placeholder_url
from common.validators import no_hidden_characters
from evaluations.models import Candidate

from .terms import BY_KEY, CHOICES


class SourceKind(models.TextChoices):
    CONTRACT = "contract", _("Contract clause")
    WRITTEN = "written", _("Vendor's written answer")
    MINUTES = "minutes", _("Meeting minutes")
    LINK = "link", _("Published page (link)")


class SupportTerm(VersionedModel):
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="support_terms")
    term = models.CharField(_("term"), max_length=40, choices=CHOICES)
    amount = models.DecimalField(_("value"), max_digits=6, decimal_places=1, null=True, blank=True)
    text = models.CharField(
        _("commitment"), max_length=300, blank=True, validators=[no_hidden_characters]
    )
    source_kind = models.CharField(
        _("source"), max_length=10, choices=SourceKind.choices, default=SourceKind.CONTRACT
    )
    source = models.CharField(
        _("where it is written"),
        max_length=300,
        validators=[no_hidden_characters],
        help_text=_("The clause, who answered and when, or which meeting."),
    )
    source_url = models.URLField(
        _("link"), max_length=500, blank=True, validators=[no_hidden_characters]
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["candidate", "term"]
        verbose_name = _("support term")
        verbose_name_plural = _("support terms")
        constraints = [
            models.UniqueConstraint(fields=["candidate", "term"], name="support_term_unique")
        ]

    def __str__(self) -> str:
        return f"{self.candidate} · {self.term}"

    @property
    def definition(self):
        return BY_KEY[self.term]

    def clean(self):
        super().clean()
        term = BY_KEY.get(self.term)
        if term is None:
            return  # the field's own choices message says so
        errors = {}
        if term.is_number:
            self.text = ""
            if self.amount is None:
                errors["amount"] = gettext("Enter the number of %(unit)s for “%(term)s”.") % {
                    "unit": term.unit_name,
                    "term": term.label,
                }
            elif self.amount < term.low or self.amount > term.high:
                errors["amount"] = gettext(
                    "“%(term)s” must be between %(low)s and %(high)s %(unit)s; "
                    "for a longer time, write it in the source and enter %(high)s."
                ) % {
                    "term": term.label,
                    "low": term.low,
                    "high": term.high,
                    "unit": term.unit_name,
                }
        else:
            self.amount = None
            self.text = (self.text or "").strip()
            if not self.text:
                errors["text"] = gettext("Write what is committed for “%(term)s”.") % {
                    "term": term.label
                }
        self.source = (self.source or "").strip()
        if not self.source:
            errors["source"] = gettext(
                "Say where this is written: the contract clause, who answered in writing and "
                "when, or which meeting's minutes."
            )
        if self.source_kind == SourceKind.LINK and not self.source_url:
            errors["source_url"] = gettext("A published page needs its link.")
        elif self.source_url and is_placeholder_url(self.source_url):
            errors["source_url"] = gettext(
                "This address is a placeholder, not a source; link the real page."
            )
        if errors:
            raise ValidationError(errors)
