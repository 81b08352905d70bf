"""Realistic scale for the list and tab benches: many evaluations in the database DATABASE_URL
names, with what real organisations accumulate in them.

By default 1,000 evaluations holding at least 200,000 submitted POC scores and about 400,000
responsibility-matrix cells, their cost settings and inputs, five-question and context answers,
memberships, some consensus scores, decisions and status changes. One of them is the large
evaluation (8 candidates × 60 cases × 3 reviewers, as bench/report_render.py builds): it goes
through the services, so it also has its change history and a report run; the others are
written with bulk_create (so they carry no history records) in chunks, one transaction each.

Users (all "scale-*", unusable passwords: the bench signs them in with sessions):

* scale-viewer  procurement, a viewer of every evaluation;
* scale-ten     procurement, a viewer of exactly ten;
* scale-owner   tech lead, the owner of thirty (the large evaluation among them);
* scale-lead-NN tech leads owning the rest; scale-reviewer-NN reviewers scoring them.

    DATABASE_URL=postgres://... .venv/bin/python bench/scale_data.py [--evaluations 1000]
        [--scores 200000] [--reset | --drop]

It refuses to add to an earlier run's data: --reset drops the bench's rows (every evaluation a
scale-* user created, their history records and the scale-* users) and generates again; --drop
only drops them. The seeded content (`manage.py seed`) is loaded first; nothing else is
touched. Import it to call `generate()`, `drop()` or `large_evaluation()` from another script.
The users and shapes are in bench/scale_shapes.py, the bulk writes in bench/scale_chunks.py,
the large evaluation in bench/scale_large.py.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.scale_chunks import ChunkWriter  # noqa: E402
from bench.scale_large import large_evaluation, make_large, poll_run  # noqa: E402
from bench.scale_shapes import (  # noqa: E402
    OWNER,
    PREFIX,
    TEN,
    VIEWER,
    LargeShape,
    make_users,
    plan_shapes,
    reference_data,
    scale_users,
)

# What other scripts and the tests use (bench/scale.py, tests/bench/test_scale_data.py).
__all__ = [
    "OWNER",
    "PREFIX",
    "TEN",
    "VIEWER",
    "AlreadyGenerated",
    "LargeShape",
    "drop",
    "generate",
    "large_evaluation",
    "poll_run",
    "scale_users",
]

CHUNK = 50  # evaluations per transaction
SEED = 20270315
LARGE = LargeShape()  # generate()'s large evaluation unless told otherwise

# --- generate and drop -------------------------------------------------------------------------


class AlreadyGenerated(Exception):
    pass


def generate(
    evaluations: int = 1000,
    scores: int = 200_000,
    *,
    large: LargeShape | None = LARGE,
    seed: int = SEED,
    load_seed: bool = True,
    log=print,
) -> dict:
    """Generate the bench's evaluations (the large one among them unless `large` is None) and
    return what was written. Refuses (AlreadyGenerated) when scale-* users exist. `load_seed`:
    load the seeded content first (`manage.py seed`; skip it where it is loaded already)."""
    from django.utils import timezone

    from common.seeding import seed_all

    if scale_users().exists():
        raise AlreadyGenerated(
            "The scale data is already there (scale-* users exist): use it, or drop it first "
            "(bench/scale_data.py --reset, or --drop)."
        )
    started = time.perf_counter()
    rng = random.Random(seed)
    if load_seed:
        seed_all()
    users = make_users()
    reference = reference_data()
    bulk = evaluations - (1 if large else 0)
    shapes = plan_shapes(
        bulk, max(0, scores - (_large_scores(large) if large else 0)), users, reference, rng
    )
    totals: dict[str, int] = {}
    now = timezone.now()
    for start in range(0, len(shapes), CHUNK):
        counts = ChunkWriter(shapes[start : start + CHUNK], users, reference, rng, now).write()
        for key, n in counts.items():
            totals[key] = totals.get(key, 0) + n
        log(
            f"  {totals['evaluations']:>5} evaluations, {totals['scores']:,} scores, "
            f"{totals['cells']:,} cells ({time.perf_counter() - started:.0f} s)"
        )
    if large:
        evaluation, counts = make_large(users, large, rng)
        totals["evaluations"] = totals.get("evaluations", 0) + 1
        totals["scores"] = totals.get("scores", 0) + counts["scores"]
        for key in ("candidates", "rows", "cells"):
            totals[key] = totals.get(key, 0) + counts[key]
        totals["large_evaluation"] = evaluation.pk
        log(f"  large evaluation {evaluation.pk}: {counts} ({time.perf_counter() - started:.0f} s)")
    analyze()
    totals["seconds"] = round(time.perf_counter() - started, 1)
    return totals


def analyze() -> None:
    """Refresh the planner's statistics after the bulk load, as autovacuum would soon after:
    measured straight after a load of this size, PostgreSQL plans the reminders' aggregates as
    scans of every score (about 90 ms instead of 3 ms)."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def _large_scores(shape: LargeShape) -> int:
    return shape.candidates * shape.cases * shape.reviewers


@contextmanager
def delete_signals_muted():
    """Delete without the per-row signals: django-simple-history would otherwise load and
    record every deleted score and cell, and Django could not delete in bulk."""
    from django.db.models import signals

    muted = [signals.pre_delete, signals.post_delete, signals.m2m_changed]
    saved = [(s, s.receivers) for s in muted]
    try:
        for s in muted:
            s.receivers = []
            s.sender_receivers_cache.clear()
        yield
    finally:
        for s, receivers in saved:
            s.receivers = receivers
            s.sender_receivers_cache.clear()


def drop(log=print) -> int:
    """Drop every evaluation a scale-* user created, the history records those users wrote,
    and the users. Returns how many evaluations were dropped."""
    from django.db import transaction
    from simple_history.models import registered_models

    from evaluations.models import Evaluation

    users = scale_users()
    ids = list(Evaluation.objects.filter(created_by__in=users).values_list("pk", flat=True))
    with transaction.atomic(), delete_signals_muted():
        for start in range(0, len(ids), CHUNK):
            Evaluation.objects.filter(pk__in=ids[start : start + CHUNK]).delete()
        user_ids = list(users.values_list("pk", flat=True))
        for model in registered_models.values():
            history = getattr(model, "history", None)  # m2m tables are registered too
            if history is not None:
                history.filter(history_user_id__in=user_ids).delete()
        users.delete()
    log(f"dropped {len(ids)} evaluations and the scale-* users")
    return len(ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--evaluations", type=int, default=1000)
    parser.add_argument("--scores", type=int, default=200_000, help="submitted scores, at least")
    parser.add_argument("--reset", action="store_true", help="drop the bench's rows, then generate")
    parser.add_argument("--drop", action="store_true", help="drop the bench's rows only")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    os.environ.setdefault("DJANGO_DEBUG", "false")  # no query log kept in memory
    if "DATABASE_URL" not in os.environ:
        sys.exit("Set DATABASE_URL to the database to fill (e.g. postgres://.../shortlist_scale).")

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    if args.reset or args.drop:
        drop()
    if args.drop:
        return
    print(f"generating into {connection.vendor} database {connection.settings_dict['NAME']}")
    try:
        totals = generate(args.evaluations, args.scores)
    except AlreadyGenerated as exc:
        sys.exit(str(exc))
    print(
        f"{totals['evaluations']:,} evaluations, {totals['candidates']:,} candidates, "
        f"{totals['scores']:,} submitted scores (+{totals['draft_scores']:,} drafts), "
        f"{totals['rows']:,} matrix rows, {totals['cells']:,} cells, {totals['consensus']} "
        f"consensus; large evaluation {totals.get('large_evaluation')}; {totals['seconds']} s"
    )


if __name__ == "__main__":
    main()
