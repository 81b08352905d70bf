"""The embedded default as `make run` serves it, for the tests that need the real thing: a SQLite
database file, the filesystem broker, and bin/serve-local starting the web server and a Celery
worker process side by side. Nothing here touches the test database or Redis."""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
DEMO_PASSWORD = "embedded-demo-password"

SETUP = f"""
import os
import django

django.setup()
from django.contrib.auth import get_user_model
from django.core.management import call_command

sink = open(os.devnull, "w")
call_command("migrate", verbosity=0, stdout=sink)
call_command("seed", verbosity=0, stdout=sink)
call_command("demo", stdout=sink)
for user in get_user_model().objects.filter(username__in=["procurement", "techlead"]):
    user.set_password({DEMO_PASSWORD!r})
    user.save()
"""


def embedded_env(folder: Path, **extra: str) -> dict[str, str]:
    """The environment of `make run`: no REDIS_URL, no DATABASE_URL of the test run, the local
    settings; only the files go to `folder` instead of var/."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CELERY_", "REDIS_", "DATABASE_", "DJANGO_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DATABASE_URL=f"sqlite:///{folder / 'shortlist.sqlite3'}",
        DJANGO_MEDIA_ROOT=str(folder / "media"),
        CELERY_BROKER_DIR=str(folder / "celery"),
        PYTHONPATH=str(ROOT),
        **extra,
    )
    return env


def prepare_database(folder: Path) -> None:
    """Migrate, seed and load the demos (English and Chinese, as `make run` does) into
    folder/shortlist.sqlite3 (about half a minute)."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-c", SETUP],
        cwd=ROOT,
        env=embedded_env(folder),
        check=True,
        timeout=300,
    )


def start_celery_worker(env: dict, *, loglevel: str = "WARNING", stderr=subprocess.DEVNULL):
    """A real `celery -A config worker` process (solo pool, one task at a time) in a session
    of its own, so that a test can kill it and everything it started."""
    return subprocess.Popen(
        [
            sys.executable,
            *("-m", "celery", "-A", "config", "worker", "-P", "solo", "-c", "1"),
            *("--without-gossip", "--without-mingle", "--without-heartbeat"),
            f"--loglevel={loglevel}",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        start_new_session=True,
    )


def worker_env(redis_url: str, **extra: str) -> dict[str, str]:
    """The environment of a worker process that shares this test's PostgreSQL database and
    media folder. On SQLite the test is skipped (failed under CI): another process cannot see
    a test database that lives in a transaction."""
    import pytest
    from django.conf import settings
    from django.db import connection

    from tests.conftest import IN_CI

    if connection.vendor != "postgresql":
        if IN_CI:
            pytest.fail("CI must run this on PostgreSQL")
        pytest.skip("a separate worker process needs a shared PostgreSQL test database")
    db = connection.settings_dict
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://{db['USER']}@{host}:{port}/{db['NAME']}",
        "REDIS_URL": redis_url,
        "DJANGO_MEDIA_ROOT": str(settings.MEDIA_ROOT),
        **extra,
    }


def stop_process(process: subprocess.Popen, timeout: float = 10) -> None:
    """Terminate a server a test started, and kill it if it does not stop in time."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# Ports for the servers tests start (gunicorn, slapd, the OpenID provider, moto): each pytest-xdist
# worker takes them from a range of its own, below the kernel's ephemeral ports (32768 and up),
# so two workers never pick the same one between checking it is free and binding it.
PORTS_FROM, PORTS_PER_WORKER = 20000, 1000
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
_PORTS = itertools.count(PORTS_FROM + int(_WORKER[2:] or 0) * PORTS_PER_WORKER)


def free_port() -> int:
    """The next port of this worker's range that nothing listens on."""
    for port in _PORTS:
        if (port - PORTS_FROM) % PORTS_PER_WORKER == PORTS_PER_WORKER - 1:
            raise RuntimeError(f"test worker {_WORKER} used up its {PORTS_PER_WORKER} ports")
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("unreachable")


def processes_of(folder: Path) -> list[int]:
    """Ids of the live processes started for `folder` (found by their environment)."""
    marker = f"CELERY_BROKER_DIR={folder / 'celery'}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in environ.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


@dataclass
class Site:
    """bin/serve-local running on a copy of the prepared database."""

    folder: Path
    url: str
    process: subprocess.Popen
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def worker_pids(self) -> list[int]:
        pids = []
        for pid in processes_of(self.folder):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"celery" in cmdline and b"worker" in cmdline:
                pids.append(pid)
        return pids

    def press_ctrl_c(self, timeout: float = 60) -> int:
        """What Ctrl-C in the terminal does: SIGINT to the foreground group, which holds the
        script (the web server and the worker run in sessions of their own)."""
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            # Say which process did not stop, and what the script and the worker last wrote.
            left = []
            for pid in processes_of(self.folder):
                with contextlib.suppress(OSError):
                    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                    left.append(f"{pid}: {cmdline.decode(errors='replace')[:200]}")
            script = Path(f"/proc/{self.process.pid}/status")
            signals = [
                line
                for line in (script.read_text().splitlines() if script.exists() else [])
                if line.startswith(("SigBlk", "SigIgn", "SigCgt"))
            ]
            raise AssertionError(
                f"bin/serve-local did not end {timeout:.0f} s after Ctrl-C; still running:\n"
                + "\n".join(left)
                + f"\n--- the script's signals ---\n{' '.join(signals)}"
                + f"\n--- {(self.log_text().splitlines() or [''])[0]}"
                + f"\n--- its log ---\n{self.log_text()[-4000:]}"
            ) from None

    def kill_leftovers(self) -> None:
        for pid in processes_of(self.folder):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


# The script starts as from a terminal: Ctrl-C delivered and handled. A process inherits the
# signals its parent ignores and the ones it blocks, and a shell cannot trap a signal it was
# started with ignored; a test process may have either from a library it ran before (seen once
# in CI: the script never saw Ctrl-C). This resets both, then runs the script in its place.
AS_FROM_A_TERMINAL = [
    sys.executable,
    "-c",
    "import os, signal, sys\n"
    "signal.pthread_sigmask(signal.SIG_SETMASK, [])\n"
    "for s in (signal.SIGINT, signal.SIGTERM): signal.signal(s, signal.SIG_DFL)\n"
    "os.execv(sys.argv[1], sys.argv[1:])",
]


def start_site(template: Path, folder: Path) -> Site:
    """Copy the prepared database and files to `folder` and serve them as `make run` does."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(template / "shortlist.sqlite3", folder / "shortlist.sqlite3")
    if (template / "media").exists():
        shutil.copytree(template / "media", folder / "media")
    port = free_port()
    log = folder / "serve.log"
    env = embedded_env(
        folder, BIN=str(Path(sys.executable).parent), HOST="127.0.0.1", PORT=str(port)
    )
    with open(log, "wb") as out:
        # What the test process passes on (blocked and ignored signals), for a failure to show.
        status = Path("/proc/thread-self/status")
        passed_on = [
            line
            for line in (status.read_text().splitlines() if status.exists() else [])
            if line.startswith(("SigBlk", "SigIgn"))
        ]
        out.write(f"test process: {' '.join(passed_on)}\n".encode())
        out.flush()
        process = subprocess.Popen(
            [*AS_FROM_A_TERMINAL, str(ROOT / "bin" / "serve-local")],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a group of its own, as a terminal's foreground job
        )
    site = Site(folder=folder, url=f"http://127.0.0.1:{port}", process=process, log=log)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"bin/serve-local ended early:\n{site.log_text()}")
        try:
            healthy = requests.get(f"{site.url}/healthz", timeout=2).status_code == 200
        except requests.RequestException:
            healthy = False
        if healthy and " ready." in site.log_text():
            return site
        time.sleep(0.3)
    site.kill_leftovers()
    raise RuntimeError(f"bin/serve-local did not come up:\n{site.log_text()}")


def signed_in(site: Site, username: str) -> requests.Session:
    """A browser-like session: signed in through the login form, CSRF header set for writes."""
    session = requests.Session()
    session.get(f"{site.url}/accounts/login/", timeout=10)
    token = session.cookies["csrftoken"]
    response = session.post(
        f"{site.url}/accounts/login/",
        data={"username": username, "password": DEMO_PASSWORD, "csrfmiddlewaretoken": token},
        headers={"Referer": f"{site.url}/accounts/login/"},
        timeout=10,
    )
    assert response.url.rstrip("/") == site.url, "sign-in failed"
    session.headers["X-CSRFToken"] = session.cookies["csrftoken"]
    session.headers["Referer"] = site.url
    return session
