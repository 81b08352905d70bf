"""Making and revoking personal API tokens."""

from __future__ import annotations

import datetime

from django.db import transaction
from django.utils import timezone

from .models import ApiToken


@transaction.atomic
def token_create(*, user, name: str, scope: str, expires: datetime.date) -> tuple[ApiToken, str]:
    """A new token for `user`, valid to the end of `expires` (the site's time zone); returns it
    and its secret, which is shown once and stored nowhere."""
    end = datetime.datetime.combine(expires, datetime.time.max, timezone.get_current_timezone())
    return ApiToken.objects.create(user=user, expiry=end - timezone.now(), name=name, scope=scope)


def token_revoke(*, user, digest: str) -> bool:
    """Revoke one of `user`'s tokens (False: they have none with that digest)."""
    deleted, _rows = ApiToken.objects.filter(user=user, digest=digest).delete()
    return bool(deleted)
