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
1 MB = 1024 × 1024 bytes, 1 KB = 1024 bytes. gunicorn and the requests are in
bench/scale_server.py, the measuring in bench/scale_measure.py, the targets and the closing
report in bench/scale_report.py.
"""

import argparse
import os
import secrets
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.scale_measure import Bench, load  # noqa: E402
from bench.scale_report import report  # noqa: E402
from bench.scale_server import WORKERS, Server  # noqa: E402

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


if __name__ == "__main__":
    main()
