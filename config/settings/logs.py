"""The settings of the process's logs, built from environment variables: lines as text for
people reading a terminal, or as JSON (one object per line) for a log collector
(DJANGO_LOG_FORMAT), at DJANGO_LOG_LEVEL. Every line carries the request id (common.logs); "-"
outside a request.

A function, as config/settings/directory.py, that base.py calls with its `environ.Env`."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured


def log_settings(env) -> tuple[str, dict]:
    """LOG_FORMAT and LOGGING. A DJANGO_LOG_FORMAT other than text or json stops the process."""
    log_format = env("DJANGO_LOG_FORMAT", default="text").strip().lower()
    if log_format not in ("text", "json"):
        raise ImproperlyConfigured(
            f"DJANGO_LOG_FORMAT must be 'text' or 'json', not {log_format!r}."
        )
    logging = {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "common.logs.RequestIdFilter"}},
        "formatters": {
            "text": {"format": "%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s"},
            "json": {"()": "common.logs.JsonFormatter"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": log_format,
                "filters": ["request_id"],
            }
        },
        "root": {"handlers": ["console"], "level": env("DJANGO_LOG_LEVEL", default="INFO")},
        # WeasyPrint narrates every rendering step at INFO.
        "loggers": {
            "weasyprint": {"level": "WARNING"},
            "weasyprint.progress": {"level": "WARNING"},
            "fontTools": {"level": "WARNING"},
        },
    }
    return log_format, logging
