"""/metrics: who may read it, the request and query metrics of django-prometheus, the report
runs read from the database, and the depth of the Celery queue on a real broker."""

import math
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation
from prometheus_client.parser import text_string_to_metric_families

from reports import services
from reports.models import ReportRun, RunStatus
from tests.conftest import purge_queued_tasks

pytestmark = pytest.mark.django_db

TOKEN = "scrape-token-7f3a"
AUTH = {"HTTP_AUTHORIZATION": f"Bearer {TOKEN}"}


@pytest.fixture
def metrics_on(settings):
    settings.METRICS_TOKEN = TOKEN
    settings.METRICS_ALLOWED_IPS = []
    return settings


def scrape(client, **headers) -> dict:
    response = client.get("/metrics", **(headers or AUTH))
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    return {f.name: f for f in text_string_to_metric_families(response.content.decode())}


def value(families: dict, family: str, sample: str | None = None, **labels) -> float:
    """The value of one sample (by default the family's own name) with exactly these labels."""
    found = [
        s.value
        for s in families[family].samples
        if s.name == (sample or family) and s.labels == labels
    ]
    assert len(found) == 1, (family, sample, labels, families[family].samples)
    return found[0]


def buckets(families: dict, family: str) -> dict[str, float]:
    return {s.labels["le"]: s.value for s in families[family].samples if s.name.endswith("_bucket")}


# --- who may read it ------------------------------------------------------------------------


def test_off_by_default_404_like_an_unknown_page(client, settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_IPS = []
    unknown = client.get("/no-such-page")
    for headers in ({}, {"HTTP_AUTHORIZATION": "Bearer "}, AUTH, {"REMOTE_ADDR": "127.0.0.1"}):
        response = client.get("/metrics", **headers)
        assert response.status_code == 404 == unknown.status_code
        assert response["Content-Type"] == unknown["Content-Type"]
        assert b"# HELP" not in response.content


def test_the_token_opens_it_a_wrong_one_does_not(client, metrics_on):
    assert "shortlist_report_runs" in scrape(client)
    for wrong in ("Bearer scrape-token-7f3b", "Bearer ", f"Basic {TOKEN}x", TOKEN[:-1], ""):
        response = client.get("/metrics", HTTP_AUTHORIZATION=wrong)
        assert response.status_code == 404, wrong
    # A stranger's POST is the same 404 (not a CSRF 403); the token holder learns it is GET only.
    assert client.post("/metrics").status_code == 404
    assert client.post("/metrics", **AUTH).status_code == 405


def test_allowed_addresses_and_networks(client, settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_IPS = ["192.0.2.10/32", "10.0.0.0/8", "2001:db8::/32"]
    for allowed in ("192.0.2.10", "10.20.30.40", "2001:db8::5", "::ffff:10.0.0.7"):
        assert "shortlist_report_runs" in scrape(client, REMOTE_ADDR=allowed), allowed
    for refused in ("192.0.2.11", "11.0.0.1", "2001:db9::1", "127.0.0.1"):
        assert client.get("/metrics", REMOTE_ADDR=refused).status_code == 404, refused
    # Only REMOTE_ADDR counts: a forwarded-for header is whatever the caller wrote in it.
    spoofed = client.get("/metrics", REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="10.0.0.1")
    assert spoofed.status_code == 404
    # The token still works from anywhere once it is set.
    settings.METRICS_TOKEN = TOKEN
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.9", **AUTH).status_code == 200


def test_a_bad_allowed_network_stops_the_settings_from_loading():
    env = {"METRICS_ALLOWED_IPS": "10.0.0.0/33", "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "10.0.0.0/33" in result.stderr


# --- django-prometheus: requests and queries ------------------------------------------------


def test_requests_by_view_and_database_queries(client, metrics_on):
    before = scrape(client)
    requests = "django_http_requests_total_by_view_transport_method"
    latency = "django_http_requests_latency_seconds_by_view_method"
    queries = "django_db_execute"
    db = {"alias": "default", "vendor": connection.vendor}

    def counts(families):
        by_view = {"view": "healthz", "transport": "http", "method": "GET"}
        return (
            value(families, requests, f"{requests}_total", **by_view)
            if any(s.labels.get("view") == "healthz" for s in families[requests].samples)
            else 0,
            value(families, latency, f"{latency}_count", view="healthz", method="GET")
            if any(s.labels.get("view") == "healthz" for s in families[latency].samples)
            else 0,
            value(families, queries, f"{queries}_total", **db),
        )

    requested, timed, executed = counts(before)
    for _ in range(3):
        assert client.get("/healthz").status_code in (200, 503)  # its database check is a query
    after = scrape(client)
    assert counts(after)[:2] == (requested + 3, timed + 3)
    assert counts(after)[2] >= executed + 3
    assert (
        value(
            after,
            "django_db_query_duration_seconds",
            "django_db_query_duration_seconds_count",
            **db,
        )
        > 0
    )


# --- the report runs ------------------------------------------------------------------------


def plant(evaluation, user, status, *, seconds=None, attempts=1, finished_ago=timedelta(0)):
    """A run in `status`, started `seconds` before it finished (or before now)."""
    now = timezone.now()
    finished = now - finished_ago if status in (RunStatus.DONE, RunStatus.FAILED) else None
    return ReportRun.objects.create(
        evaluation=evaluation,
        requested_by=user,
        language="en",
        status=status,
        attempts=attempts,
        snapshot={},
        snapshot_sha256="0" * 64,
        started_at=(finished or now) - timedelta(seconds=seconds) if seconds is not None else None,
        finished_at=finished,
    )


def stuck(evaluation, user, language):
    """A run no worker picked up, failed by the beat task while `language` is active."""
    run = plant(evaluation, user, RunStatus.QUEUED, attempts=0)
    ReportRun.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(hours=2))
    with translation.override(language):
        assert services.reports_fail_stuck() == 1
    return run


def test_report_runs_by_status_durations_attempts_and_stuck(
    client, metrics_on, evaluation, owner, monkeypatch
):
    assert not ReportRun.objects.exists()
    for status in (RunStatus.QUEUED, RunStatus.QUEUED, RunStatus.RENDERING):
        plant(evaluation, owner, status)
    for seconds, attempts in ((0.3, 1), (4, 1), (4, 2), (45, 1)):
        plant(evaluation, owner, RunStatus.DONE, seconds=seconds, attempts=attempts)
    plant(evaluation, owner, RunStatus.FAILED, seconds=2, attempts=3)  # gave up
    # Finished before the window: counted by status, not in the histograms.
    plant(
        evaluation, owner, RunStatus.DONE, seconds=1000, attempts=3, finished_ago=timedelta(days=2)
    )
    stuck(evaluation, owner, "en")
    zh = stuck(evaluation, owner, "zh-hans")
    assert ReportRun.objects.get(pk=zh.pk).error != services.STUCK_ERROR  # saved in Chinese

    families = scrape(client)

    runs = {s.labels["status"]: s.value for s in families["shortlist_report_runs"].samples}
    assert runs == {"queued": 2, "rendering": 1, "done": 5, "failed": 3}

    render = "shortlist_report_render_seconds"
    assert families[render].type == "histogram"
    assert buckets(families, render) == {
        "0.5": 1, "1.0": 1, "2.0": 1, "5.0": 3, "10.0": 3, "20.0": 3, "30.0": 3,
        "60.0": 4, "120.0": 4, "300.0": 4, "600.0": 4, "+Inf": 4,
    }  # fmt: skip
    assert value(families, render, f"{render}_count") == 4
    assert value(families, render, f"{render}_sum") == pytest.approx(53.3)

    attempts = "shortlist_report_attempts"  # 4 done, the one that gave up, 2 stuck (none)
    assert buckets(families, attempts) == {"0.0": 2, "1.0": 5, "2.0": 6, "3.0": 7, "+Inf": 7}
    assert value(families, attempts, f"{attempts}_sum") == 1 + 1 + 2 + 1 + 3

    assert value(families, "shortlist_report_runs_stuck_failed") == 2
    # A stuck run sent back to the queue is no longer counted as failed, nor as stuck. It is
    # kept from the worker (which renders at once when Celery runs eagerly) to stay queued.
    sent = []
    monkeypatch.setattr(services, "report_enqueue", lambda run_id: sent.append(run_id) or True)
    services.report_retry(user=owner, run=zh)
    assert sent == [zh.pk]
    families = scrape(client)
    assert value(families, "shortlist_report_runs_stuck_failed") == 1
    assert value(families, "shortlist_report_runs", status="queued") == 3


def test_the_runs_cost_the_same_queries_however_many(client, metrics_on, evaluation, owner):
    def scrape_queries(n: int) -> int:
        ReportRun.objects.all().delete()
        for i in range(n):
            status = [RunStatus.DONE, RunStatus.FAILED, RunStatus.QUEUED][i % 3]
            plant(evaluation, owner, status, seconds=i, attempts=i % 4)
        with CaptureQueriesContext(connection) as queries:
            families = scrape(client)
        assert sum(s.value for s in families["shortlist_report_runs"].samples) == n
        return len(queries)

    few, many = scrape_queries(3), scrape_queries(30)
    assert few == many == 2, (few, many)  # the count per status, one aggregate of the day


def test_multiprocess_mode_still_reports_the_runs(client, metrics_on, monkeypatch, tmp_path):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    families = scrape(client)
    assert "shortlist_report_runs" in families
    # This process's in-memory counters are not read in that mode: the files are.
    assert "django_http_requests_total_by_view_transport_method" not in families


# --- the Celery queue -----------------------------------------------------------------------


def queue_length(client) -> float:
    return value(scrape(client), "shortlist_celery_queue_length", queue="celery")


def test_queue_length_on_redis(client, metrics_on, redis_url):
    from config.celery_app import app

    metrics_on.CELERY_BROKER_URL = redis_url
    metrics_on.CELERY_TASK_ALWAYS_EAGER = False
    purge_queued_tasks(redis_url)
    try:
        assert queue_length(client) == 0
        with app.connection_for_write(redis_url) as conn:
            for _ in range(3):
                app.send_task("reports.fail_stuck_runs", connection=conn)
        assert queue_length(client) == 3
    finally:
        purge_queued_tasks(redis_url)
    assert queue_length(client) == 0


def test_queue_length_on_the_filesystem_broker(client, metrics_on, tmp_path):
    from kombu import Connection

    from config.celery_app import app

    folder = tmp_path / "queue"
    folder.mkdir()
    options = {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "control_folder": str(tmp_path / "control"),
    }
    metrics_on.CELERY_BROKER_URL = "filesystem://localhost/"
    metrics_on.CELERY_BROKER_TRANSPORT_OPTIONS = options
    metrics_on.CELERY_TASK_ALWAYS_EAGER = False
    assert queue_length(client) == 0
    with Connection("filesystem://localhost/", transport_options=options) as conn:
        for _ in range(2):
            app.send_task("reports.fail_stuck_runs", connection=conn)
    assert len(list(folder.iterdir())) == 2
    assert queue_length(client) == 2


def test_a_broker_that_does_not_answer_is_nan_and_the_rest_still_reports(client, metrics_on):
    metrics_on.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    metrics_on.CELERY_TASK_ALWAYS_EAGER = False
    families = scrape(client)
    assert math.isnan(value(families, "shortlist_celery_queue_length", queue="celery"))
    assert "shortlist_report_runs" in families
