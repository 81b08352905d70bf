"""Settings for the test suite. DATABASE_URL/REDIS_URL point it at PostgreSQL and Redis in CI."""

import os
from urllib.parse import urlparse

# --- Parallel runs (pytest-xdist) -------------------------------------------------------------
# Each xdist worker (PYTEST_XDIST_WORKER = gw0, gw1, ...) is a process of its own, and everything
# a test shares with the machine is its own too: the test database (pytest-django adds the
# worker's suffix to a PostgreSQL name; SQLite stays in the process's memory, below), the Redis
# databases (here), ports (every server a test starts binds a free one) and folders (MEDIA_ROOT
# below, pytest's tmp_path). A serial run is worker 0.
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
WORKER_INDEX = int(XDIST_WORKER[2:]) if XDIST_WORKER.startswith("gw") else 0
# The Redis databases a worker owns: REDIS_DATABASES_PER_WORKER of them, from 1 + index x that
# (database 0 is left to whoever uses the server by hand). Celery's broker and results use the
# first; a test that needs one of its own (a shared page cache) takes the next. Kombu prefixes
# its broadcast channels with the database number, so workers never hear each other's control
# messages either.
REDIS_DATABASES_PER_WORKER = 2
if (1 + WORKER_INDEX) * REDIS_DATABASES_PER_WORKER >= 16:
    raise RuntimeError(f"Redis has 16 databases: too many test workers ({XDIST_WORKER}).")


def redis_database_url(url: str, offset: int = 0) -> str:
    """`url` moved to this worker's own Redis database number `offset` (0 or 1)."""
    number = 1 + WORKER_INDEX * REDIS_DATABASES_PER_WORKER + offset
    return urlparse(url)._replace(path=f"/{number}").geturl() if url else ""


# Moved before the base settings read it. A process started by a test (a worker, a second web
# server) inherits the moved REDIS_URL and the mark naming its worker, so it stays on the same
# database; a worker started by pytest-xdist inherits its controller's mark and moves again,
# from the URL it was given.
if os.environ.get("SHORTLIST_TEST_REDIS_MOVED", "-") != XDIST_WORKER:
    os.environ.setdefault("SHORTLIST_TEST_REDIS_GIVEN", os.environ.get("REDIS_URL", ""))
    os.environ["REDIS_URL"] = redis_database_url(os.environ["SHORTLIST_TEST_REDIS_GIVEN"])
    os.environ["SHORTLIST_TEST_REDIS_MOVED"] = XDIST_WORKER

from .base import *  # noqa: E402, F403
from .base import DATABASES, STORAGES, env  # noqa: E402

# SQLite: the test database lives in memory (per process). pytest-django would otherwise name a
# file after DATABASE_URL's, because the metrics wrapper hides the SQLite engine from it.
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"].setdefault("TEST", {})
    DATABASES["default"]["TEST"].setdefault("NAME", ":memory:")

DEBUG = False
SECRET_KEY = env("DJANGO_SECRET_KEY", default="test-only-not-secret")
# Threads of the live server and of race tests close their connections when they finish, so the
# test database can be dropped at the end.
DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LANGUAGE_CODE = "en"
# Reminders about stale catalog claims judge freshness on this day, not the calendar's
# (catalog.freshness.freshness_day): the seeded sources age, the suite's answers must not.
CATALOG_FRESHNESS_DAY = "2026-12-01"
# Files as base.py chose them: local disk, or S3 for the processes a test starts with S3_BUCKET.
STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Serve static files from the app folders without collectstatic (the docs page test loads them).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# A real worker in tests reports results through Redis so a test can wait for them.
CELERY_RESULT_BACKEND = env("REDIS_URL", default="") or None
# Without Redis, unit tests run tasks in-process; the tests of the embedded broker start their
# own worker processes and configure it for them (tests/reports/test_embedded_worker.py).
if not CELERY_RESULT_BACKEND and not env("CELERY_BROKER_URL", default=""):
    CELERY_BROKER_URL = "memory://"
    CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=True)

import tempfile  # noqa: E402

# Files written by tests go to a throwaway folder (a worker started by a test shares it).
MEDIA_ROOT = env("DJANGO_MEDIA_ROOT", default="") or tempfile.mkdtemp(prefix="shortlist-test-")
