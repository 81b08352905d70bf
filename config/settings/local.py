"""The one-command local start: SQLite under var/ and in-process tasks unless told otherwise."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env("DJANGO_SECRET_KEY", default="local-development-only-not-secret")
