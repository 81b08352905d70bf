"""Refuse NUL characters before anything reads the request: PostgreSQL cannot store them, and a
path, query or body carrying one would otherwise reach a lookup or a save and fail there (500).
Form fields refuse NUL on their own; this covers URL values and JSON bodies once, for every
view. The API answers as it answers any invalid input: JSON naming each field that holds one."""

from __future__ import annotations

import json
from urllib.parse import unquote_to_bytes

from django.http import HttpResponseBadRequest, JsonResponse
from django.utils.translation import gettext as _


def _holds_nul(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_nul(v) for v in value)
    return False


class RefuseNulMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if self._carries_nul(request):
            message = _("Text may not contain NUL characters (\\0); remove them and try again.")
            if request.path.startswith("/api/"):
                return JsonResponse(self._fields(request, message), status=400)
            return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
        return self.get_response(request)

    @staticmethod
    def _fields(request, message: str) -> dict:
        """{field: [message]} for each top-level field of a JSON body that holds a NUL;
        {"detail": message} when it is elsewhere (the path, the query, a key)."""
        try:
            body = json.loads(request.body) if request.method in ("POST", "PUT", "PATCH") else None
        except ValueError:
            body = None
        if isinstance(body, dict):
            named = {k: [message] for k, v in body.items() if _holds_nul(v) and "\x00" not in k}
            if named:
                return named
        return {"detail": message}

    @staticmethod
    def _carries_nul(request) -> bool:
        raw_path = request.META.get("PATH_INFO", "").encode("utf-8", "surrogateescape")
        query = request.META.get("QUERY_STRING", "").encode("latin-1", "replace")
        if b"\x00" in raw_path or b"\x00" in unquote_to_bytes(query):
            return True
        if request.method not in ("POST", "PUT", "PATCH"):
            return False
        content_type = request.META.get("CONTENT_TYPE", "")
        if content_type.startswith("application/x-www-form-urlencoded"):
            return b"\x00" in unquote_to_bytes(request.body)  # views read the cached body
        if content_type.startswith(("application/json", "text/")):
            return b"\x00" in request.body or b"\\u0000" in request.body
        return False  # multipart: files may hold NUL; form fields refuse it in text
