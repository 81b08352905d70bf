"""The measuring of bench/scale.py: sequential requests per target (timings, size, peak RSS,
and the same request's queries counted in this process), the /healthz floor between groups, the
table of results, and the 16-client load runs."""

from __future__ import annotations

import statistics
import threading
import time
from dataclasses import dataclass, field

from bench.scale_server import RssWatch, Server, fetch, percentile

CLIENTS = 16
MB = 1024 * 1024
KB = 1024


# --- measuring -------------------------------------------------------------------------------


@dataclass
class Result:
    label: str
    user: str
    path: str
    times: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    size: int = 0
    rss_mb: float = 0.0
    queries: int | None = None
    inprocess_seconds: float | None = None
    inprocess_status: int | str | None = None

    @property
    def p50(self) -> float:
        return statistics.median(self.times)

    @property
    def p95(self) -> float:
        return percentile(self.times, 0.95)


class Bench:
    def __init__(self, server: Server, sessions: dict[str, str], args):
        self.server = server
        self.sessions = sessions
        self.args = args
        self.results: dict[str, Result] = {}
        self.floors: list[Result] = []
        self.viewer_sees = 0
        self.hwm_unreset = False  # the kernel refused to reset VmHWM: RSS is sampled only

    def measure(
        self, key: str, label: str, user: str, path: str, *, htmx=False, n=None, before=None
    ):
        """Sequential requests after a warm-up; stops early once the time budget is spent
        (a page that takes tens of seconds gets one or two samples, not twenty). `before` runs
        before each request, outside the clock."""
        n = n or self.args.requests
        session = self.sessions.get(user)
        result = Result(label, user, path)
        before = before or (lambda: None)
        with RssWatch(self.server) as rss:
            before()
            warm = fetch(self.server.port, path, session, htmx=htmx)
            if warm.seconds < 2:  # each worker renders it once before the clock starts
                before()
                fetch(self.server.port, path, session, htmx=htmx)
            least = 1 if warm.seconds > self.args.budget else 3
            started = time.perf_counter()
            for i in range(n):
                before()
                got = fetch(self.server.port, path, session, htmx=htmx)
                result.times.append(got.seconds)
                result.size = max(result.size, got.size)
                if not got.ok:
                    result.failures.append(str(got.status))
                spent = time.perf_counter() - started
                if i + 1 >= least and spent > self.args.budget:
                    break
        result.rss_mb = rss.peak_mb
        self.hwm_unreset |= not rss.hwm_resets
        before()
        self.count_queries(result, session, htmx)
        self.results[key] = result
        self.progress(result)
        return result

    def count_queries(self, result: Result, session: str | None, htmx: bool) -> None:
        """The same request in this process, through django.test.Client, queries captured."""
        from django.conf import settings
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext

        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        if session:
            client.cookies[settings.SESSION_COOKIE_NAME] = session
        headers = {"HX-Request": "true"} if htmx else {}
        start = time.perf_counter()
        try:
            with CaptureQueriesContext(connection) as ctx:
                response = client.get(result.path, secure=True, headers=headers)
            result.inprocess_status = response.status_code
            result.queries = len(ctx.captured_queries)
        except Exception as exc:  # a page that fails in-process is reported, not fatal
            result.inprocess_status = type(exc).__name__
        result.inprocess_seconds = time.perf_counter() - start

    def measure_floor(self) -> Result:
        """The floor, measured again between groups: the ratios use the median of its p50s,
        so a drift in the machine's load moves the floor as well as the pages."""
        k = len(self.floors) + 1
        result = self.measure(f"floor-{k}", f"floor: /healthz ({k})", "anon", "/healthz", n=50)
        self.floors.append(result)
        return result

    def floor(self) -> float:
        return statistics.median(f.p50 for f in self.floors)

    def progress(self, r: Result) -> None:
        errors = f", {len(r.failures)} errors" if r.failures else ""
        print(
            f"  {r.label} ({r.user}): p50 {r.p50 * 1000:.1f} ms over {len(r.times)}, "
            f"{r.queries} queries{errors}"
        )

    def table(self) -> None:
        floor = self.floor()
        print(
            f"\n{'target':<34}{'user':>7}{'n':>4}{'p50 ms':>10}{'p95 ms':>10}{'x floor':>9}"
            f"{'queries':>8}{'KB':>8}{'RSS MB':>8}{'in-proc s':>10}  errors"
        )
        for r in self.results.values():
            queries = "?" if r.queries is None else str(r.queries)
            inproc = "" if r.inprocess_seconds is None else f"{r.inprocess_seconds:.2f}"
            if r.inprocess_status not in (None, 200):
                inproc += f" ({r.inprocess_status})"
            errors = f"{len(r.failures)}" + (
                f" ({', '.join(sorted(set(r.failures)))})" if r.failures else ""
            )
            print(
                f"{r.label:<34}{r.user:>7}{len(r.times):>4}{r.p50 * 1000:>10.1f}"
                f"{r.p95 * 1000:>10.1f}{r.p50 / floor:>9.1f}{queries:>8}{r.size / KB:>8.1f}"
                f"{r.rss_mb:>8.0f}{inproc:>10}  {errors}"
            )


@dataclass
class Load:
    label: str
    seconds: float
    times: list[float]
    failures: list[str]
    rss_mb: float
    kept: int = 0  # answers from the page cache

    @property
    def throughput(self) -> float:
        return len(self.times) / self.seconds

    @property
    def p50(self) -> float:
        return statistics.median(self.times)

    @property
    def p95(self) -> float:
        return percentile(self.times, 0.95)


def drive(
    server: Server, label: str, n: int, seconds: float, request_for
) -> tuple[Load, dict[str, list[float]]]:
    """`n` threads, client k sending request_for(k, i) = (path, session) for its i-th request,
    each as soon as the one before is answered, until `seconds` are up; the load and the times
    per path."""
    deadline = time.perf_counter() + seconds
    times: list[float] = []
    failures: list[str] = []
    by_path: dict[str, list[float]] = {}
    kept = [0]
    lock = threading.Lock()

    def client(k: int) -> None:
        i = 0
        while time.perf_counter() < deadline:
            path, session = request_for(k, i)
            i += 1
            got = fetch(server.port, path, session)
            with lock:
                times.append(got.seconds)
                by_path.setdefault(path, []).append(got.seconds)
                kept[0] += got.kept
                if not got.ok:
                    failures.append(str(got.status))

    threads = [threading.Thread(target=client, args=(k,)) for k in range(n)]
    with RssWatch(server) as rss:
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
    return Load(label, elapsed, times, failures, rss.peak_mb, kept[0]), by_path


def load(server: Server, label: str, mix: list[tuple[str, str | None]], seconds: float) -> Load:
    """CLIENTS threads, each sending the mix's requests round-robin until the time is up."""
    return drive(server, label, CLIENTS, seconds, lambda k, i: mix[(k + i) % len(mix)])[0]
