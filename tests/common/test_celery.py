"""A real Celery worker consumes tasks from Redis (in CI: required, not skipped)."""

from django.test import override_settings

from common.tasks import ping
from config.celery_app import app


def test_worker_round_trip(celery_worker):
    with override_settings(CELERY_TASK_ALWAYS_EAGER=False):
        result = ping.apply_async(args=["hello"], ignore_result=False)
        assert result.get(timeout=20) == "hello"


def test_without_redis_tasks_run_in_process(settings):
    app.conf.update(task_always_eager=True)
    try:
        assert ping.delay("local").get() == "local"
    finally:
        app.conf.update(task_always_eager=settings.CELERY_TASK_ALWAYS_EAGER)
