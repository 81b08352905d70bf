"""A real Celery worker consumes tasks from Redis (in CI: required, not skipped), and without
Redis the embedded default still goes through a broker and a worker (the filesystem transport;
tests/reports/test_embedded_worker.py runs that worker as a process)."""

import json
import subprocess
import sys

from django.test import override_settings

from common.tasks import ping
from config.celery_app import app
from tests.embedded import ROOT, embedded_env


def test_worker_round_trip(celery_worker):
    with override_settings(CELERY_TASK_ALWAYS_EAGER=False):
        result = ping.apply_async(args=["hello"], ignore_result=False)
        assert result.get(timeout=20) == "hello"


def test_without_redis_the_embedded_default_queues_on_the_filesystem(tmp_path):
    """`make run`'s settings (no REDIS_URL): nothing runs in the web process."""
    script = (
        "import json; from config.celery_app import app; c = app.conf; "
        "print(json.dumps([c.broker_url, c.task_always_eager, c.broker_transport_options]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=embedded_env(tmp_path),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    broker, eager, options = json.loads(out.strip().splitlines()[-1])
    assert broker.startswith("filesystem:") and eager is False
    queue = tmp_path / "celery" / "queue"
    assert options["data_folder_in"] == options["data_folder_out"] == str(queue)
    assert queue.is_dir()  # made when the app is configured, for the web and the worker alike


def test_redis_url_keeps_redis(tmp_path):
    script = "from config.celery_app import app; print(app.conf.broker_url)"
    env = embedded_env(tmp_path, REDIS_URL="redis://127.0.0.1:6379/9")
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.stdout.strip().splitlines()[-1] == "redis://127.0.0.1:6379/9"


def test_unit_tests_without_redis_may_run_tasks_in_process(settings):
    app.conf.update(task_always_eager=True)
    try:
        assert ping.delay("local").get() == "local"
    finally:
        app.conf.update(task_always_eager=settings.CELERY_TASK_ALWAYS_EAGER)
