"""A file of measured values a reviewer imported (registered under the `poc` app through
poc/models.py)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from common.querysets import SignallingModel
from evaluations.models import Evaluation


class MeasurementImport(SignallingModel):
    """A file of measured values a reviewer imported as their own draft scores: kept as it was
    sent (SHA-256), with what each row set; the scores it set carry it as evidence too."""

    evaluation = models.ForeignKey(
        Evaluation, on_delete=models.CASCADE, related_name="measurement_imports"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    file = models.FileField(upload_to="imports/%Y/%m/")
    original_name = models.CharField(_("file name"), max_length=200)
    content_type = models.CharField(_("type"), max_length=100)
    size = models.PositiveIntegerField(_("size"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    row_count = models.PositiveIntegerField(_("rows"))
    rows = models.JSONField(_("rows imported"), default=list, blank=True)
    scores = models.ManyToManyField("poc.Score", blank=True, related_name="imports")
    imported_at = models.DateTimeField(_("imported"), auto_now_add=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["-imported_at", "-pk"]
        verbose_name = _("measurement import")
        verbose_name_plural = _("measurement imports")

    def __str__(self) -> str:
        return self.original_name
