"""One exception handler for the API: domain validation errors become 400 with field messages."""

from django.core.exceptions import PermissionDenied, ValidationError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc, context):
    if isinstance(exc, ValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        return Response(detail, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    return drf_exception_handler(exc, context)
