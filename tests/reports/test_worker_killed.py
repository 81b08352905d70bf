"""A worker killed (SIGKILL) mid-render: the run still ends done, with exactly one PDF."""

import os
import signal
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from evaluations.models import Evaluation
from reports import services
from reports.models import ReportRun, RunStatus
from tests.conftest import purge_queued_tasks, require_service
from tests.embedded import start_celery_worker, worker_env

ROOT = Path(__file__).resolve().parents[2]
VISIBILITY_TIMEOUT = 5  # seconds


def start_worker(env):
    return start_celery_worker(env)


def wait_for(run, statuses, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in statuses:
            return True
        time.sleep(0.02)
    return False


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_killed_worker_run_ends_done_with_one_pdf(seeded, redis_url):
    # A short visibility timeout so the unacknowledged task comes back soon after the kill.
    env = worker_env(redis_url, CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT))
    call_command("demo", stdout=open(os.devnull, "w"))  # noqa: SIM115 - a sink for output
    evaluation = Evaluation.objects.get(title__startswith="Demo:")
    owner = evaluation.memberships.get(role="owner").user

    purge_queued_tasks(redis_url)
    first = start_worker(env)
    try:
        run, sent = services.report_request(user=owner, evaluation=evaluation, language="zh-hans")
        assert sent
        if not wait_for(run, {RunStatus.RENDERING}, 60):
            require_service("a report worker", f"run stayed {run.status}")
        rendering_since = time.monotonic()  # the task was taken from the queue before this
        os.killpg(first.pid, signal.SIGKILL)  # mid-render: no ack, no cleanup
        first.wait(timeout=10)
        run.refresh_from_db()
        assert run.status == RunStatus.RENDERING and not run.pdf
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)

    # A worker gives unacknowledged tasks back to the queue once they are older than the
    # visibility timeout, when it starts and then on a throttled scan (about every 100 s with
    # kombu's defaults): start the second one after the timeout, as a restarted worker would.
    time.sleep(max(0.0, rendering_since + VISIBILITY_TIMEOUT + 1 - time.monotonic()))
    second = start_worker(env)
    try:
        assert wait_for(run, {RunStatus.DONE, RunStatus.FAILED}, 120), run.status
    finally:
        os.killpg(second.pid, signal.SIGTERM)
        second.wait(timeout=20)
    assert run.status == RunStatus.DONE, run.error
    assert run.attempts == 2
    pdfs = list(
        Path(settings.MEDIA_ROOT, "reports").rglob(f"shortlist-{evaluation.pk}-{run.pk}-*.pdf")
    )
    assert len(pdfs) == 1 and ReportRun.objects.filter(evaluation=evaluation).count() == 1
