"""Operators' logs: every line names the request it belongs to, in the web process and in the
worker that runs the tasks the request sent, so one id finds all the lines of one click.

The id lives in a context variable: the request middleware sets it, a Celery message header
carries it to the worker, and a logging filter copies it onto every record ("-" outside both).
"""

from __future__ import annotations

import logging
import logging.config
import re
import uuid
from contextvars import ContextVar

from celery.signals import (
    before_task_publish,
    celeryd_init,
    setup_logging,
    task_postrun,
    task_prerun,
)
from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter as BaseJsonFormatter

NO_REQUEST = "-"
request_id: ContextVar[str] = ContextVar("request_id", default=NO_REQUEST)

# A client's own id is kept only when it cannot break a log line or a header.
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
TASK_HEADER = "x_request_id"


def clean_request_id(value: str | None) -> str:
    """The incoming id when it is a short safe token, else a fresh one."""
    if value and _SAFE_ID.fullmatch(value):
        return value
    return uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Adds `request_id` to every record, so any format can print it."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        return True


class JsonFormatter(BaseJsonFormatter):
    """One JSON object per line: time (ISO 8601, UTC), level, logger, message, request_id,
    the traceback of an exception, and the fields a caller passed in `extra`."""

    # Objects Django and Celery pass in `extra` for their own formatters: an HttpRequest's
    # repr carries the query string, and Celery's `data` repeats the message.
    SKIPPED = ("request", "server_time", "data", "taskName")

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("fmt", ["levelname", "name", "message", "request_id"])
        kwargs.setdefault(
            "rename_fields",
            {"levelname": "level", "name": "logger", "exc_info": "traceback"},
        )
        kwargs.setdefault("reserved_attrs", [*RESERVED_ATTRS, *self.SKIPPED])
        kwargs.setdefault("timestamp", "time")
        super().__init__(*args, **kwargs)

    def add_fields(self, log_data, record, message_dict) -> None:
        log_data["time"] = None  # first in the line, filled in below
        super().add_fields(log_data, record, message_dict)


# --- Celery: the id travels in the task message; the worker logs as the web process does -----


@before_task_publish.connect
def send_request_id(headers=None, **kwargs):
    """Tasks sent while handling a request (or while running a task) carry its id."""
    current = request_id.get()
    if headers is not None and current != NO_REQUEST:
        headers.setdefault(TASK_HEADER, current)


_task_tokens: dict[str, object] = {}


@task_prerun.connect
def take_request_id(task_id=None, task=None, **kwargs):
    """Lines written while the task runs, Celery's own included, carry the sender's id."""
    sent = task.request.get(TASK_HEADER) if task is not None else None
    if sent and _SAFE_ID.fullmatch(str(sent)):
        _task_tokens[task_id] = request_id.set(sent)


@task_postrun.connect
def drop_request_id(task_id=None, **kwargs):
    token = _task_tokens.pop(task_id, None)
    if token is not None:
        request_id.reset(token)


@celeryd_init.connect
@setup_logging.connect
def keep_django_logging(loglevel=None, **kwargs):
    """The worker logs through Django's LOGGING (JSON when asked) instead of Celery replacing
    the root handlers with its own text format; `--loglevel` still sets the level. Done first
    when the worker starts too, so that its start-up warnings are log lines like the rest."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
    logging.captureWarnings(True)
    if loglevel:
        logging.getLogger().setLevel(loglevel)
