"""Stored row status: what a list row and the status strip show of an evaluation (answers
progress and the number of risk reminders), kept so that a page listing many evaluations does
not recompute every reminder of every row. evaluations/digests.py keeps them honest: every
write to an evaluation's data moves its stamp, and a digest counts only while its `seq` equals
the stamp's."""

import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


def new_epoch() -> str:
    return secrets.token_hex(8)


class StatusStamp(models.Model):
    """How many times the evaluation's data has changed (moved after each commit that changed
    it). A digest computed from data read after the stamp showed `seq` is valid while the
    stamp still shows `seq`."""

    evaluation = models.OneToOneField(
        "evaluations.Evaluation",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="status_stamp",
    )
    seq = models.PositiveBigIntegerField(default=0)
    # Drawn again at every move: a database restored from a backup takes `seq` back to numbers
    # it had already passed, never to an epoch drawn since (kept pages live outside it).
    epoch = models.CharField(max_length=16, default=new_epoch)

    class Meta:
        verbose_name = _("status stamp")
        verbose_name_plural = _("status stamps")

    def __str__(self) -> str:
        return f"{self.evaluation_id}@{self.seq}"


class StatusDigest(models.Model):
    """One viewer's row status of one evaluation (reminders count what the viewer may see:
    blind scoring hides other reviewers' scores)."""

    evaluation = models.ForeignKey(
        "evaluations.Evaluation", on_delete=models.CASCADE, related_name="status_digests"
    )
    viewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveBigIntegerField()
    answered = models.PositiveIntegerField()
    total = models.PositiveIntegerField()
    reminders = models.PositiveIntegerField()
    # The reminders themselves, in the language they were worded in when a page that lists
    # them (the overview) computed the status: {"en": [reminder fields, ...]}; {} otherwise.
    items = models.JSONField(default=dict, blank=True)
    computed_at = models.DateTimeField()
    # The day it was counted on (in the site's time zone): a claim turns stale with the date,
    # not with a write, so a status counts only on the day it was computed.
    day = models.DateField(null=True)

    class Meta:
        verbose_name = _("status digest")
        verbose_name_plural = _("status digests")
        constraints = [
            models.UniqueConstraint(fields=["evaluation", "viewer"], name="status_digest_unique")
        ]

    def __str__(self) -> str:
        return f"{self.evaluation_id}/{self.viewer_id}@{self.seq}"
