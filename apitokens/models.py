"""Personal API tokens (django-rest-knox's token, with what people manage them by).

The secret is shown once, when the token is made; only its SHA-512 digest is stored (knox).
A token is named by its owner, expires (there is no token without an end date), remembers
when it was last used, and is read-only or read-write. It acts as its owner, with their roles
and memberships and never more. Revoking deletes it: the next request with it is refused."""

from django.db import models
from django.utils.translation import gettext_lazy as _
from knox.models import AbstractAuthToken


class Scope(models.TextChoices):
    READ = "read", _("Read only")
    WRITE = "write", _("Read and write")


class ApiToken(AbstractAuthToken):
    name = models.CharField(_("name"), max_length=100)
    scope = models.CharField(_("scope"), max_length=5, choices=Scope.choices, default=Scope.READ)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(fields=["user", "name"], name="api_token_name_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.user})"

    @property
    def read_only(self) -> bool:
        return self.scope == Scope.READ
