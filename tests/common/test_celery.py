"""A real Celery worker consumes tasks from Redis (in CI: required, not skipped)."""

import pytest
from celery.contrib.testing.worker import start_worker
from django.test import override_settings

from common.tasks import ping
from config.celery_app import app


@pytest.fixture
def celery_worker(redis_url):
    app.conf.update(
        broker_url=redis_url,
        result_backend=redis_url,
        task_always_eager=False,
        task_ignore_result=False,
    )
    with start_worker(app, perform_ping_check=False, pool="solo", loglevel="WARNING") as worker:
        yield worker


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
