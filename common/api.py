"""One exception handler for the API: domain errors become 400/403/409/412 with a message, and
deleting a row other rows still refer to is a 409. A URL under /api/ that names nothing answers
404 in JSON, like the API's other errors (config.urls' handler404)."""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connections
from django.db.models import ProtectedError, RestrictedError
from django.http import JsonResponse
from django.utils.translation import gettext
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from .exceptions import DomainError
from .templatetags.lists import listing


def _domain_body(exc: DomainError, context) -> dict:
    body = {"detail": exc.message}
    missing = getattr(exc, "missing", None)
    if missing:
        body["missing"] = missing
    if exc.current is not None:
        view = context.get("view")
        serializer = getattr(view, "current_serializer", None) if view else None
        current = exc.current
        body["current"] = serializer(current) if serializer else {"version": current.version}
    return body


def _still_referred_to(exc: ProtectedError | RestrictedError) -> dict:
    """PROTECT and RESTRICT refuse a delete (e.g. a catalog solution that candidates name)."""
    rows = exc.protected_objects if isinstance(exc, ProtectedError) else exc.restricted_objects
    kinds = sorted({str(row._meta.verbose_name_plural) for row in rows})
    return {
        "detail": gettext("This cannot be deleted while other records refer to it: %(kinds)s.")
        % {"kinds": listing(kinds)}
    }


def _atomic_view(context) -> bool:
    """False for views marked transaction.non_atomic_requests (report requests commit their run
    before they hand it to the worker)."""
    dispatch = getattr(context.get("view"), "dispatch", None)
    return not getattr(dispatch, "_non_atomic_requests", None)


def exception_handler(exc, context):
    atomic = _atomic_view(context)
    if isinstance(exc, ValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        response = Response(detail, status=status.HTTP_400_BAD_REQUEST)
    elif isinstance(exc, DomainError):
        response = Response(_domain_body(exc, context), status=exc.status_code)
    elif isinstance(exc, ProtectedError | RestrictedError):
        response = Response(_still_referred_to(exc), status=status.HTTP_409_CONFLICT)
    else:
        if isinstance(exc, PermissionDenied):
            exc = exceptions.PermissionDenied()
        # A refused sign-in wrote nothing of the view's, but django-axes has recorded the failed
        # attempt in this request's transaction: keep it, or guessing over HTTP Basic would
        # never lock. Other errors roll back what the request wrote, as DRF does.
        signing_in = isinstance(exc, exceptions.AuthenticationFailed)
        if atomic and not signing_in:
            return drf_exception_handler(exc, context)
        # DRF marks the innermost atomic block for rollback. A non-atomic view has no block of
        # its own (its services' blocks have already unwound), so leave any outer one alone;
        # nor does a refused sign-in roll back.
        before = {c.alias: c.needs_rollback for c in connections.all() if c.in_atomic_block}
        response = drf_exception_handler(exc, context)
        for alias, needs_rollback in before.items():
            connections[alias].set_rollback(needs_rollback)
        return response
    # As DRF does for its own errors: nothing written earlier in this request is kept. The body
    # is built first, since it may read the saved row.
    if atomic:
        set_rollback()
    return response


def not_found(request, exception):
    """handler404: an API client gets JSON wherever it knocks, pages get the HTML page."""
    if request.path_info.startswith("/api/"):
        return JsonResponse({"detail": str(exceptions.NotFound.default_detail)}, status=404)
    return defaults.page_not_found(request, exception)
