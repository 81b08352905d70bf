"""Lists, evaluation tabs, the report poll and a 16-client load mix at the scale real
organisations reach, served by gunicorn as in production, with ratios to a /healthz floor
measured in the same run.

The data is bench/scale_data.py's (1,000 evaluations, 200,000 scores, ~400,000 matrix cells),
generated first when the database named by DATABASE_URL does not have it yet. Then:

* gunicorn starts with 2 workers and the production settings (DEBUG off, static files by
  WhiteNoise from collectstatic's manifest) on a free port, behind a pretend TLS proxy
  (X-Forwarded-Proto: https), as production runs; users are signed in with sessions made here;
* for each target: p50/p95 of sequential requests after a warm-up (fewer when a target is too
  slow for its time budget), the response size, the peak RSS of the gunicorn workers during
  the target (VmHWM from /proc, reset per target, and VmRSS sampled every 20 ms; the workers
  are replaced before each user's lists, the tabs and the load runs, so memory one group
  leaves behind is not counted against the next), and the query count, measured in this
  process with django.test.Client on the same URL and database;
* the targets: the /healthz floor; home, /evaluations/ and /api/evaluations/ (default page and
  ?limit=1000, which the pagination caps) for scale-viewer (1,000 evaluations), scale-ten (10)
  and scale-owner (30); every tab of the large evaluation for its owner; the report list's
  progress poll (htmx) while a run renders; a load mix of 16 clients (API lists and the
  scorecard) against the floor's 16-client /healthz throughput.

It ends with PASS/MISS for each target of the issue and always exits 0: it is a measurement.

    DATABASE_URL=postgres://.../shortlist_scale REDIS_URL=redis://127.0.0.1:6379/<n> \\
        .venv/bin/python bench/scale.py [--quick] [--skip-generate] [--requests 20]

Without REDIS_URL the workers use a throwaway filesystem broker folder (what /healthz checks).
1 MB = 1024 × 1024 bytes, 1 KB = 1024 bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import math
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORKERS = 2
CLIENTS = 16
MB = 1024 * 1024
KB = 1024

# The targets, as multiples of the floor (p50 unless said otherwise).
LIST_RATIO = 10
LIST_RSS_MB = 300
SAME_AS_TEN = 1.5
TAB_RATIO = 10
SCORECARD_RATIO = 20
SCORECARD_KB = 200
RESULTS_RATIO = 15
POLL_QUERIES = 5
POLL_RATIO = 3
LOAD_THROUGHPUT_SHARE = 1 / 8
LOAD_P95_RATIO = 8


# --- HTTP ------------------------------------------------------------------------------------


@dataclass
class Fetched:
    seconds: float
    status: int | str  # the HTTP status, or the exception's name when there was no answer
    size: int

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
        return Fetched(time.perf_counter() - start, response.status, len(body))
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

    @property
    def throughput(self) -> float:
        return len(self.times) / self.seconds

    @property
    def p50(self) -> float:
        return statistics.median(self.times)

    @property
    def p95(self) -> float:
        return percentile(self.times, 0.95)


def load(server: Server, label: str, mix: list[tuple[str, str | None]], seconds: float) -> Load:
    """CLIENTS threads, each sending the mix's requests round-robin until the time is up."""
    deadline = time.perf_counter() + seconds
    times: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()

    def client(k: int) -> None:
        i = k
        while time.perf_counter() < deadline:
            path, session = mix[i % len(mix)]
            i += 1
            got = fetch(server.port, path, session)
            with lock:
                times.append(got.seconds)
                if not got.ok:
                    failures.append(str(got.status))

    threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
    with RssWatch(server) as rss:
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
    return Load(label, elapsed, times, failures, rss.peak_mb)


# --- setup -----------------------------------------------------------------------------------


def configure_environment(tmp: Path) -> None:
    """The production settings, as the workers will read them (they inherit this environment)."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.production"
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + secrets.token_urlsafe(40))
    os.environ["DJANGO_BEHIND_TLS_PROXY"] = "true"  # the requests say X-Forwarded-Proto: https
    os.environ["ALLOWED_HOSTS"] = "127.0.0.1,localhost,testserver"
    os.environ["DJANGO_MEDIA_ROOT"] = str(tmp / "media")  # nothing should be written there
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    if not os.environ.get("REDIS_URL"):
        broker = tmp / "celery"
        for folder in ("queue", "control"):
            (broker / folder).mkdir(parents=True)
        os.environ["CELERY_BROKER_DIR"] = str(broker)


def session_for(username: str) -> str:
    """A signed-in session for the user, stored in the database the workers read."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )

    user = get_user_model().objects.get(username=username)
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store[SESSION_KEY] = user._meta.pk.value_to_string(user)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return store.session_key


def data_summary(large) -> str:
    from django.db.models import Count

    from bench import scale_data
    from evaluations.models import Evaluation, Membership
    from poc.models import Score
    from responsibility.models import Cell

    ours = Evaluation.objects.filter(created_by__username__startswith=scale_data.PREFIX)
    seen = dict(
        Membership.objects.filter(user__username__in=[scale_data.VIEWER, scale_data.TEN])
        .values_list("user__username")
        .annotate(n=Count("pk"))
    )
    owned = Membership.objects.filter(user__username=scale_data.OWNER, role="owner").count()
    scores = Score.objects.filter(case__evaluation__in=ours, submitted_at__isnull=False)
    cells = Cell.objects.filter(row__candidate__evaluation__in=ours)
    return (
        f"{ours.count():,} evaluations, {scores.count():,} submitted scores, "
        f"{cells.count():,} matrix cells; "
        f"scale-viewer sees {seen.get(scale_data.VIEWER, 0)}, "
        f"scale-ten {seen.get(scale_data.TEN, 0)}, scale-owner owns {owned}; large evaluation "
        f"#{large.pk} ({large.candidates.count()} candidates, {large.poc_cases.count()} cases, "
        f"{Score.objects.filter(case__evaluation=large).count():,} scores)"
    )


# --- main ------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer requests and a shorter load")
    parser.add_argument("--requests", type=int, help="sequential requests per target (20)")
    parser.add_argument("--budget", type=float, help="seconds per target before stopping early")
    parser.add_argument("--load-seconds", type=float, help="seconds per load run (20)")
    parser.add_argument(
        "--skip-generate", action="store_true", help="refuse instead of generating missing data"
    )
    parser.add_argument("--keep", action="store_true", help="keep the gunicorn log")
    parser.add_argument(
        "--evaluations", type=int, default=1000, help="when generating (a smaller smoke run)"
    )
    parser.add_argument("--scores", type=int, default=200_000, help="when generating")
    args = parser.parse_args()
    args.requests = args.requests or (5 if args.quick else 20)
    args.budget = args.budget or (8.0 if args.quick else 20.0)
    args.load_seconds = args.load_seconds or (8.0 if args.quick else 20.0)
    sys.stdout.reconfigure(line_buffering=True)
    if "DATABASE_URL" not in os.environ:
        sys.exit(
            "Set DATABASE_URL to the PostgreSQL database to measure (e.g. .../shortlist_scale)."
        )
    tmp = Path(tempfile.mkdtemp(prefix="shortlist-bench-scale-"))
    configure_environment(tmp)

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from bench import scale_data
    from evaluations.models import Membership

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # production's manifest
    large = scale_data.large_evaluation()
    generated = "already there"
    if large is None:
        if args.skip_generate:
            sys.exit("No scale data here: run bench/scale_data.py first (or drop --skip-generate).")
        print("generating the scale data (bench/scale_data.py) ...")
        totals = scale_data.generate(args.evaluations, args.scores)
        generated = f"generated in {totals['seconds']:.0f} s"
        large = scale_data.large_evaluation()
    scale_data.poll_run(large)
    users = {"viewer": scale_data.VIEWER, "ten": scale_data.TEN, "owner": scale_data.OWNER}
    sessions = {short: session_for(name) for short, name in users.items()}
    print(
        f"database: {connection.vendor} {connection.settings_dict['NAME']}; data {generated}: "
        f"{data_summary(large)}"
    )

    server = Server(tmp / "gunicorn.log")
    try:
        server.wait_ready()
        import gunicorn

        print(
            f"gunicorn {gunicorn.__version__}, {WORKERS} workers, config.settings.production; "
            f"{args.requests} sequential requests per target after a warm-up (budget "
            f"{args.budget:.0f} s); load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
        )
        bench = Bench(server, sessions, args)
        bench.viewer_sees = Membership.objects.filter(user__username=scale_data.VIEWER).count()
        bench.measure_floor()
        lists = [
            ("home", "home /", "/"),
            ("list", "evaluation list /evaluations/", "/evaluations/"),
            ("api", "/api/evaluations/", "/api/evaluations/"),
            ("api-max", "/api/evaluations/?limit=1000", "/api/evaluations/?limit=1000"),
        ]
        for user in ("ten", "owner", "viewer"):  # the one that may exhaust a worker last
            server.reload()
            for key, label, path in lists:
                bench.measure(f"{key}:{user}", label, user, path)
            bench.measure_floor()
        # Cold: every evaluation's stamp moved before each request (as after a catalog edit),
        # so every row of the page is counted again from its data and stored.
        for key, label, path in lists[:2]:
            label = f"{label} cold"
            bench.measure(f"{key}-cold:viewer", label, "viewer", path, before=move_every_stamp)
        bench.measure_floor()
        pk = large.pk
        tabs = [
            ("overview", f"/evaluations/{pk}/"),
            ("context", f"/evaluations/{pk}/context/"),
            ("shortlist", f"/evaluations/{pk}/shortlist/"),
            ("questions", f"/evaluations/{pk}/questions/"),
            ("responsibility", f"/evaluations/{pk}/responsibility/"),
            ("costs", f"/evaluations/{pk}/costs/"),
            ("scorecard", f"/evaluations/{pk}/poc/"),
            ("results", f"/evaluations/{pk}/poc/results/"),
            ("plan", f"/evaluations/{pk}/poc/plan/"),
            ("reports", f"/evaluations/{pk}/reports/"),
            ("decision", f"/evaluations/{pk}/decision/"),
            ("members", f"/evaluations/{pk}/members/"),
            ("history", f"/evaluations/{pk}/history/"),
        ]
        server.reload()
        for key, path in tabs:
            bench.measure(f"tab:{key}", f"tab {key}", "owner", path)
        bench.measure(
            "poll", "report poll (htmx)", "owner", f"/evaluations/{pk}/reports/", htmx=True
        )
        bench.measure_floor()

        mix = [
            ("/api/evaluations/", sessions["owner"]),
            (f"/evaluations/{pk}/poc/", sessions["owner"]),
            ("/api/evaluations/", sessions["ten"]),
            ("/api/evaluations/?limit=10", sessions["viewer"]),
        ]
        server.reload()
        floor_load = load(server, "floor: /healthz", [("/healthz", None)], args.load_seconds)
        mix_load = load(server, "mix", mix, args.load_seconds)
    finally:
        server.stop()
    report(bench, floor_load, mix_load, args, tmp)


def move_every_stamp() -> None:
    """What a catalog edit does: every stored row status is out of date (evaluations/digests)."""
    from evaluations.digests import EVERYTHING, changed

    changed(EVERYTHING)


def report(bench: Bench, floor_load: Load, mix_load: Load, args, tmp: Path) -> None:
    r = bench.results
    floor = bench.floor()
    bench.table()
    print(f"\nload: {CLIENTS} clients, {args.load_seconds:.0f} s each")
    print(f"{'run':<48}{'requests':>9}{'req/s':>8}{'p50 ms':>9}{'p95 ms':>9}{'RSS MB':>8}  errors")
    for run in (floor_load, mix_load):
        print(
            f"{run.label:<48}{len(run.times):>9}{run.throughput:>8.1f}{run.p50 * 1000:>9.1f}"
            f"{run.p95 * 1000:>9.1f}{run.rss_mb:>8.0f}  {len(run.failures)}"
        )
    print("  mix: /api/evaluations/ (owner, ten), ?limit=10 (viewer), the scorecard (owner)")
    if bench.hwm_unreset:
        print("note: the kernel refused to reset VmHWM; RSS is the sampled VmRSS peak")

    def verdict(ok: bool) -> str:
        return "PASS" if ok else "MISS"

    sees = f"scale-viewer ({bench.viewer_sees:,} evaluations)"

    def ratio(x: Result) -> float:
        return x.p50 / floor

    runs = ", ".join(f"{f.p50 * 1000:.1f}" for f in bench.floors)
    print(f"\ntargets (floor p50 {floor * 1000:.1f} ms: the median of {runs} ms)")
    for key, label in (
        ("home", "home"),
        ("list", "evaluation list"),
        ("api", "API list"),
        ("api-max", "API ?limit=1000"),
    ):
        v, ten = r[f"{key}:viewer"], r[f"{key}:ten"]
        ok = not v.failures
        print(
            f"  {verdict(ok and ratio(v) <= LIST_RATIO)}  {label}, {sees}: p50 ≤ "
            f"{LIST_RATIO} × floor: {ratio(v):.1f} ×"
            + (f" ({len(v.failures)} errors)" if v.failures else "")
        )
        print(
            f"  {verdict(v.rss_mb <= LIST_RSS_MB)}  {label}, {sees}: worker RSS ≤ "
            f"{LIST_RSS_MB} MB: {v.rss_mb:.0f} MB"
        )
        print(
            f"  {verdict(ok and v.p50 <= SAME_AS_TEN * ten.p50)}  {label}: scale-viewer's p50 ≤ "
            f"{SAME_AS_TEN} × scale-ten's: {v.p50 * 1000:.0f} ms vs {ten.p50 * 1000:.0f} ms "
            f"({v.p50 / ten.p50:.1f} ×)"
        )
    for key in ("home", "list"):
        cold = r[f"{key}-cold:viewer"]
        print(
            f"  info  {key}, {sees}, every row counted again (after a catalog edit, once): "
            f"{cold.p50 * 1000:.0f} ms ({ratio(cold):.1f} ×), {cold.queries} queries"
        )
    for key in [k for k in r if k.startswith("tab:")]:
        t = r[key]
        name = key.removeprefix("tab:")
        limit = {"scorecard": SCORECARD_RATIO, "results": RESULTS_RATIO}.get(name, TAB_RATIO)
        print(
            f"  {verdict(not t.failures and ratio(t) <= limit)}  tab {name}: p50 ≤ {limit} × "
            f"floor: {ratio(t):.1f} ×"
        )
    card = r["tab:scorecard"]
    print(
        f"  {verdict(card.size <= SCORECARD_KB * KB)}  scorecard HTML ≤ {SCORECARD_KB} KB: "
        f"{card.size / KB:.0f} KB"
    )
    poll = r["poll"]
    print(
        f"  {verdict(poll.queries is not None and poll.queries <= POLL_QUERIES)}  report poll ≤ "
        f"{POLL_QUERIES} queries: {poll.queries}"
    )
    print(
        f"  {verdict(not poll.failures and ratio(poll) <= POLL_RATIO)}  report poll p50 ≤ "
        f"{POLL_RATIO} × floor: {ratio(poll):.1f} ×"
    )
    share = mix_load.throughput / floor_load.throughput
    print(
        f"  {verdict(share >= LOAD_THROUGHPUT_SHARE)}  load mix throughput ≥ 1/8 of the "
        f"floor's: {mix_load.throughput:.1f} vs {floor_load.throughput:.1f} req/s "
        f"(1/{1 / share:.0f})"
    )
    print(
        f"  {verdict(mix_load.p95 <= LOAD_P95_RATIO * floor_load.p95)}  load mix p95 ≤ "
        f"{LOAD_P95_RATIO} × the floor's: {mix_load.p95 * 1000:.0f} vs "
        f"{floor_load.p95 * 1000:.0f} ms ({mix_load.p95 / floor_load.p95:.1f} ×)"
    )
    print(
        f"  {verdict(not mix_load.failures)}  load mix without errors: {len(mix_load.failures)}"
        + (f" ({', '.join(sorted(set(mix_load.failures)))})" if mix_load.failures else "")
    )
    log = (tmp / "gunicorn.log").read_text(errors="replace")
    print(
        f"\ngunicorn: {log.count('WORKER TIMEOUT')} worker timeouts (killed and replaced); "
        f"load average at the end {os.getloadavg()[0]:.2f} (1 min), "
        f"{os.getloadavg()[1]:.2f} (5 min)"
    )
    if args.keep:
        print(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
