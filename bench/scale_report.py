"""The verdicts of bench/scale.py: the issue's targets as multiples of the /healthz floor, and
the report it ends with (the results table, the load runs, PASS/MISS per target)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from bench.scale_measure import CLIENTS, KB, Bench, Load, Result

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
