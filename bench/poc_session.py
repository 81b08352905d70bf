"""A POC session played against gunicorn as production runs it: members reading the tabs of the
large evaluation while one of them saves scores and answers, on SQLite (the embedded default)
and on PostgreSQL, with ratios to a /livez floor measured in the same run.

For each database:

* the database: a throwaway SQLite file (with the options the embedded default runs with: WAL,
  IMMEDIATE transactions for writes, deferred ones for reads, a 20 s busy timeout), or
  PostgreSQL: DATABASE_URL when it names one, else a database `shortlist_session_bench` created
  on postgres://postgres@127.0.0.1:5432 and dropped at the end. Migrated and seeded (`manage.py
  seed`), then the large evaluation of bench/report_data.py (8 candidates: the seeded
  suggestions topped up from the catalog and one more solution, 60 cases, 3 reviewers; --quick:
  12 cases), or with --shape scale the scale bench's (bench/scale_large.py: 7 solutions and a
  stack, 60 cases, 3 reviewers); a writer who joins it as an editor (editors score and answer
  the five questions; reviewers only score) and declares no conflict; and signed-in sessions:
  one per reader, the readers being the owner, the three reviewers and the viewer in turn,
  and one for the writer;
* tabs rendered: gunicorn (2 workers, config.settings.production, as bench/scale.py starts it)
  with PAGE_CACHE_SECONDS=0, so every request renders; p50/p95 of sequential requests to each
  tab of the evaluation for its owner (the tabs its navigation links to, and the POC's plan and
  results), against the /livez floor measured sequentially before and after; PASS when a tab's
  p50 is ≤ 10× the floor's;
* the session: gunicorn started again with the page cache as production has it (on). The floor
  first: N clients on /livez for --seconds. Then N readers walking the tabs for --seconds (after
  an untimed warm-up walk), without a writer, and with one writer saving at each rate of
  --rates: alternately a draft score in a scorecard cell and an answer to one of the five
  questions, through the pages' forms as htmx posts them (bench/poc_session_writer.py). Each
  run prints the readers' requests/s as a share of the floor's (target ≥ 1/8 at 1 save/s),
  their p95 against the floor's (≤ 8×), the saves' p50/p95 against the floor's p95 (≤ 10×),
  saves, conflicts (409/428, apart from errors) and errors (0), and checks that every save the
  pages confirmed moved the stored versions.

It exits 0 whatever the verdicts: it is a measurement (a setup that cannot run stops with a
message).

    .venv/bin/python bench/poc_session.py [--database sqlite|postgres|both] [--readers 8]
        [--rates 1,3] [--seconds 20] [--quick] [--keep] [--shape report|scale] [--requests 20]

`both` runs each database in a process of its own (Django reads its database once). Without
REDIS_URL the workers use a throwaway filesystem broker folder (what /healthz checks). The
database, data and tabs are in bench/poc_session_data.py, the runs in bench/poc_session_runs.py,
the writer in bench/poc_session_writer.py (the forms read by bench/poc_session_html.py), the
targets and what is printed in bench/poc_session_report.py.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.poc_session_data import (  # noqa: E402
    WRITER,
    build,
    choose_database,
    database_summary,
    recreate_postgres,
    tabs_of,
)
from bench.poc_session_report import print_floor, print_session, print_summary, print_tabs  # noqa: E402
from bench.poc_session_runs import floor, session, warm_up  # noqa: E402
from bench.poc_session_writer import HttpTransport  # noqa: E402
from bench.scale import configure_environment  # noqa: E402
from bench.scale_measure import Bench  # noqa: E402
from bench.scale_server import WORKERS, Server  # noqa: E402

DATABASES = ("sqlite", "postgres")


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=(*DATABASES, "both"), default="both")
    parser.add_argument("--readers", type=int, default=8, help="concurrent readers (8)")
    parser.add_argument("--rates", default="1,3", help="the writer's saves a second, one run each")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds per run (20)")
    parser.add_argument("--requests", type=int, default=20, help="sequential requests per tab")
    parser.add_argument(
        "--shape",
        choices=("report", "scale"),
        default="report",
        help="the evaluation: bench/report_data.py's (default) or bench/scale_large.py's",
    )
    parser.add_argument("--quick", action="store_true", help="the small evaluation (12 cases)")
    parser.add_argument("--keep", action="store_true", help="keep the files and the database")
    args = parser.parse_args()
    args.rate_list = [float(r) for r in args.rates.split(",") if r.strip()]
    if args.readers < 1 or any(r <= 0 for r in args.rate_list):
        parser.error("--readers and every rate must be above 0")
    return args


def main() -> None:
    args = arguments()
    sys.stdout.reconfigure(line_buffering=True)
    if args.database != "both":
        measure(args)
        return
    forwarded = [
        *("--readers", str(args.readers), "--rates", args.rates),
        *("--seconds", str(args.seconds), "--requests", str(args.requests)),
        *("--shape", args.shape),
        *(["--quick"] if args.quick else []),
        *(["--keep"] if args.keep else []),
    ]
    for database in DATABASES:  # Django reads its database once: one process each
        subprocess.run([sys.executable, __file__, "--database", database, *forwarded])


def measure(args) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="shortlist-bench-session-"))
    created = choose_database(args.database, tmp)
    configure_environment(tmp)
    cache_setting = os.environ.get("PAGE_CACHE_SECONDS")
    import django

    django.setup()
    from django.conf import settings
    from django.db import connections

    try:
        print(
            f"\n=== {args.database}: {database_summary()}\nload average at the start "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs"
        )
        start = time.perf_counter()
        data = build(args.shape, args.quick, args.readers)
        shape = data.shape
        print(
            f"shape: {args.shape}{' --quick' if args.quick else ''}, evaluation "
            f"#{data.evaluation_pk}, "
            f"{shape['candidates']} candidates × {shape['cases']} cases × 3 reviewers "
            f"({shape['scores']} scores), built in {time.perf_counter() - start:.0f} s; "
            f"{args.readers} readers ({', '.join(sorted({u for u, _s in data.readers}))}), "
            f"writer {WRITER} (editor), {WORKERS} gunicorn workers, "
            f"config.settings.production"
        )
        os.environ["PAGE_CACHE_SECONDS"] = "0"
        server = Server(tmp / "gunicorn-rendered.log")
        try:
            server.wait_ready()
            tabs = discover_tabs(server.port, data)
            print(f"page cache: off (PAGE_CACHE_SECONDS=0); {len(tabs)} tabs")
            bench = Bench(
                server,
                {"owner": data.owner_session, "anon": None},
                SimpleNamespace(requests=args.requests, budget=20.0),
            )
            bench.floors.append(bench.measure("floor-1", "floor /livez", "anon", "/livez", n=50))
            for name, path in tabs:
                bench.measure(f"tab:{name}", f"tab {name}", "owner", path)
            bench.floors.append(bench.measure("floor-2", "floor /livez", "anon", "/livez", n=50))
        finally:
            server.stop()
        tab_rows = print_tabs(bench, tabs)

        restore(cache_setting)
        seconds = settings.PAGE_CACHE_SECONDS  # what the workers read too: the same environment
        where = (
            "Redis (PAGE_CACHE_URL)" if os.environ.get("PAGE_CACHE_URL") else "each worker's memory"
        )
        print(
            f"\nSession (page cache on: {seconds} s, kept in {where}; "
            f"{args.readers} concurrent clients, {args.seconds:.0f} s a run); load average "
            f"{os.getloadavg()[0]:.2f}"
        )
        server = Server(tmp / "gunicorn-session.log")
        try:
            server.wait_ready()
            the_floor = floor(server, args.readers, args.seconds)
            print_floor(the_floor)
            took = warm_up(server, tabs, data)
            print(f"  warm-up: every reader walked every tab twice in {took:.0f} s")
            runs = []
            for rate in [None, *args.rate_list]:
                runs.append(session(server, tabs, data, args.seconds, rate))
                print_session(runs[-1], the_floor, {path: name for name, path in tabs})
        finally:
            server.stop()
        print(f"\nload average at the end {os.getloadavg()[0]:.2f}")
        print_summary(args.database, tab_rows, runs, the_floor)
    finally:
        connections.close_all()
        if created and not args.keep:
            recreate_postgres(created, drop_only=True)
        if args.keep:
            print(f"kept: {tmp}" + (f" and the database {created}" if created else ""))
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def discover_tabs(port: int, data) -> list[tuple[str, str]]:
    """The tabs as the owner's pages link them (the overview's navigation, the POC's)."""
    pages = []
    for path in (f"/evaluations/{data.evaluation_pk}/", f"/evaluations/{data.evaluation_pk}/poc/"):
        reply = HttpTransport(port, data.owner_session).send("GET", path)
        if reply.status != 200:
            raise SystemExit(f"{path} answered {reply.status}: cannot find the tabs")
        pages.append(reply.text)
    return tabs_of(*pages)


def restore(value: str | None) -> None:
    if value is None:
        os.environ.pop("PAGE_CACHE_SECONDS", None)
    else:
        os.environ["PAGE_CACHE_SECONDS"] = value


if __name__ == "__main__":
    main()
