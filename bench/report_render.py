"""Time a large Chinese PDF report end to end against WeasyPrint's own render of the same HTML.

The evaluation generated: 8 shortlisted candidates (the 7 seeded solutions and one more), all
five answers each, prefilled responsibility matrices, cost inputs, and a POC plan of 60 cases
(the 27 library cases and 33 of its own) scored by 3 reviewers for every case and candidate
(1,440 submitted scores), with some consensus scores and evidence files.

Measured in one run, for the zh-hans report:

* end to end: reports.services.report_request + report_render (snapshot → ReportRun row →
  render task → PDF file saved), with tasks run in-process (no broker, no worker), so the render
  runs under the task's garbage-collector tuning (reports/gc_tuning.py). Earlier runs are
  deleted first, so every measured run renders (an unchanged snapshot would reuse a PDF). Each
  starts from a collected heap and includes freeing its own garbage (one collection at the
  end, which finds nothing left under the tuning), as a worker rendering report after report
  pays it sooner or later;
* the same end to end with REPORT_GC_TUNING off (the interpreter's defaults), in this process:
  the "before" of the tuning, under the same load;
* the floor: WeasyPrint alone rendering the same final HTML, in a fresh process each time
  (fonts and stylesheet loaded before the clock starts), so it carries nothing this process
  has accumulated. The floor runs under the interpreter's default collector, not the tuning:
  the target compares against that. A second floor, WeasyPrint alone under the tuning (its
  closing collection included), is printed for reference. All are medians of --repeat runs,
  interleaved, in wall-clock and CPU time (CPU time is steadier on a busy machine); the floor
  is also printed per page;
* the garbage collector: CPU seconds inside collections and collections per generation, for
  each of the above;
* a re-request: a second report_request for unchanged data, timed from the request until its
  run is done (it reuses the PDF of the run before it);
* peak RSS of a process that does one end-to-end render (a child process of this one), and the
  RSS a second child reports for itself rendering with the tuning off;
* the progress poll the reports page sends every second while a run renders (its queries and
  median time), against /healthz in the same process (Django's test client, no HTTP server);
* pages and PDF size. 1 MB = 1024 × 1024 bytes here, for RSS and PDF size alike;
* with --naive, one end to end with HarfBuzz subsetting switched off (WeasyPrint then subsets
  with fontTools), for reference only: the "10× faster than that" target is retired, since
  WeasyPrint's own layout dominates a report of this size whatever the subsetting costs.

It ends with PASS/MISS for each target and always exits 0: it is a measurement.

    .venv/bin/python bench/report_render.py [--quick] [--naive] [--repeat 3] [--keep]

Without DATABASE_URL it uses a throwaway SQLite file; set DATABASE_URL to measure PostgreSQL
(it adds "bench-*" users, a Solution and an evaluation there). Uploaded evidence and PDFs go to a
throwaway MEDIA_ROOT either way; nothing under var/ is touched.
"""

import argparse
import gc
import hashlib
import json
import logging
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

CHILD_FLAG = "--child-render"
FLOOR_FLAG = "--child-floor"
TUNED_FLAG = "--tuned"
LANGUAGE = "zh-hans"
MB = 1024 * 1024
TARGET_RATIO = 1.1  # end to end / WeasyPrint alone in a fresh process, default collector
TARGET_RSS_MB = 500
# CPU per page with the collector tuned, as a share of the same run's untuned end to end (the
# issue measured 0.13–0.15 s/page before on a quiet machine: a quarter less is ≤ 0.10–0.11).
TARGET_CPU_SHARE = 0.75
BEFORE_CPU_PER_PAGE = (0.13, 0.15)
TARGET_POLL_RATIO = 3.0
TARGET_POLL_QUERIES = 5
POLL_REQUESTS = 60
TARGET_PDF_MB = 1.5
TARGET_SECONDS_PER_PAGE = 0.29  # the floor per page before the print-layout changes
TARGET_REREQUEST_SECONDS = 1.0

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.builders import add_custom_cases, fill_candidates, score_every_cell  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
os.environ.setdefault("DJANGO_DEBUG", "false")  # as a worker runs: no query log kept in memory
os.environ.pop("REDIS_URL", None)  # no broker: report tasks run in-process (eager)
os.environ.pop("CELERY_BROKER_URL", None)
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "true"  # the embedded default would queue them
TMP_DIR = None
if (
    CHILD_FLAG not in sys.argv and FLOOR_FLAG not in sys.argv
):  # the child inherits the parent's database and media
    TMP_DIR = tempfile.mkdtemp(prefix="shortlist-bench-report-")
    if "DATABASE_URL" not in os.environ:
        # A throwaway database, so a run never touches the local one.
        os.environ["DATABASE_URL"] = f"sqlite:///{TMP_DIR}/bench.sqlite3"
    os.environ["DJANGO_MEDIA_ROOT"] = f"{TMP_DIR}/media"


# --- data ------------------------------------------------------------------------------------

CUSTOM_TOPICS = [
    ("国产加速卡混部下的分布式训练", "连续 {n} 小时无掉卡，吞吐下降不超过 5%。"),
    ("多租户配额高峰期借用与回收", "借出的配额在 {n} 分钟内被回收，被抢占作业可自动恢复。"),
    ("推理服务灰度发布与回滚", "10% 流量灰度，异常时 {n} 分钟内自动回滚且无请求丢失。"),
    ("GPU 故障节点自动隔离", "节点故障后 {n} 分钟内隔离，作业在其他节点重启。"),
    ("按部门的成本分摊报表", "报表按部门、项目、用户三级汇总，与账单误差小于 {n}%。"),
    ("审计日志的完整性与导出", "所有提交、抢占和配额变更均有记录，可导出 {n} 天内的日志。"),
    ("大模型多卡推理的冷启动", "模型加载到可服务不超过 {n} 秒，显存占用符合预估。"),
    ("长周期作业的检查点与续跑", "中断后从最近检查点续跑，损失不超过 {n} 分钟的训练进度。"),
    ("调度器升级期间的作业连续性", "滚动升级期间运行中作业不中断，排队作业 {n} 分钟内恢复调度。"),
    ("拓扑感知放置对通信带宽的影响", "同一作业的节点位于同一交换机下，带宽达到理论值的 {n}%。"),
    ("混合云突发扩容", "本地资源耗尽后 {n} 分钟内在云上拉起节点并完成作业。"),
]
STEPS = (
    "1. 准备测试租户与配额；\n2. 按脚本提交作业并记录时间戳；\n3. 注入故障或负载；\n"
    "4. 采集调度器日志与监控指标；\n5. 与验收标准逐项比对并留存截图。"
)
NOTES = ["符合预期。", "需要厂商补充说明。", "有一次重试。", "日志完整。", "指标略低于阈值。", ""]
ANSWER_TEXT = (
    "由{who}负责，已在测试环境验证，并核对了厂商文档与现场演示记录；"
    "发生故障时的分诊流程、联系人和响应时限已写入运维手册（第 {n} 节）。"
)


def make_users():
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from common import roles

    users = {}
    people = [
        ("owner", "陈", "思远", roles.TECH_LEAD),
        ("r1", "王", "晓梅", roles.REVIEWER),
        ("r2", "李", "建国", roles.REVIEWER),
        ("r3", "张", "立新", roles.REVIEWER),
        ("viewer", "赵", "采购", roles.PROCUREMENT),
    ]
    for key, last, first, role in people:
        user, _created = get_user_model().objects.get_or_create(
            username=f"bench-{key}", defaults={"first_name": first, "last_name": last}
        )
        user.groups.add(Group.objects.get_or_create(name=role)[0])
        users[key] = get_user_model().objects.get(pk=user.pk)  # no cached roles
    return users


def make_extra_solution():
    """An eighth solution, filled in both languages, with a claim for every capability."""
    from catalog.models import (
        Capability,
        CapabilityClaim,
        Scenario,
        Solution,
        SolutionType,
        Source,
        SupportLevel,
    )

    solution, created = Solution.objects.get_or_create(
        slug="bench-domestic-scheduler",
        defaults={
            "solution_type": SolutionType.objects.get(slug="enterprise-platform"),
            "name_en": "Domestic accelerator scheduler",
            "name_zh_hans": "国产算力调度平台",
            "maintainer_en": "A domestic vendor",
            "maintainer_zh_hans": "国内厂商",
            "licence": "Commercial",
            "latest_version": "3.2",
            "deployment_modes": ["kubernetes", "air-gapped"],
            "summary_en": "A commercial scheduler for domestic accelerators and mixed clusters.",
            "summary_zh_hans": "面向国产加速卡与异构集群的商业调度平台，提供配额、计费与审计。",
            "focus_points_en": "Domestic accelerators\nQuotas and accounting\nAir-gapped delivery",
            "focus_points_zh_hans": "国产加速卡适配\n配额与计费\n离线交付",
            "limits_en": "Small community\nVendor lock-in",
            "limits_zh_hans": "社区较小\n依赖单一厂商",
        },
    )
    if created:
        solution.scenarios.set(Scenario.objects.all())
        source, _ = Source.objects.get_or_create(
            key="BENCH-vendor", defaults={"title": "Vendor white paper", "as_of": "2026-06"}
        )
        levels = [SupportLevel.NATIVE, SupportLevel.ADDON, SupportLevel.PARTIAL, SupportLevel.NONE]
        for i, capability in enumerate(Capability.objects.order_by("pk")):
            claim = CapabilityClaim.objects.create(
                solution=solution,
                capability=capability,
                level=levels[i % len(levels)],
                note_en="Per the vendor's documentation." if i % 3 == 0 else "",
                note_zh_hans="以厂商文档为准。" if i % 3 == 0 else "",
                as_of_version="3.2" if i % 2 == 0 else "",
            )
            if i % 3 == 0:
                claim.sources.add(source)
    return solution


def generate(quick: bool):
    """The evaluation, through the services where they are cheap and bulk rows for scores."""
    from django.core.files.base import ContentFile

    from catalog.models import Scenario, Solution
    from evaluations import services as ev
    from evaluations.models import (
        AnswerValue,
        ContextQuestion,
        MemberRole,
        Status,
    )
    from poc import services as poc
    from poc.models import Consensus, Evidence, Score, TestCase, TestGroup

    rng = random.Random(20270301)
    users = make_users()
    owner = users["owner"]
    reviewers = [users["r1"], users["r2"], users["r3"]]
    extra = make_extra_solution()

    evaluation = ev.evaluation_create(
        user=owner,
        title="2027 年 GPU 算力调度平台选型",
        organisation="AI 平台部",
        scenarios=Scenario.objects.filter(slug__in=["training", "inference"]),
        private_deployment_required=True,
        compliance_required=True,
        localisation_required=True,
        plans_hybrid=True,
        unified_view_owner="平台架构组",
        notes="本次评估覆盖训练与推理两类负载，重点关注国产化与多租户治理。",
    )
    for user in reviewers:
        ev.member_add(user=owner, evaluation=evaluation, member=user, role=MemberRole.REVIEWER)
    ev.member_add(user=owner, evaluation=evaluation, member=users["viewer"], role=MemberRole.VIEWER)
    for i, q in enumerate(ContextQuestion.objects.filter(is_active=True)):
        value = [AnswerValue.YES, AnswerValue.NO, AnswerValue.UNKNOWN][i % 3]
        ev.context_answer_save(
            user=owner,
            evaluation=evaluation,
            question=q,
            value=value,
            detail="见附件说明" if value == AnswerValue.YES else "",
            expected_version=None,
        )

    # Candidates: suggestions first (with their rules), then the rest by hand.
    ev.candidates_accept_suggestions(user=owner, evaluation=evaluation)
    have = set(evaluation.candidates.values_list("solution_id", flat=True))
    solutions = list(Solution.objects.filter(is_active=True).exclude(pk=extra.pk).order_by("pk"))
    solutions.append(extra)
    for s in solutions:
        if s.pk not in have:
            ev.candidate_add(
                user=owner, evaluation=evaluation, solution=s, reason=f"纳入比较：{s.name_zh_hans}"
            )
    candidates = list(evaluation.candidates.order_by("pk"))

    # Five answers, a prefilled matrix and cost inputs per candidate.
    fill_candidates(owner, evaluation, candidates, ANSWER_TEXT)

    # The POC plan: library cases and cases of its own, spread over the four groups.
    evaluation = ev.evaluation_transition(user=owner, evaluation=evaluation, to_status=Status.POC)
    groups = list(TestGroup.objects.order_by("order", "pk"))
    if quick:
        for g in groups:
            for case in TestCase.objects.filter(group=g, is_active=True)[:2]:
                poc.plan_case_add_library(user=owner, evaluation=evaluation, case=case)
        n_custom = 4
    else:
        poc.plan_init(user=owner, evaluation=evaluation)
        n_custom = 33
    cases = add_custom_cases(owner, evaluation, groups, n_custom, CUSTOM_TOPICS, STEPS)
    # Scores: 3 reviewers × every case × every candidate, submitted; about 8% of the cells
    # have a reviewer far off, so the disagreement and consensus tables fill too.
    scored = score_every_cell(owner, cases, candidates, reviewers, rng, NOTES, batch_size=500)

    # Evidence: small files behind a few submitted scores.
    scores = list(Score.objects.filter(case__evaluation=evaluation).order_by("pk")[::97])[:16]
    for i, score in enumerate(scores):
        ext, content_type = [
            ("txt", "text/plain"),
            ("csv", "text/csv"),
            ("json", "application/json"),
        ][i % 3]
        content = f"bench evidence {i}: case {score.case_id}, candidate {score.candidate_id}\n"
        data = (content * 20).encode()
        evidence = Evidence(
            score=score,
            original_name=f"测试记录-{i + 1}.{ext}",
            content_type=content_type,
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            uploaded_by=score.reviewer,
        )
        evidence.file.save(f"bench-{i + 1}.{ext}", ContentFile(data), save=False)
        evidence.save()

    return (
        evaluation,
        owner,
        {
            "candidates": len(candidates),
            "cases": len(cases),
            "scores": scored,
            "consensus": Consensus.objects.filter(case__evaluation=evaluation).count(),
            "evidence": len(scores),
        },
    )


# --- measurements ----------------------------------------------------------------------------


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
        [sys.executable, __file__, FLOOR_FLAG, str(html_path), *([TUNED_FLAG] if tuned else [])],
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
        [sys.executable, __file__, CHILD_FLAG, str(evaluation_id), str(user_id)],
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="12 cases instead of 60: a smoke run")
    parser.add_argument("--naive", action="store_true", help="add one fontTools run, for reference")
    parser.add_argument("--skip-naive", action="store_true", help=argparse.SUPPRESS)  # the default
    parser.add_argument("--repeat", type=int, default=3, help="runs per median (default 3)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary files")
    parser.add_argument(CHILD_FLAG, nargs=2, type=int, help=argparse.SUPPRESS)
    parser.add_argument(FLOOR_FLAG, help=argparse.SUPPRESS)
    parser.add_argument(TUNED_FLAG, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    if args.child_render:
        child_render(*args.child_render)
        return
    if args.child_floor:
        child_floor(args.child_floor, args.tuned)
        return

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    from common.i18n import missing_translations
    from common.seeding import seed_all
    from reports.models import ReportRun

    if LANGUAGE in missing_translations():  # an English-headed "Chinese" report measures less
        sys.exit("No compiled zh-hans catalog: run `make translations` (make bench does) first.")
    for name in ("celery", "kombu", "axes"):  # one "task succeeded" line per render otherwise
        logging.getLogger(name).setLevel(logging.ERROR)
    # The poll's client serves static files from the app folders, not a collected folder.
    warnings.filterwarnings("ignore", message="No directory at")
    assert settings.CELERY_TASK_ALWAYS_EAGER, "report tasks must run in-process here"
    assert str(settings.MEDIA_ROOT).startswith(str(TMP_DIR)), settings.MEDIA_ROOT
    try:
        with Timer() as generating:
            call_command("migrate", verbosity=0)
            seed_all()
            evaluation, owner, counts = generate(args.quick)
        print(
            f"database: {connection.vendor}; data: {counts['candidates']} candidates, "
            f"{counts['cases']} cases, {counts['scores']} scores, {counts['consensus']} consensus, "
            f"{counts['evidence']} evidence ({generating.wall:.1f} s to generate)"
        )

        # Peak RSS first, before this process loads WeasyPrint (whose import runs a helper
        # process): RUSAGE_CHILDREN keeps the largest child, so the render must be the only one.
        rss_mb, child = peak_rss_mb(evaluation.pk, owner.pk)
        untuned_child = render_child(evaluation.pk, owner.pk, tuned=False)

        import weasyprint

        from reports.render import harfbuzz_subsetting_available

        load_before = os.getloadavg()
        print(
            f"WeasyPrint {weasyprint.__version__}; HarfBuzz subsetting: "
            f"{'yes' if harfbuzz_subsetting_available() else 'NO (fontTools)'}; "
            f"language {LANGUAGE}; repeat={args.repeat}; load average "
            f"{load_before[0]:.2f} on {os.cpu_count()} CPUs"
        )

        build, queries, template, html_chars = breakdown(evaluation)  # also warms templates
        warm_up()
        tuned_runs, untuned_runs, floor_runs, tuned_floor_runs = [], [], [], []
        subset_runs, refused = [], []
        for _ in range(args.repeat):  # interleaved, so drift in machine load hits all alike
            timer, run = end_to_end(evaluation, owner)
            tuned_runs.append(timer)
            html_path = floor_html(run, Path(TMP_DIR))
            timer, floor_figures = floor(html_path)
            floor_runs.append(timer)
            subset_runs.append(floor_figures["subset"])
            refused += floor_figures["refused"]
            floor_size, floor_pages = floor_figures["size"], floor_figures["pages"]
            untuned_runs.append(end_to_end(evaluation, owner, tuned=False)[0])
            tuned_floor_runs.append(floor(html_path, tuned=True)[0])
        # The same data asked for again: served from the run before, not rendered.
        last = ReportRun.objects.filter(evaluation=evaluation).latest("pk")
        rerequest, again = end_to_end(evaluation, owner, fresh=False)
        poll = poll_figures(evaluation, owner, again)
        naive = naive_stack(evaluation, owner) if args.naive else None
        load_after = os.getloadavg()
    finally:
        if TMP_DIR and not args.keep:
            shutil.rmtree(TMP_DIR, ignore_errors=True)
        elif TMP_DIR:
            print(f"kept {TMP_DIR}")

    def median(timers, attribute: str) -> float:
        return statistics.median(getattr(t, attribute) for t in timers)

    e2e, e2e_cpu = median(tuned_runs, "wall"), median(tuned_runs, "cpu")
    base, base_cpu = median(floor_runs, "wall"), median(floor_runs, "cpu")
    untuned, untuned_cpu = median(untuned_runs, "wall"), median(untuned_runs, "cpu")
    tuned_base, tuned_base_cpu = median(tuned_floor_runs, "wall"), median(tuned_floor_runs, "cpu")
    subset = statistics.median(subset_runs)
    pdf_mb = run.pdf_size / MB
    pages = run.pages
    per_page, untuned_per_page = e2e_cpu / pages, untuned_cpu / pages

    def row(label: str, value: str) -> None:
        print(f"{label:<50}{value:>16}")

    def runs(values) -> str:
        return ", ".join(f"{v:.2f}" for v in values)

    def collector(timers) -> None:
        row(
            "  of which in the garbage collector (median CPU s)",
            f"{median(timers, 'gc_seconds'):.2f}",
        )
        counts = [statistics.median(t.collections[g] for t in timers) for g in range(3)]
        row("  collections, generations 0/1/2 (median)", "/".join(f"{c:.0f}" for c in counts))
        if hasattr(timers[0], "freeing"):
            row(
                "  of which freeing its garbage after (median CPU s)",
                f"{median(timers, 'freeing'):.2f}",
            )
            cpu = statistics.median(t.cpu - t.freeing for t in timers)
            row("  CPU without that (median s, per page)", f"{cpu:.2f}, {cpu / pages:.3f}")

    print()
    row("measure", "value")
    row("end to end: request + render, GC tuned (median s)", f"{e2e:.2f}")
    row("  runs (s)", runs(t.wall for t in tuned_runs))
    row("  CPU (median s)", f"{e2e_cpu:.2f}")
    collector(tuned_runs)
    row("  CPU per page (s/page)", f"{per_page:.3f}")
    row("end to end, REPORT_GC_TUNING off (median s)", f"{untuned:.2f}")
    row("  runs (s)", runs(t.wall for t in untuned_runs))
    row("  CPU (median s)", f"{untuned_cpu:.2f}")
    collector(untuned_runs)
    row("  CPU per page (s/page)", f"{untuned_per_page:.3f}")
    row("floor: WeasyPrint alone, fresh process, default GC (median s)", f"{base:.2f}")
    row("  runs (s)", runs(t.wall for t in floor_runs))
    row("  CPU (median s)", f"{base_cpu:.2f}")
    collector(floor_runs)
    row("  of which font subsetting, HarfBuzz (median s)", f"{subset:.2f}")
    row("  floor per page (s/page)", f"{base / floor_pages:.3f}")
    row("floor under the GC tuning, fresh process (median s)", f"{tuned_base:.2f}")
    row("  runs (s)", runs(t.wall for t in tuned_floor_runs))
    row("  CPU (median s)", f"{tuned_base_cpu:.2f}")
    collector(tuned_floor_runs)
    row("ratio end to end / floor (default GC)", f"{e2e / base:.2f}")
    row("  ratio on CPU time", f"{e2e_cpu / base_cpu:.2f}")
    row("  ratio to the floor under the tuning", f"{e2e / tuned_base:.2f}")
    row("  ratio on CPU time", f"{e2e_cpu / tuned_base_cpu:.2f}")
    row("  snapshot build (s)", f"{build:.2f}")
    row("  snapshot queries", f"{queries}")
    row("  template to HTML (s)", f"{template:.2f}")
    row("  HTML size (characters)", f"{html_chars:,}")
    if naive is not None:
        naive_timer, naive_subset, naive_run = naive
        row("naive stack: end to end with fontTools (s)", f"{naive_timer.wall:.2f}")
        row("  CPU (s)", f"{naive_timer.cpu:.2f}")
        row("  of which font subsetting, fontTools (s)", f"{naive_subset:.2f}")
        row("  ratio to end to end (x, for reference)", f"{naive_timer.wall / e2e:.1f}")
        row("  font subsetting alone (x)", f"{naive_subset / subset:.1f}")
        row("  naive PDF size (bytes)", f"{naive_run.pdf_size:,}")
    row("re-request, unchanged snapshot: request → done (s)", f"{rerequest.wall:.3f}")
    row(
        "  served from an earlier run's PDF", "yes" if again.pdf_sha256 == last.pdf_sha256 else "NO"
    )
    row("peak RSS of the rendering process (MB)", f"{rss_mb:.0f}")
    row("  child: end to end (s)", f"{child['seconds']:.2f}")
    row("  child: its own RUSAGE_SELF (MB)", f"{child['rss_self_kib'] / 1024:.0f}")
    row(
        "  child with the tuning off: RUSAGE_SELF (MB)",
        f"{untuned_child['rss_self_kib'] / 1024:.0f}",
    )
    row("  child with the tuning off: end to end (s)", f"{untuned_child['seconds']:.2f}")
    row("progress poll while a run renders (median ms)", f"{poll['poll']:.1f}")
    row("  queries", f"{poll['queries']}")
    row("  HTML (bytes)", f"{poll['bytes']:,}")
    row("  /healthz in the same process (median ms)", f"{poll['healthz']:.1f}")
    row("  ratio poll / healthz", f"{poll['poll'] / poll['healthz']:.2f}")
    row("pages", f"{pages}")
    row("PDF size (bytes)", f"{run.pdf_size:,}")
    row("PDF size (MB)", f"{pdf_mb:.2f}")
    row("  floor PDF size (bytes)", f"{floor_size:,}")
    row("URLs refused by the fetcher", f"{len(refused)}")
    row("load average (1 min) before / after", f"{load_before[0]:.2f} / {load_after[0]:.2f}")

    def verdict(ok: bool) -> str:
        return "PASS" if ok else "MISS"

    print()
    print("targets")
    print(
        f"  {verdict(e2e <= TARGET_RATIO * base)}  end to end ≤ {TARGET_RATIO} × WeasyPrint alone "
        f"in a fresh process (default GC): {e2e:.2f} s vs {TARGET_RATIO * base:.2f} s "
        f"({e2e / base:.2f} ×; on CPU time {e2e_cpu / base_cpu:.2f} ×)"
    )
    low, high = BEFORE_CPU_PER_PAGE
    print(
        f"  {verdict(per_page <= TARGET_CPU_SHARE * untuned_per_page)}  CPU per page ≤ "
        f"{TARGET_CPU_SHARE} × without the tuning: {per_page:.3f} vs {untuned_per_page:.3f} "
        f"s/page ({1 - per_page / untuned_per_page:.0%} less; {low}–{high} s/page before on a "
        f"quiet machine: {1 - per_page / low:.0%}–{1 - per_page / high:.0%} less)"
    )
    floor_per_page = base / floor_pages
    print(
        f"  {verdict(floor_per_page <= TARGET_SECONDS_PER_PAGE)}  floor ≤ "
        f"{TARGET_SECONDS_PER_PAGE} s/page: {floor_per_page:.3f} s/page ({floor_pages} pages)"
    )
    print(
        f"  {verdict(rerequest.wall < TARGET_REREQUEST_SECONDS)}  re-request of an unchanged "
        f"snapshot < {TARGET_REREQUEST_SECONDS:.0f} s: {rerequest.wall:.3f} s"
    )
    print(f"  {verdict(rss_mb <= TARGET_RSS_MB)}  peak RSS ≤ {TARGET_RSS_MB} MB: {rss_mb:.0f} MB")
    print(f"  {verdict(pdf_mb <= TARGET_PDF_MB)}  PDF ≤ {TARGET_PDF_MB} MB: {pdf_mb:.2f} MB")
    ratio = poll["poll"] / poll["healthz"]
    print(
        f"  {verdict(poll['queries'] <= TARGET_POLL_QUERIES and ratio <= TARGET_POLL_RATIO)}  "
        f"progress poll ≤ {TARGET_POLL_QUERIES} queries and ≤ {TARGET_POLL_RATIO:.0f} × /healthz: "
        f"{poll['queries']} queries, {poll['poll']:.1f} ms vs {poll['healthz']:.1f} ms "
        f"({ratio:.2f} ×)"
    )


if __name__ == "__main__":
    main()
