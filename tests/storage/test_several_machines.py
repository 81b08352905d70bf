"""Several machines, one instance: two web servers (gunicorn) and two Celery workers, each
process with a local media folder of its own, sharing only PostgreSQL, Redis and the S3 bucket
(moto's server). What one process stores, every other one serves; nothing lands on local disk."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from django.db import connection

from common import roles
from evaluations.models import MemberRole
from poc import services as poc_services
from tests.conftest import IN_CI, make_user, purge_queued_tasks
from tests.embedded import free_port
from tests.factories import (
    PASSWORD,
    add_candidates,
    add_member,
    answer_all,
    declare_none,
    make_evaluation,
)
from tests.storage.conftest import PREFIX

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]
SECTIONS = ["questions", "matrices"]


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log: Path
    media: Path
    url: str = ""

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGTERM)
        try:
            self.popen.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=10)

    def local_files(self) -> list[Path]:
        return [p for p in self.media.rglob("*") if p.is_file()]


def machine_env(s3, redis_url: str, media: Path) -> dict[str, str]:
    """One machine: the shared database, Redis and bucket; a media folder nobody else sees."""
    db = connection.settings_dict
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CELERY_", "REDIS_", "DATABASE_", "DJANGO_", "S3_", "AWS_"))
    }
    env.update(
        # The test signs in over HTTP Basic (off by default, apitokens/auth.py).
        API_BASIC_AUTH="true",
        API_BASIC_AUTH_RATE="10000/min",
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=f"postgres://{db['USER']}{password}@{host}:{port}/{db['NAME']}",
        REDIS_URL=redis_url,
        DJANGO_MEDIA_ROOT=str(media),
        DJANGO_LOG_LEVEL="WARNING",
        PYTHONPATH=str(ROOT),
        **s3.env(),
    )
    return env


def start(name: str, argv: list[str], env: dict, folder: Path, media: Path) -> Process:
    log = folder / f"{name}.log"
    with open(log, "wb") as out:
        popen = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Process(name=name, popen=popen, log=log, media=media)


def wait_until(check, what: str, processes: list[Process], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for p in processes:
            if p.popen.poll() is not None:
                raise AssertionError(f"{p.name} ended early:\n{p.log_text()[-3000:]}")
        if check():
            return
        time.sleep(0.3)
    logs = "\n".join(f"--- {p.name}\n{p.log_text()[-2000:]}" for p in processes)
    raise AssertionError(f"{what} did not happen in {seconds} s\n{logs}")


def answers(url: str) -> bool:
    try:
        return requests.get(f"{url}/readyz", timeout=5).status_code == 200
    except requests.RequestException:
        return False


@pytest.fixture
def machines(seeded, s3, redis_url, tmp_path):
    """Two web servers and two workers, as on four machines (set up after the committed seed, so
    they are stopped before the test's flush)."""
    if connection.vendor != "postgresql":
        if IN_CI:
            pytest.fail("CI must run this on PostgreSQL", pytrace=False)
        pytest.skip("processes on several machines need a shared PostgreSQL database")
    purge_queued_tasks(redis_url)
    processes: dict[str, Process] = {}
    try:
        for name in ("web1", "web2"):
            media = tmp_path / name / "media"
            media.mkdir(parents=True)
            port = free_port()
            argv = [sys.executable, "-m", "gunicorn", "config.wsgi:application"]
            argv += ["--bind", f"127.0.0.1:{port}", "--workers", "1", "--timeout", "120"]
            env = machine_env(s3, redis_url, media)
            processes[name] = start(name, argv, env, tmp_path / name, media)
            processes[name].url = f"http://127.0.0.1:{port}"
        for name in ("worker1", "worker2"):
            media = tmp_path / name / "media"
            media.mkdir(parents=True)
            argv = [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo"]
            argv += ["-c", "1", "-n", f"{name}@%h", "--without-gossip", "--without-mingle"]
            argv += ["--without-heartbeat", "--loglevel=INFO"]
            env = machine_env(s3, redis_url, media)
            processes[name] = start(name, argv, env, tmp_path / name, media)
        every = list(processes.values())
        for p in every:
            if p.url:
                wait_until(lambda p=p: answers(p.url), f"{p.name} ready", every)
            else:
                wait_until(lambda p=p: " ready." in p.log_text(), f"{p.name} ready", every)
        yield processes
    finally:
        for p in processes.values():
            p.stop()


def api(process: Process, user) -> requests.Session:
    session = requests.Session()
    session.auth = (user.username, PASSWORD)
    session.headers["Referer"] = process.url
    return session


def test_files_written_on_one_machine_are_served_by_every_other(machines, s3, owner):
    web1, web2 = machines["web1"], machines["web2"]
    evaluation = make_evaluation(owner, title="Several machines")
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner)
    poc_services.plan_init(user=owner, evaluation=evaluation)
    reviewer = make_user(roles.REVIEWER, username="far-reviewer")
    add_member(evaluation, reviewer, MemberRole.REVIEWER)
    declare_none(evaluation, owner, reviewer)
    outsider = make_user(roles.TECH_LEAD, username="far-outsider")
    case = evaluation.poc_cases.get(source_case__key="gang_under_contention")
    cell = f"/api/evaluations/{evaluation.pk}/poc/cells/{case.pk}/{slurm.pk}/"

    # Evidence uploaded through web server 1 downloads through web server 2.
    scored = api(web1, reviewer).put(f"{web1.url}{cell}score/", json={"score": "3"}, timeout=30)
    assert scored.status_code in (200, 201), scored.text
    content = b"all ranks started at once on node-07\n" * 30_000  # about 1 MiB
    uploaded = api(web1, reviewer).post(
        f"{web1.url}{cell}evidence/", files={"file": ("gang.txt", content)}, timeout=60
    )
    assert uploaded.status_code == 201, uploaded.text
    evidence = uploaded.json()
    path = evidence["url"].split("://", 1)[-1].split("/", 1)[-1]
    got = api(web2, reviewer).get(f"{web2.url}/{path}", timeout=60, allow_redirects=False)
    assert got.status_code == 200, got.text[:500]
    assert got.content == content and int(got.headers["Content-Length"]) == len(content)
    assert "gang.txt" in got.headers["Content-Disposition"]
    assert api(web2, outsider).get(f"{web2.url}/{path}", timeout=30).status_code == 404
    assert [k for k in s3.keys("evidence/") if s3.read(k.removeprefix(f"{PREFIX}/")) == content]

    # A report requested on each web server; each worker takes one (one task at a time each).
    reports = f"/api/evaluations/{evaluation.pk}/reports/"
    runs = []
    for web, language in ((web1, "en"), (web2, "zh-hans")):
        body = {"language": language, "sections": SECTIONS}
        answer = api(web, owner).post(f"{web.url}{reports}", json=body, timeout=60)
        assert answer.status_code == 202, answer.text
        runs.append(answer.json()["id"])

    def finished() -> bool:
        states = [
            api(web1, owner).get(f"{web1.url}{reports}{run}/", timeout=30).json()["status"]
            for run in runs
        ]
        assert "failed" not in states, states
        return states == ["done", "done"]

    workers = [machines["worker1"], machines["worker2"]]
    wait_until(finished, "both reports rendered", list(machines.values()), seconds=180)
    # Counted by Celery's "received" line, written before the task runs: its "succeeded" line
    # may come a moment after the run is saved as done.
    taken = re.compile(r"Task reports\.render_report\[[^\]]+\] received")
    rendered_by = {w.name: len(taken.findall(w.log_text())) for w in workers}
    assert rendered_by == {"worker1": 1, "worker2": 1}, rendered_by

    pdf_keys = s3.keys("reports/")
    assert len(pdf_keys) == 2
    stored = {s3.read(k.removeprefix(f"{PREFIX}/")) for k in pdf_keys}
    for run in runs:
        copies = [
            api(web, owner).get(f"{web.url}{reports}{run}/pdf/", timeout=60) for web in (web1, web2)
        ]
        assert all(c.status_code == 200 for c in copies), [c.status_code for c in copies]
        assert copies[0].content == copies[1].content and copies[0].content.startswith(b"%PDF-")
        assert copies[0].content in stored
        assert (
            api(web2, outsider).get(f"{web2.url}{reports}{run}/pdf/", timeout=30).status_code == 404
        )

    for p in machines.values():
        assert p.local_files() == [], f"{p.name} wrote to its local disk: {p.local_files()}"
