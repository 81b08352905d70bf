"""Settings for the test suite. DATABASE_URL/REDIS_URL point it at PostgreSQL and Redis in CI."""

from .base import *  # noqa: F403
from .base import STORAGES, env

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
