"""The classes DRF settings name (DEFAULT_PAGINATION_CLASS, DEFAULT_METADATA_CLASS, the JSON and
multipart ones of DEFAULT_PARSER_CLASSES). They live apart from common.api, which imports
rest_framework.views: that module reads these settings while it loads, so a class named there
must not import it back."""

import codecs

from django.utils.translation import gettext
from rest_framework import exceptions, parsers
from rest_framework.metadata import SimpleMetadata
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.utils.json import strict_constant

from common.parsing import InputRefused, json_loads


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


class EvaluationPagination(Pagination):
    """The evaluation list: each row carries its progress and open reminders, computed for its
    page alone, so pages are smaller than the API's default and have a lower ceiling."""

    default_limit = 20
    max_limit = 100


class Metadata(SimpleMetadata):
    """OPTIONS answers with the view's name and what it accepts, without building a serializer
    for an object (several views have none to build from, and a non-member must learn nothing)."""

    def determine_actions(self, request, view):
        return {}


class MultiPartParser(parsers.MultiPartParser):
    """Multipart bodies whose text parts hold no NUL. common.middleware refuses NUL in every other
    body, but cannot read a multipart one without parsing its uploads first (files may hold any
    byte); a text part with NUL would reach a lookup and fail on PostgreSQL."""

    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        message = gettext("Text may not contain NUL characters (\\0); remove them and try again.")
        for key, values in parsed.data.lists():
            if "\x00" in key:
                raise exceptions.ParseError(message)
            if any("\x00" in text for text in values):
                raise exceptions.ValidationError({key: [message]})  # names the field, as a 400
        return parsed


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, but a body nested too deeply or holding too many values is refused
    before it is parsed (common.parsing), with a 400 that says so: json.load would recurse into
    a RecursionError, a 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = parsers.get_encoding(parser_context or {})
        try:
            text = codecs.getreader(encoding)(stream).read()
            parse_constant = strict_constant if self.strict else None
            return json_loads(text, parse_constant=parse_constant)
        except InputRefused as exc:
            raise exceptions.ParseError(str(exc)) from None
        except ValueError as exc:
            raise exceptions.ParseError(f"JSON parse error - {exc}") from None
