"""Request ids and one log line per request; and refusal of NUL characters.

Refuse NUL characters before anything reads the request: PostgreSQL cannot store them, and a
path, query or body carrying one would otherwise reach a lookup or a save and fail there (500).
Form fields refuse NUL on their own; this covers URL values and JSON bodies once, for every
view. The API answers as it answers any invalid input: JSON naming each field that holds one."""

from __future__ import annotations

import logging
import time
from urllib.parse import quote, unquote_to_bytes

from django.http import HttpResponseBadRequest, JsonResponse
from django.utils.functional import empty
from django.utils.translation import gettext as _

from .logs import clean_request_id, request_id
from .parsing import json_loads
from .sqlite3.base import READING

request_log = logging.getLogger("shortlist.request")


class RequestLogMiddleware:
    """Gives each request an id (the client's X-Request-ID when it is a safe token), returns it
    in the response, and logs one line when the response is ready: method, path without the
    query string (it may hold tokens), status, duration and the user's id."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        rid = clean_request_id(request.headers.get("X-Request-ID"))
        token = request_id.set(rid)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            response["X-Request-ID"] = rid
            self.log(request, response, started)
        finally:
            request_id.reset(token)
        return response

    @staticmethod
    def log(request, response, started: float) -> None:
        duration_ms = round((time.perf_counter() - started) * 1000, 1)
        # Percent-encoded as on the wire, so a decoded newline cannot forge a line of its own.
        path = quote(request.path, safe="/:@!$&'()*+,;=-._~")
        request_log.info(
            "%s %s %s %sms",
            request.method,
            path,
            response.status_code,
            duration_ms,
            extra={
                "method": request.method,
                "path": path,
                "status": response.status_code,
                "duration_ms": duration_ms,
                "user_id": _user_id(request),
            },
        )


def _user_id(request):
    """The signed-in user's id, if the request already looked the user up: reading it here
    would cost the session and user queries that a page without a user never made."""
    user = getattr(request, "user", None)
    if user is None or getattr(user, "_wrapped", None) is empty:
        return None
    return user.pk if user.is_authenticated else None


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
            post = request.method in ("POST", "PUT", "PATCH")
            body = json_loads(request.body.decode()) if post else None
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


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class ReadRequestMiddleware:
    """Marks a request with a safe method as one that reads, for as long as it is answered: on
    SQLite its transaction then begins deferred and takes no write lock (common/sqlite3/base.py).
    Other databases ignore the mark."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = READING.set(request.method in SAFE_METHODS)
        try:
            return self.get_response(request)
        finally:
            READING.reset(token)
