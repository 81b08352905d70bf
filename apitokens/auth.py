"""How API calls authenticate: a personal token (`Authorization: Bearer <token>`), the
browser's session, and HTTP Basic only where an installation turns it on (API_BASIC_AUTH).

A token is checked without the password hasher: looked up by its first characters and compared
by its SHA-512 digest (django-rest-knox), so a refused call costs a query, not a quarter of a
second of CPU. Its owner must still be active, and a read-only token is refused any write
before the view runs. Its last use is written at most once a minute (LAST_USE_EVERY), with a
plain UPDATE that touches nothing else.

HTTP Basic runs the password hasher on every call, so a stream of made-up credentials is an
easy way to load the server: when it is on, attempts are counted per client address and
refused past API_BASIC_AUTH_RATE before any password is checked."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from rest_framework import exceptions
from rest_framework.authentication import BasicAuthentication
from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import SimpleRateThrottle

from common.client_ip import client_ip

from .models import ApiToken

LAST_USE_EVERY = timedelta(minutes=1)


class TokenAuthentication(KnoxTokenAuthentication):
    def authenticate_header(self, request):
        # What a 401 offers: the token, and HTTP Basic where it is on.
        bearer = super().authenticate_header(request)
        return f'{bearer}, Basic realm="api"' if settings.API_BASIC_AUTH else bearer

    def authenticate_credentials(self, token: bytes):
        # A header that is not text (hostile or broken) is a wrong token, not a server error.
        try:
            token.decode("utf-8")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
        return super().authenticate_credentials(token)

    def validate_user(self, auth_token: ApiToken):
        user, token = super().validate_user(auth_token)
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at >= LAST_USE_EVERY:
            # In a savepoint: a reading request on SQLite may not get the write lock at once
            # (common/sqlite3), and then the use is recorded by a later call, not refused.
            try:
                with transaction.atomic():
                    ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
                token.last_used_at = now
            except DatabaseError:
                pass
        return user, token

    def authenticate(self, request):
        found = super().authenticate(request)
        if found is not None and found[1].read_only and request.method not in SAFE_METHODS:
            raise exceptions.PermissionDenied(
                _("This API token is read-only: make a read-and-write token to change data.")
            )
        return found


class BasicAttempts(SimpleRateThrottle):
    """HTTP Basic attempts per client address (the real one behind TRUSTED_PROXIES)."""

    scope = "basic"
    cache = cache

    def get_rate(self):
        return settings.API_BASIC_AUTH_RATE

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": client_ip(request)}


class OptionalBasicAuthentication(BasicAuthentication):
    """DRF's HTTP Basic, only while API_BASIC_AUTH is on, and throttled (see above)."""

    def authenticate(self, request):
        if not settings.API_BASIC_AUTH:
            return None
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if header[:6].lower() != "basic ":
            return None
        attempts = BasicAttempts()
        if not attempts.allow_request(request, None):
            raise exceptions.Throttled(attempts.wait())
        return super().authenticate(request)
