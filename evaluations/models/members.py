"""Who takes part in an evaluation, and in which role."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from common.querysets import SignallingModel

from .evaluation import Evaluation


class MemberRole(models.TextChoices):
    OWNER = "owner", _("Owner")
    EDITOR = "editor", _("Editor")
    REVIEWER = "reviewer", _("Reviewer")
    VIEWER = "viewer", _("Viewer (procurement)")


class Membership(SignallingModel):
    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="evaluation_memberships",
        verbose_name=_("user"),
    )
    role = models.CharField(_("role"), max_length=10, choices=MemberRole.choices)
    added_at = models.DateTimeField(_("added"), auto_now_add=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["evaluation", "role", "user__username"]
        verbose_name = _("member")
        verbose_name_plural = _("members")
        constraints = [
            models.UniqueConstraint(fields=["evaluation", "user"], name="membership_unique"),
            models.CheckConstraint(
                condition=models.Q(role__in=MemberRole.values), name="membership_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.get_role_display()}"
