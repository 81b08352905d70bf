"""A row per requested report (who, when, language, status, progress, file, error) that the
worker updates and the page polls. The data a report was built from is stored with it."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from evaluations.models import Evaluation

from . import sections as report_sections


class RunStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RENDERING = "rendering", _("Rendering")
    DONE = "done", _("Done")
    FAILED = "failed", pgettext_lazy("report run", "Failed")


class ReportRun(models.Model):
    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="report_runs")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    language = models.CharField(_("language"), max_length=10, choices=settings.LANGUAGES)
    status = models.CharField(
        _("status"), max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED
    )
    progress = models.PositiveSmallIntegerField(_("progress"), default=0)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    error = models.TextField(_("error"), blank=True)
    sections = models.JSONField(
        _("sections"), default=list, help_text=_("The sections printed after the cover.")
    )
    snapshot = models.JSONField(_("snapshot"))
    snapshot_sha256 = models.CharField(_("snapshot SHA-256"), max_length=64)
    pdf = models.FileField(upload_to="reports/%Y/%m/", blank=True)
    pdf_sha256 = models.CharField(_("PDF SHA-256"), max_length=64, blank=True)
    pdf_size = models.PositiveIntegerField(_("PDF size"), null=True, blank=True)
    pages = models.PositiveIntegerField(_("pages"), null=True, blank=True)
    created_at = models.DateTimeField(_("requested"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("report run")
        verbose_name_plural = _("report runs")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=RunStatus.values), name="report_run_status_valid"
            )
        ]
        # The metrics scrape counts runs per status and aggregates those finished lately
        # (reports/metrics.py): one index serves both as the table grows.
        indexes = [
            models.Index(fields=["status", "finished_at"], name="report_run_status_finished")
        ]

    def __str__(self) -> str:
        return f"{self.evaluation} · {self.language} · {self.get_status_display()}"

    @property
    def section_labels(self) -> list[str]:
        return report_sections.labels(self.sections)

    @property
    def complete(self) -> bool:
        return list(self.sections) == report_sections.ALL

    @property
    def finished(self) -> bool:
        return self.status in (RunStatus.DONE, RunStatus.FAILED)
