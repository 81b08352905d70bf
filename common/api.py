"""One exception handler for the API: domain errors become 400/403/409/412 with a message."""

from django.core.exceptions import PermissionDenied, ValidationError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .exceptions import DomainError


def exception_handler(exc, context):
    if isinstance(exc, ValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        return Response(detail, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, DomainError):
        body = {"detail": exc.message}
        missing = getattr(exc, "missing", None)
        if missing:
            body["missing"] = missing
        current = exc.current
        if current is not None:
            serializer = context.get("view") and getattr(
                context["view"], "current_serializer", None
            )
            body["current"] = serializer(current) if serializer else {"version": current.version}
        return Response(body, status=exc.status_code)
    if isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    return drf_exception_handler(exc, context)
