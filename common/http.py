"""HTTP plumbing every API shares: preconditions (If-Match / version, ETag), the error bodies
of the OpenAPI schema, and the version field of serializers.

Concurrency over HTTP: every editable resource carries `version` and answers with
`ETag: "<version>"`. A write names the version it edited either as `If-Match: "<n>"`
(mismatch: 412) or as `version` in the body (mismatch: 409); both show the saved value in
`current`. Updating a saved row without either is refused with 428. For a row that does not
exist yet the version is 0, so creating it needs no precondition.
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from dataclasses import dataclass

from django.core.exceptions import FieldDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular import openapi
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import permissions, serializers
from rest_framework.exceptions import APIException, ParseError
from rest_framework.response import Response

from .exceptions import PreconditionFailed, StaleEdit
from .numbers import parse_decimal, parse_integer

VERSION_HELP = (
    "The version you edited (from GET). Alternatively send it as the If-Match header. "
    "Required when the row already exists; 0 or absent when creating it."
)


class PlainNumberMixin:
    """Reads the value with `parse` (common.numbers) before DRF does: DRF's own parsing takes
    NaN, Infinity, "1_000" and other scripts' digits."""

    parse = staticmethod(parse_decimal)

    def to_internal_value(self, data):
        try:
            number = self.parse(data)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from exc
        return super().to_internal_value(number)


class DecimalField(PlainNumberMixin, serializers.DecimalField):
    """An API decimal: plain decimals only, finite."""


class IntegerField(PlainNumberMixin, serializers.IntegerField):
    """An API whole number: ASCII digits only."""

    parse = staticmethod(parse_integer)


STRICT_NUMBER_FIELDS: dict = {
    **serializers.ModelSerializer.serializer_field_mapping,
    models.DecimalField: DecimalField,
    models.IntegerField: IntegerField,
    models.PositiveIntegerField: IntegerField,
    models.PositiveSmallIntegerField: IntegerField,
    models.SmallIntegerField: IntegerField,
    models.BigIntegerField: IntegerField,
}


class ModelSerializer(serializers.ModelSerializer):
    """DRF's ModelSerializer whose number fields read plain numbers only (common.numbers)."""

    serializer_field_mapping = STRICT_NUMBER_FIELDS


class VersionField(serializers.IntegerField):
    def __init__(self, **kwargs):
        super().__init__(min_value=0, required=False, help_text=VERSION_HELP, **kwargs)


# --- HTTP preconditions ----------------------------------------------------------------------


class PreconditionRequired(APIException):
    status_code = 428
    default_code = "precondition_required"
    default_detail = _(
        "This has been saved before. Send the version you edited, as an If-Match header "
        '(If-Match: "3", the ETag of your GET) or as "version" in the body, so that a '
        "change made meanwhile by someone else is not overwritten."
    )


@dataclass(frozen=True)
class Precondition:
    version: int | None
    from_header: bool = False


def if_match(request) -> int | None:
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    tag = raw.strip()
    if tag.startswith("W/"):
        tag = tag[2:]
    if len(tag) >= 2 and tag[0] == tag[-1] == '"':
        tag = tag[1:-1]
    if not tag.isdigit():
        raise ParseError(
            gettext('If-Match must be one ETag of this resource, for example "3"; got %(v)s.')
            % {"v": raw}
        )
    return int(tag)


def precondition(request, body_version: int | None, *, exists: bool) -> Precondition:
    """The version the client edited; 428 when it updates a saved row without saying which."""
    header = if_match(request)
    if header is not None and body_version is not None and header != body_version:
        raise serializers.ValidationError(
            {
                "version": gettext(
                    "If-Match says version %(h)s but the body says %(b)s; send one of them."
                )
                % {"h": header, "b": body_version}
            }
        )
    if header is not None:
        if not exists and header != 0:
            raise PreconditionFailed(
                gettext('Nothing is saved here yet (ETag "0"); reload and try again.')
            )
        return Precondition(header, from_header=True)
    if body_version is not None:
        return Precondition(body_version)
    if exists:
        raise PreconditionRequired()
    # Creating: 0 means "I saw nothing saved", so a row created meanwhile is not overwritten.
    return Precondition(0)


@contextmanager
def precondition_errors(pre: Precondition):
    """A stale edit detected through If-Match is a failed precondition (412), not a 409."""
    try:
        yield
    except StaleEdit as exc:
        if pre.from_header and not isinstance(exc, PreconditionFailed):
            raise PreconditionFailed(exc.message, current=exc.current) from exc
        raise


def with_etag(response: Response, version: int) -> Response:
    response["ETag"] = f'"{version}"'
    return response


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


class ConflictSerializer(ErrorSerializer):
    missing = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Why a gate refused."
    )
    current = serializers.DictField(
        required=False, help_text="The saved row, when your version was stale."
    )


def error_responses(*codes: int) -> dict:
    """The documented error answers of an operation, by status code."""
    described = {
        400: (OpenApiTypes.OBJECT, "Invalid input; the body names each bad field."),
        401: (ErrorSerializer, "Sign in first: HTTP Basic or a session."),
        403: (ErrorSerializer, "Your role in this evaluation does not allow this."),
        404: (ErrorSerializer, "Not found, or you are not a member of this evaluation."),
        409: (
            ConflictSerializer,
            "Not possible in the current state, your body version is stale, or (deleting) other "
            "rows still refer to it.",
        ),
        412: (ConflictSerializer, "If-Match names a version that is no longer saved."),
        428: (ErrorSerializer, "Send If-Match or version to update a saved row."),
    }
    return {
        code: OpenApiResponse(response=described[code][0], description=described[code][1])
        for code in codes
    }


READ_ERRORS = error_responses(404)
WRITE_ERRORS = error_responses(400, 403, 404, 409)
VERSIONED_WRITE_ERRORS = error_responses(400, 403, 404, 409, 412, 428)


def _blank_in_model(field) -> bool:
    """Whether the model field behind a serializer field may hold ""."""
    model = getattr(getattr(field.parent, "Meta", None), "model", None)
    try:
        return model._meta.get_field(field.source).blank
    except (AttributeError, FieldDoesNotExist):
        return False


IF_MATCH = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    description='The ETag of your GET, e.g. "3": the version you edited, instead of `version` '
    "in the body. A stale one gets 412.",
    pattern=r'^(W/)?("[0-9]+"|[0-9]+)$',
)


class AutoSchema(openapi.AutoSchema):
    """The API's schema generator (DEFAULT_SCHEMA_CLASS). Each view documents its own errors;
    this adds the ones any request can get: 400 (a NUL character in the path, query or body, a
    malformed query or body), 401 (not signed in), 403 for a write (the role may not) and 404
    when the path names something. A write that documents 412 takes If-Match."""

    def get_override_parameters(self):
        parameters = super().get_override_parameters()
        responses = self.get_response_serializers()
        if isinstance(responses, dict) and 412 in responses:
            parameters = [*parameters, IF_MATCH]
        return parameters

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        codes = [400, 401]
        if self.method not in permissions.SAFE_METHODS:
            codes.append(403)
        if "{" in self.path:
            codes.append(404)
        for code, response in error_responses(*codes).items():
            if str(code) not in responses:
                responses[str(code)] = self._get_response_for_code(response, str(code))
        return responses

    def _insert_field_validators(self, field, schema):
        # DRF drops allow_blank from a read-only model field, but the row may hold "" (e.g. an
        # answer without an evidence link): let the schema admit "" as a writable field's does.
        if field.read_only and isinstance(field, serializers.CharField) and _blank_in_model(field):
            field = copy.copy(field)
            field.allow_blank = True
        super()._insert_field_validators(field, schema)
