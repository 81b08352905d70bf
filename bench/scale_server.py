"""The HTTP side of bench/scale.py: one GET as a browser sends it, and gunicorn started with the
production settings on a free port, with its workers' peak memory watched while a target runs."""

from __future__ import annotations

import hashlib
import http.client
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKERS = 2


# --- HTTP ------------------------------------------------------------------------------------


@dataclass
class Fetched:
    seconds: float
    status: int | str  # the HTTP status, or the exception's name when there was no answer
    size: int
    kept: bool = False  # answered from the page cache (evaluations/pagecache.py)

    @property
    def ok(self) -> bool:
        return self.status == 200


def fetch(port: int, path: str, session: str | None = None, *, htmx: bool = False) -> Fetched:
    """One GET on a new connection (gunicorn's sync workers close it after each answer)."""
    headers = {"X-Forwarded-Proto": "https", "Accept-Language": "en"}
    if session:
        # A browser sends the CSRF cookie its first page set: kept tabs are filed under it
        # (evaluations/pagecache.py), so without it every tab would be rendered every time.
        headers["Cookie"] = f"sessionid={session}; csrftoken={csrf_secret(session)}"
    if htmx:
        headers["HX-Request"] = "true"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=180)
    start = time.perf_counter()
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        kept = response.getheader("X-Page-Cache") == "hit"
        return Fetched(time.perf_counter() - start, response.status, len(body), kept)
    except (OSError, http.client.HTTPException) as exc:
        return Fetched(time.perf_counter() - start, type(exc).__name__, 0)
    finally:
        connection.close()


def csrf_secret(session: str) -> str:
    """A CSRF secret of the form Django makes, one per session, stable across requests."""
    return hashlib.sha256(session.encode()).hexdigest()[:32]


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (p95 of 20 values is the 19th smallest)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


# --- gunicorn --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """gunicorn with the production settings, started and stopped by this process."""

    def __init__(self, log_path: Path):
        self.port = free_port()
        self.log = open(log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "gunicorn"),
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                str(WORKERS),
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=os.environ.copy(),
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise SystemExit(
                    f"gunicorn exited ({self.process.returncode}); see {self.log.name}"
                )
            if fetch(self.port, "/healthz").ok and len(self.workers()) == WORKERS:
                return
            time.sleep(0.3)
        raise SystemExit(f"gunicorn did not answer /healthz within {timeout:.0f} s")

    def reload(self, timeout: float = 60) -> None:
        """Fresh workers (SIGHUP: gunicorn starts new ones and retires the old), so what one
        group of targets left in a worker's memory is not counted against the next."""
        old = set(self.workers())
        self.process.send_signal(signal.SIGHUP)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            now = set(self.workers())
            if len(now) == WORKERS and not now & old:
                return self.wait_ready()
            time.sleep(0.2)
        raise SystemExit(f"gunicorn did not replace its workers within {timeout:.0f} s")

    def workers(self) -> list[int]:
        """The worker processes: the master's children."""
        pids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == self.process.pid:
                pids.append(int(entry.name))
        return pids

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def status_kib(pid: int, key: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


class RssWatch:
    """The workers' peak RSS while active: VmHWM (reset at the start through clear_refs where
    the kernel allows it) and VmRSS sampled every 20 ms, which also catches a worker that
    gunicorn kills and replaces meanwhile."""

    def __init__(self, server: Server):
        self.server = server
        self.hwm_resets = True

    def __enter__(self):
        self.peak_kib = 0
        self.pids = self.server.workers()
        for pid in self.pids:
            try:
                Path(f"/proc/{pid}/clear_refs").write_text("5")
            except OSError:
                self.hwm_resets = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        tick = 0
        while not self._stop.wait(0.02):
            tick += 1
            if tick % 50 == 0:
                self.pids = self.server.workers()
            for pid in self.pids:
                self.peak_kib = max(self.peak_kib, status_kib(pid, "VmRSS") or 0)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        if self.hwm_resets:
            for pid in self.server.workers():
                self.peak_kib = max(self.peak_kib, status_kib(pid, "VmHWM") or 0)

    @property
    def peak_mb(self) -> float:
        return self.peak_kib / 1024
