"""What bench/report_render.py measures and how: wall-clock, CPU and collector time, end to end
through the report services, WeasyPrint alone on the same HTML in a fresh process (the floor),
a render in a child process for its peak RSS, the progress poll, and the fontTools stack.

The fresh processes run bench/report_render.py again with a flag saying what to do."""

import gc
import json
import logging
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

# The script the child processes run (they inherit this one's database and media).
SCRIPT = str(Path(__file__).resolve().with_name("report_render.py"))
CHILD_FLAG = "--child-render"
FLOOR_FLAG = "--child-floor"
TUNED_FLAG = "--tuned"
LANGUAGE = "zh-hans"
POLL_REQUESTS = 60


class Timer:
    """Wall-clock and CPU seconds of this process (CPU time is steadier on a busy machine; it
    leaves out the database server's work when DATABASE_URL points at one), and the CPU seconds
    spent inside the cyclic garbage collector with its collections per generation."""

    def __enter__(self):
        self.gc_seconds, self.collections, self._gc_start = 0.0, [0, 0, 0], 0.0
        gc.callbacks.append(self._collecting)
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self._wall
        self.cpu = time.process_time() - self._cpu
        gc.callbacks.remove(self._collecting)

    def _collecting(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_start = time.process_time()
        else:
            self.gc_seconds += time.process_time() - self._gc_start
            self.collections[info["generation"]] += 1

    def figures(self) -> dict:
        return {
            "wall": self.wall,
            "cpu": self.cpu,
            "gc": self.gc_seconds,
            "collections": self.collections,
        }

    @classmethod
    def of(cls, figures: dict) -> "Timer":
        timer = cls()
        timer.wall, timer.cpu = figures["wall"], figures["cpu"]
        timer.gc_seconds, timer.collections = figures["gc"], figures["collections"]
        return timer


class SubsetClock:
    """Seconds WeasyPrint spends subsetting fonts (HarfBuzz or fontTools) while active."""

    def __enter__(self):
        from weasyprint.pdf.fonts import Font

        self.seconds = 0.0
        self._original = original = Font.subset

        def subset(font, *args, **kwargs):
            start = time.perf_counter()
            try:
                return original(font, *args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        Font.subset = subset
        return self

    def __exit__(self, *exc):
        from weasyprint.pdf.fonts import Font

        Font.subset = self._original


def end_to_end(evaluation, user, *, fresh: bool = True, tuned: bool = True):
    """report_request + report_render, the real path: snapshot → run row → render task → file.
    `fresh`: delete the evaluation's earlier runs first, so the run renders rather than reusing
    an earlier run's PDF of the same snapshot. `tuned`: REPORT_GC_TUNING."""
    from django.test.utils import override_settings

    from reports import services
    from reports.models import ReportRun, RunStatus

    if fresh:
        for earlier in ReportRun.objects.filter(evaluation=evaluation):
            earlier.pdf.delete(save=False)
            earlier.delete()
    gc.collect()  # no garbage of an earlier measure: each pays for its own (below)
    with override_settings(REPORT_GC_TUNING=tuned), Timer() as timer:
        run, _sent = services.report_request(user=user, evaluation=evaluation, language=LANGUAGE)
        run = services.report_render(run.pk)  # already rendered in-process: then a no-op
        timer.freeing = 0.0
        if fresh:
            # Freeing the render's garbage (the laid-out document, about a million objects in
            # cycles): the tuning does it before the task returns; without it a worker pays it
            # in a later collection, typically during its next render. Counted for both.
            start = time.process_time()
            gc.collect()
            timer.freeing = time.process_time() - start
    run = ReportRun.objects.get(pk=run.pk)
    if run.status != RunStatus.DONE:
        raise SystemExit(f"report run {run.pk} ended {run.status}: {run.error}")
    return timer, run


def floor(html_path: Path, *, tuned: bool = False) -> tuple[Timer, dict]:
    """WeasyPrint alone on the run's final HTML (templating not included), in a fresh process:
    under the interpreter's default collector, or (`tuned`) inside reports.gc_tuning. Also
    returns the seconds spent subsetting fonts, the PDF size, the pages and any URL the fetcher
    refused."""
    done = subprocess.run(
        [sys.executable, SCRIPT, FLOOR_FLAG, str(html_path), *([TUNED_FLAG] if tuned else [])],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
    )
    if done.returncode:
        raise SystemExit(f"floor render failed:\n{done.stderr}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return Timer.of(figures), figures


def floor_html(run, folder: Path) -> Path:
    from reports.render import report_html

    html = report_html(run.snapshot, run.snapshot_sha256, run.language, for_pdf=True)
    path = folder / f"floor-{run.pk}.html"
    path.write_text(html, encoding="utf-8")
    return path


def child_floor(html_path: str, tuned: bool) -> None:
    """Run in a separate process: load fonts and stylesheet, then time one WeasyPrint render of
    the HTML; its figures as JSON on stdout."""
    from contextlib import nullcontext

    import django

    django.setup()
    from weasyprint import HTML

    from reports.fetcher import BASE_URL, SafeURLFetcher
    from reports.gc_tuning import gc_tuned

    html = Path(html_path).read_text(encoding="utf-8")
    warm_up()
    fetcher = SafeURLFetcher()
    with SubsetClock() as subset, Timer() as timer, gc_tuned() if tuned else nullcontext():
        document = HTML(string=html, base_url=BASE_URL, url_fetcher=fetcher).render()
        content = document.write_pdf()
        pages = len(document.pages)
        if tuned:  # the tuning's closing collection frees it, as in the render task
            del document
    print(
        json.dumps(
            {
                **timer.figures(),
                "subset": subset.seconds,
                "size": len(content),
                "pages": pages,
                "refused": fetcher.refused,
            }
        )
    )


def breakdown(evaluation) -> tuple[float, int, float, int]:
    """Snapshot building (seconds, queries) and templating (seconds, HTML characters)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from reports.render import report_html
    from reports.snapshot import build_snapshot, snapshot_sha256

    build_snapshot(evaluation, language=LANGUAGE, generated_at=timezone.now().isoformat())
    with Timer() as build:
        snapshot = build_snapshot(
            evaluation, language=LANGUAGE, generated_at=timezone.now().isoformat()
        )
    with CaptureQueriesContext(connection) as ctx:
        build_snapshot(evaluation, language=LANGUAGE, generated_at=timezone.now().isoformat())
    sha = snapshot_sha256(snapshot)
    report_html(snapshot, sha, LANGUAGE, for_pdf=True)
    with Timer() as template:
        html = report_html(snapshot, sha, LANGUAGE, for_pdf=True)
    return build.wall, len(ctx.captured_queries), template.wall, len(html)


def warm_up() -> None:
    """Load the fonts and the stylesheet once, so that no measured run pays for it."""
    from weasyprint import HTML

    from reports.fetcher import BASE_URL, SafeURLFetcher

    html = (
        f'<link rel="stylesheet" href="{BASE_URL}reports/report.css">'
        "<h1>预热 warm-up</h1><p><strong>粗体</strong> 中文 <em>English</em></p>"
    )
    HTML(string=html, base_url=BASE_URL, url_fetcher=SafeURLFetcher()).write_pdf()


def child_render(evaluation_id: int, user_id: int) -> None:
    """Run in a separate process: one end-to-end render, its figures as JSON on stdout."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from evaluations.models import Evaluation

    timer, run = end_to_end(
        Evaluation.objects.get(pk=evaluation_id),
        get_user_model().objects.get(pk=user_id),
        tuned=settings.REPORT_GC_TUNING,
    )
    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": timer.wall, "pages": run.pages, "rss_self_kib": rss_self}))


def render_child(evaluation_id: int, user_id: int, *, tuned: bool = True) -> dict:
    env = {**os.environ, "REPORT_GC_TUNING": "true" if tuned else "false"}
    done = subprocess.run(
        [sys.executable, SCRIPT, CHILD_FLAG, str(evaluation_id), str(user_id)],
        capture_output=True,
        text=True,
        env=env,
    )
    if done.returncode:
        raise SystemExit(f"child render failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def peak_rss_mb(evaluation_id: int, user_id: int) -> tuple[float, dict]:
    """Peak RSS of a fresh process doing one end-to-end render (as a worker would)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if before:  # RUSAGE_CHILDREN keeps the largest child: the render must be the only one
        print(f"warning: a child process already ran (max RSS {before / 1024:.0f} MB)")
    child = render_child(evaluation_id, user_id)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, child


def poll_figures(evaluation, user, run) -> dict:
    """The progress poll while a run renders (what the reports page fetches every second),
    against /healthz, both through Django's test client in this process: median milliseconds
    of POLL_REQUESTS each, interleaved, and the poll's queries."""
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from reports.models import ReportRun, RunStatus

    rendering = ReportRun.objects.create(
        evaluation=evaluation,
        requested_by=user,
        language=run.language,
        sections=run.sections,
        snapshot=run.snapshot,
        snapshot_sha256=run.snapshot_sha256,
        status=RunStatus.RENDERING,
        attempts=1,
        progress=40,
    )
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    url = reverse("reports:report_list", kwargs={"pk": evaluation.pk})
    poll = {"HX-Request": "true"}
    for _ in range(5):  # warm: templates, sessions, connections
        client.get(url, headers=poll)
        client.get("/healthz")
    queries = []
    with connection.execute_wrapper(
        lambda execute, sql, *a: queries.append(sql) or execute(sql, *a)
    ):
        response = client.get(url, headers=poll)
    if response.status_code != 200 or b"<progress" not in response.content:
        raise SystemExit(f"the poll answered {response.status_code}: {response.content[:300]}")
    poll_ms, healthz_ms = [], []
    for _ in range(POLL_REQUESTS):
        start = time.perf_counter()
        client.get(url, headers=poll)
        poll_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        client.get("/healthz")
        healthz_ms.append((time.perf_counter() - start) * 1000)
    rendering.delete()
    return {
        "queries": len(queries),
        "poll": statistics.median(poll_ms),
        "healthz": statistics.median(healthz_ms),
        "bytes": len(response.content),
    }


def naive_stack(evaluation, user) -> tuple[Timer, float, object]:
    """End to end with HarfBuzz subsetting off: WeasyPrint falls back to fontTools."""
    import weasyprint.pdf.fonts

    saved = weasyprint.pdf.fonts.harfbuzz_subset
    log = logging.getLogger("weasyprint")
    level = log.level
    weasyprint.pdf.fonts.harfbuzz_subset = None
    log.setLevel(logging.ERROR)  # one "Using fontTools instead" warning per font otherwise
    try:
        with SubsetClock() as subset:
            timer, run = end_to_end(evaluation, user)
    finally:
        weasyprint.pdf.fonts.harfbuzz_subset = saved
        log.setLevel(level)
    return timer, subset.seconds, run
