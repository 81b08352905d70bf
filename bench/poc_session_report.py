"""The targets of bench/poc_session.py, the ratio and verdict arithmetic, and what it prints:
each tab rendered against the sequential /livez floor, and each session run against the
concurrent floor."""

from __future__ import annotations

import math

from bench.poc_session_runs import Clients, SessionRun

TAB_LIMIT = 10.0  # a tab rendered (page cache off): p50 ≤ 10× the sequential floor's p50
SHARE_LIMIT = 1 / 8  # readers' requests/s ≥ 1/8 of the floor's (with one save a second)
READERS_P95_LIMIT = 8.0  # readers' p95 ≤ 8× the floor's p95 at the same concurrency
SAVE_P95_LIMIT = 10.0  # the writer's save p95 ≤ 10× the floor's p95
ERRORS_LIMIT = 0


def ratio(value: float | None, base: float | None) -> float | None:
    """value / base; None when either is missing, infinite over a zero base."""
    if value is None or base is None:
        return None
    if base == 0:
        return math.inf
    return value / base


def verdict(value: float | None, limit: float, *, at_least: bool = False) -> str:
    """PASS when value is within the limit (≤, or ≥ with at_least; the limit itself passes),
    MISS otherwise and when there is no figure."""
    if value is None or math.isnan(value):
        return "MISS"
    return "PASS" if (value >= limit if at_least else value <= limit) else "MISS"


def as_share(value: float | None) -> str:
    """A share of the floor as 1/n (0.25 → 1/4.0)."""
    if not value:
        return "—"
    return f"1/{1 / value:.1f}"


def ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.0f}"


def times(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}×"


# --- tabs ------------------------------------------------------------------------------------


def print_tabs(bench, tabs: list[tuple[str, str]]) -> list[tuple[str, float, str]]:
    """Each tab's p50/p95 and its ratio to the sequential floor's p50, with the verdict;
    returns (tab, ratio, verdict) rows."""
    floor = bench.floor()
    print(
        f"\nTabs rendered (page cache off), owner, sequential; floor /livez p50 "
        f"{floor * 1000:.1f} ms (median of {len(bench.floors)} floors)"
    )
    print(f"{'tab':<12}{'p50 ms':>9}{'p95 ms':>9}{'queries':>9}{'KB':>7}{'x floor':>9}  ≤ 10×")
    rows = []
    for name, _path in tabs:
        r = bench.results[f"tab:{name}"]
        x = ratio(r.p50, floor)
        rows.append((name, x, verdict(x, TAB_LIMIT)))
        failures = f"  {len(r.failures)} errors" if r.failures else ""
        print(
            f"{name:<12}{r.p50 * 1000:>9.1f}{r.p95 * 1000:>9.1f}{r.queries or 0:>9}"
            f"{r.size / 1024:>7.0f}{x:>8.1f}×  {rows[-1][2]}{failures}"
        )
    return rows


# --- session ---------------------------------------------------------------------------------


def print_floor(floor: Clients) -> None:
    f = floor.load
    errors = f", {len(f.failures)} errors" if f.failures else ""
    print(f"  {f.label}: {f.throughput:.0f} req/s, p50 {ms(f.p50)} ms, p95 {ms(f.p95)} ms{errors}")


def session_verdicts(run: SessionRun, floor: Clients) -> list[tuple[str, str, str]]:
    """(what, figure, verdict) for each target of a session run."""
    r, f = run.readers.load, floor.load
    share = ratio(r.throughput, f.throughput)
    readers_x = ratio(r.p95, f.p95)
    rows = [
        (
            "readers' requests/s share of the floor's (≥ 1/8"
            + (", the target at 1 save/s)" if run.rate == 1 else ")"),
            as_share(share),
            verdict(share, SHARE_LIMIT, at_least=True),
        ),
        (
            "readers' p95 / floor p95 (≤ 8×)",
            times(readers_x),
            verdict(readers_x, READERS_P95_LIMIT),
        ),
    ]
    if run.rate:
        save_x = ratio(run.save_p95, f.p95)
        rows.append(
            ("save p95 / floor p95 (≤ 10×)", times(save_x), verdict(save_x, SAVE_P95_LIMIT))
        )
    rows.append(("errors (0)", str(run.errors), verdict(run.errors, ERRORS_LIMIT)))
    return rows


def print_session(run: SessionRun, floor: Clients, names: dict[str, str]) -> None:
    """The run's figures and verdicts; `names`: each tab's name by its path."""
    r, f = run.readers.load, floor.load
    print(f"\n  {run.label} ({r.seconds:.0f} s, workers' peak RSS {r.rss_mb:.0f} MB)")
    print(
        f"    readers: {len(r.times)} requests, {r.throughput:.1f} req/s "
        f"({as_share(ratio(r.throughput, f.throughput))} of the floor's {f.throughput:.0f}), "
        f"p50 {ms(r.p50)} ms ({times(ratio(r.p50, f.p50))} floor p50), p95 {ms(r.p95)} ms "
        f"({times(ratio(r.p95, f.p95))} floor p95), {len(r.failures)} errors"
        + (f" ({', '.join(sorted(set(r.failures)))})" if r.failures else "")
    )
    slowest = ", ".join(f"{names.get(path, path)} {ms(p95)}" for path, p95 in run.readers.slowest())
    print(f"    slowest tabs under this load (p95 ms): {slowest}")
    rendered = len(r.times) - r.kept
    per_save = f", {rendered / len(run.saves):.1f} per save" if run.rate and run.saves else ""
    print(
        f"    kept pages: {r.kept} of {len(r.times)} reads "
        f"({100 * (ratio(r.kept, len(r.times)) or 0):.0f} %); rendered {rendered}{per_save}"
    )
    if run.rate:
        kinds = {k: sum(1 for s in run.saves if s.kind == k) for k in ("score", "answer")}
        statuses = sorted({str(s.status) for s in run.saves if s.outcome == "error"})
        print(
            f"    writer: {len(run.saves)} saves ({kinds['score']} scores, {kinds['answer']} "
            f"answers; {len(run.saves) / r.seconds:.2f}/s), p50 {ms(run.save_p50)} ms, p95 "
            f"{ms(run.save_p95)} ms ({times(ratio(run.save_p95, f.p95))} floor p95), "
            f"{len(run.saves_of('conflict'))} conflicts (409/428), "
            f"{len(run.saves_of('error'))} errors"
            + (f" ({', '.join(statuses)})" if statuses else "")
        )
        stored = "as saved" if run.stored_matches() else "DIFFERENT from what was saved"
        print(
            f"    stored: the writer's scores moved {run.stored[0]} versions, the answers "
            f"{run.stored[1]}: {stored}"
        )
    for what, figure, result in session_verdicts(run, floor):
        print(f"    {result}  {what}: {figure}")


def print_summary(database: str, tab_rows, runs: list[SessionRun], floor: Clients) -> None:
    """One block to copy: every verdict of this database's run."""
    print(f"\nSummary ({database})")
    misses = [f"{name} {x:.1f}×" for name, x, result in tab_rows if result == "MISS"]
    worst = max(tab_rows, key=lambda row: row[1])
    print(
        f"  tabs rendered ≤ 10× floor: {len(tab_rows) - len(misses)}/{len(tab_rows)} PASS; "
        f"slowest {worst[0]} {worst[1]:.1f}×" + (f"; MISS: {', '.join(misses)}" if misses else "")
    )
    for run in runs:
        cells = "; ".join(
            f"{figure} {result}" for _what, figure, result in session_verdicts(run, floor)
        )
        print(f"  {run.label}: {cells}")
