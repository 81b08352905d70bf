"""One exception handler for the API: domain errors become 400/403/409/412 with a message."""

from django.core.exceptions import PermissionDenied, ValidationError
from rest_framework import exceptions, status
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


def exception_handler(exc, context):
    if isinstance(exc, ValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        response = Response(detail, status=status.HTTP_400_BAD_REQUEST)
    elif isinstance(exc, DomainError):
        response = Response(_domain_body(exc, context), status=exc.status_code)
    else:
        if isinstance(exc, PermissionDenied):
            exc = exceptions.PermissionDenied()
        return drf_exception_handler(exc, context)
    # As DRF does for its own errors: nothing written earlier in this request is kept. The body
    # is built first, since it may read the saved row.
    set_rollback()
    return response
