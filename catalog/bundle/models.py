"""The record of each catalog bundle imported into this installation (catalog/bundle/).

It lives with the rest of the bundle feature; catalog/models.py imports it, which is how Django
and makemigrations find it (app_label catalog, like every catalog model)."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from common.querysets import SignallingModel


class CatalogImport(SignallingModel):
    """One applied bundle: who imported it, when, which catalog (the SHA-256 of its
    catalog.yaml, as its manifest names it) and what it held and changed."""

    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("imported by"),
    )
    imported_at = models.DateTimeField(_("imported at"), default=timezone.now, db_index=True)
    sha256 = models.CharField(_("SHA-256 of catalog.yaml"), max_length=64)
    format_version = models.PositiveSmallIntegerField(_("format version"))
    exported_at = models.DateTimeField(_("exported at"), null=True, blank=True)
    exported_by = models.CharField(_("exported by"), max_length=150, blank=True)
    counts = models.JSONField(_("rows in the bundle"), default=dict, blank=True)
    changes = models.JSONField(
        _("changes"),
        default=dict,
        blank=True,
        help_text=_("Per kind of row: how many were new, changed, unchanged or kept."),
    )

    class Meta:
        ordering = ["-imported_at", "-pk"]
        verbose_name = _("catalog import")
        verbose_name_plural = _("catalog imports")

    def __str__(self) -> str:
        return f"{self.sha256[:12]} ({self.imported_at:%Y-%m-%d %H:%M})"

    @property
    def new_rows(self) -> int:
        return sum(c.get("new", 0) for c in self.changes.values())

    @property
    def changed_rows(self) -> int:
        return sum(c.get("changed", 0) for c in self.changes.values())
