"""Operators' logs: text or JSON lines chosen by DJANGO_LOG_FORMAT, one line per request without
the query string, and a request id that follows the request into the worker's task lines."""

import io
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest
from django.urls import reverse

from common.logs import JsonFormatter, RequestIdFilter
from reports.models import ReportRun, RunStatus
from tests.conftest import make_user, purge_queued_tasks
from tests.embedded import ROOT, start_celery_worker, worker_env
from tests.factories import add_candidates, answer_all, make_evaluation

GENERATED = re.compile(r"[0-9a-f]{32}")


@pytest.fixture
def json_lines():
    """The app's JSON handler (formatter and request-id filter) on the root logger, into a
    buffer: returns a function that parses what was written so far."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield lambda: [json.loads(line) for line in buffer.getvalue().splitlines()]
    root.removeHandler(handler)
    root.setLevel(level)


def request_lines(lines):
    return [line for line in lines if line["logger"] == "shortlist.request"]


@pytest.mark.django_db
def test_json_lines_parse_and_carry_the_fields(client, json_lines):
    user = make_user("tech_lead", username="jo", email="jo@example.com")
    client.force_login(user)
    response = client.get(reverse("evaluations:evaluation_list"))
    assert response.status_code == 200
    try:
        raise ValueError("broken on purpose")
    except ValueError:
        logging.getLogger("shortlist.test").exception("It broke.")

    lines = json_lines()
    (line,) = request_lines(lines)
    assert line["level"] == "INFO" and line["message"].startswith("GET /evaluations/ 200 ")
    assert line["request_id"] == response["X-Request-ID"]
    assert line["method"] == "GET" and line["path"] == "/evaluations/" and line["status"] == 200
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert line["user_id"] == user.pk
    assert "jo@example.com" not in json.dumps(line) and '"jo"' not in json.dumps(line)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00", line["time"])

    failure = lines[-1]
    assert failure["logger"] == "shortlist.test" and failure["level"] == "ERROR"
    assert failure["request_id"] == "-"  # outside a request
    assert "ValueError: broken on purpose" in failure["traceback"]


@pytest.mark.django_db
def test_the_request_line_leaves_out_the_query_string(client, json_lines):
    response = client.get("/evaluations/?token=secret-token-value&q=private")
    lines = request_lines(json_lines())
    assert len(lines) == 1 and lines[0]["status"] == response.status_code
    assert lines[0]["path"] == "/evaluations/" and lines[0]["user_id"] is None
    text = json.dumps(json_lines())
    assert "secret-token-value" not in text and "private" not in text


@pytest.mark.django_db
def test_a_decoded_newline_in_the_path_cannot_forge_a_line(client, json_lines):
    client.get("/evaluations/%0Aforged%20line")
    (line,) = request_lines(json_lines())
    assert "\n" not in line["message"] and line["path"] == "/evaluations/%0Aforged%20line"


@pytest.mark.django_db
def test_a_safe_request_id_is_echoed(client, json_lines):
    response = client.get("/healthz", headers={"X-Request-ID": "lb-7f3a.2_b"})
    assert response["X-Request-ID"] == "lb-7f3a.2_b"
    assert request_lines(json_lines())[0]["request_id"] == "lb-7f3a.2_b"


@pytest.mark.django_db
def test_a_request_id_is_made_when_none_comes(client, json_lines):
    first = client.get("/healthz")["X-Request-ID"]
    second = client.get("/healthz")["X-Request-ID"]
    assert GENERATED.fullmatch(first) and GENERATED.fullmatch(second) and first != second
    assert [line["request_id"] for line in request_lines(json_lines())] == [first, second]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "hostile",
    ["a\nb", "x" * 500, '"quoted"', "it's", "<script>", "a b", "", "é", "id\r\nSet-Cookie: a=b"],
)
def test_a_hostile_request_id_is_replaced_not_echoed(client, json_lines, hostile):
    response = client.get("/healthz", HTTP_X_REQUEST_ID=hostile)
    given = response["X-Request-ID"]
    assert GENERATED.fullmatch(given) and given != hostile
    (line,) = request_lines(json_lines())
    assert line["request_id"] == given
    if hostile:
        assert hostile not in json.dumps(line, ensure_ascii=False)


# --- the settings: DJANGO_LOG_FORMAT in a fresh process ----------------------------------------

REQUEST_AND_FAILURE = """
import logging
import django

django.setup()
from django.test import Client

response = Client().get("/favicon.ico?token=secret-token-value", HTTP_X_REQUEST_ID="req-42")
assert response.status_code == 301, response.status_code
try:
    1 / 0
except ZeroDivisionError:
    logging.getLogger("shortlist.check").exception("Division failed.")
"""


def run_with_format(log_format: str) -> subprocess.CompletedProcess:
    folder = tempfile.mkdtemp(prefix="shortlist-logs-")
    env = {
        **os.environ,
        # A database of its own: the request opens a connection (atomic requests), and the
        # test run's DATABASE_URL names a database only the test database is made from.
        "DATABASE_URL": f"sqlite:///{folder}/logs.sqlite3",
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DJANGO_LOG_FORMAT": log_format,
        "DJANGO_LOG_LEVEL": "INFO",
        "ALLOWED_HOSTS": "testserver",
    }
    try:
        return subprocess.run(
            [sys.executable, "-c", REQUEST_AND_FAILURE],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_json_format_writes_one_object_per_line():
    out = run_with_format("json")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stderr.splitlines() if line.strip()]
    by_logger = {line["logger"]: line for line in lines}
    request = by_logger["shortlist.request"]
    assert request["request_id"] == "req-42" and request["path"] == "/favicon.ico"
    assert request["status"] == 301 and request["level"] == "INFO"
    failure = by_logger["shortlist.check"]
    assert failure["level"] == "ERROR" and failure["request_id"] == "-"
    assert "ZeroDivisionError" in failure["traceback"]
    assert "secret-token-value" not in out.stderr


def test_text_format_is_the_default_and_names_the_request():
    out = run_with_format("text")
    assert out.returncode == 0, out.stderr
    (line,) = [line for line in out.stderr.splitlines() if "shortlist.request" in line]
    assert " INFO [req-42] shortlist.request: GET /favicon.ico 301 " in line
    assert "secret-token-value" not in out.stderr
    with pytest.raises(json.JSONDecodeError):
        json.loads(line)


def test_an_unknown_format_is_refused_at_startup():
    out = run_with_format("xml")
    assert out.returncode != 0
    assert "ImproperlyConfigured" in out.stderr
    assert "DJANGO_LOG_FORMAT must be 'text' or 'json', not 'xml'." in out.stderr


# --- web request → Celery worker on Redis: the worker's lines carry the request's id -----------


def start_json_worker(env, log_file):
    return start_celery_worker(env, loglevel="INFO", stderr=log_file)


@pytest.mark.django_db(transaction=True)
def test_the_worker_logs_json_lines_with_the_request_id(seeded, redis_url, client, tmp_path):
    env = worker_env(redis_url, DJANGO_LOG_FORMAT="json")
    owner = make_user("tech_lead", username="requester")
    evaluation = make_evaluation(owner, title="Logged evaluation")
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner)

    purge_queued_tasks(redis_url)
    log_path = tmp_path / "worker.log"
    with open(log_path, "w") as log_file:
        worker = start_json_worker(env, log_file)
    try:
        client.force_login(owner)
        response = client.post(
            reverse("reports:report_list", kwargs={"pk": evaluation.pk}),
            {"language": "en"},
            headers={"X-Request-ID": "report-click-1"},
        )
        assert response.status_code == 302 and response["X-Request-ID"] == "report-click-1"
        run = ReportRun.objects.get(evaluation=evaluation)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not run.finished:
            time.sleep(0.2)
            run.refresh_from_db()
        assert run.status == RunStatus.DONE, (run.status, run.error, log_path.read_text())
        deadline = time.monotonic() + 10  # Celery logs its success line after the run is saved
        while time.monotonic() < deadline and "succeeded" not in log_path.read_text():
            time.sleep(0.1)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)

    text = log_path.read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]  # JSON only
    tagged = [line for line in lines if line["request_id"] == "report-click-1"]
    messages = {(line["logger"], line["message"]) for line in tagged}
    assert ("reports.tasks", f"Rendering report run {run.pk} (attempt 1).") in messages, text
    assert ("reports.tasks", f"Report run {run.pk} is done.") in messages, text
    celery_lines = [message for logger, message in messages if logger == "celery.app.trace"]
    assert any(re.match(r"Task reports\.render_report\[.+\] succeeded", m) for m in celery_lines)
    assert all(set(line) >= {"time", "level", "logger", "message"} for line in lines)
    # Lines outside the task (start-up, shutdown) are not tagged with it.
    assert any(line["request_id"] == "-" for line in lines)
