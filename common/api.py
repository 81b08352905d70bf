"""One exception handler for the API: domain errors become 400/403/409/412 with a message."""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connections
from django.utils.translation import gettext
from rest_framework import exceptions, status
from rest_framework.metadata import SimpleMetadata
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from .exceptions import DomainError


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


class Pagination(LimitOffsetPagination):
    """Limit/offset pages with a ceiling: `limit` above MAX_LIMIT is cut to it, and a limit or
    offset too large for the database (e.g. 10^20) is refused with 400, not passed on."""

    max_limit = 200
    max_offset = 2**31 - 1

    def get_offset(self, request):
        raw = request.query_params.get(self.offset_query_param, "")
        if raw.isascii() and raw.isdigit() and int(raw) > self.max_offset:
            raise exceptions.ValidationError(
                {self.offset_query_param: gettext("The offset is too large.")}
            )
        return super().get_offset(request)


class Metadata(SimpleMetadata):
    """OPTIONS answers with the view's name and what it accepts, without building a serializer
    for an object (several views have none to build from, and a non-member must learn nothing)."""

    def determine_actions(self, request, view):
        return {}
