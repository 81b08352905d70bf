"""The report runs as Prometheus metrics, read from the database when scraped (so every web
process gives the same answer, whichever renders or fails the runs) in two aggregate queries,
however many runs there are."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count, DurationField, F, Q, Sum
from django.utils import timezone, translation
from django.utils.translation import gettext
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily

from .models import ReportRun, RunStatus
from .services import STUCK_ERROR

log = logging.getLogger(__name__)

# Runs finished in this window make the histograms and the stuck count: recent behaviour, and a
# query that reads a day of runs, not the whole history.
WINDOW = timedelta(hours=24)
# Seconds from a render's start to its end: a reused PDF takes none, a large report in Chinese
# about half a minute, and REPORT_TIME_LIMIT (300 s by default) stops a render.
RENDER_BUCKETS = (0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600)
WINDOW_NOTE = (
    "Runs finished in the last 24 hours: a sliding window, not a counter "
    "(read it as it is, without rate())."
)


def stuck_errors() -> list[str]:
    """The stuck-run error as each language writes it (the beat task saves it translated)."""
    texts = {STUCK_ERROR}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            texts.add(gettext(STUCK_ERROR))
    return sorted(texts)


class ReportRunsCollector:
    """Runs by status; for the runs finished in the last 24 h, render durations, attempts and
    the runs failed as stuck (no worker finished them in time)."""

    def collect(self):
        try:
            by_status, recent = self.read(now=timezone.now())
        except DatabaseError:  # the database is down: the other metrics still answer
            log.warning("Could not read the report runs for the metrics.", exc_info=True)
            return
        runs = GaugeMetricFamily(
            "shortlist_report_runs", "Report runs by status (all kept runs).", labels=["status"]
        )
        for status in RunStatus.values:
            runs.add_metric([status], by_status.get(status, 0))
        yield runs

        render_sum = recent["render_sum"] or timedelta(0)
        yield HistogramMetricFamily(
            "shortlist_report_render_seconds",
            f"Seconds from start to end of the last attempt of done runs. {WINDOW_NOTE}",
            buckets=[
                *((str(float(b)), recent[f"render_le_{b}"]) for b in RENDER_BUCKETS),
                ("+Inf", recent["done"]),
            ],
            sum_value=render_sum.total_seconds(),
        )
        max_attempts = settings.REPORT_MAX_ATTEMPTS
        yield HistogramMetricFamily(
            "shortlist_report_attempts",
            "Render attempts of done and failed runs (0: an earlier run's PDF was reused; "
            f"{max_attempts}: REPORT_MAX_ATTEMPTS, the last chance). {WINDOW_NOTE}",
            buckets=[
                *((str(float(n)), recent[f"attempts_le_{n}"]) for n in range(max_attempts + 1)),
                ("+Inf", recent["finished"]),
            ],
            sum_value=recent["attempts_sum"] or 0,
        )
        yield GaugeMetricFamily(
            "shortlist_report_runs_stuck_failed",
            "Runs failed because no worker finished them within REPORT_STUCK_AFTER (the "
            f"reports.fail_stuck_runs beat task). {WINDOW_NOTE}",
            value=recent["stuck"],
        )

    def read(self, *, now) -> tuple[dict[str, int], dict]:
        """Two queries: the count per status, and one aggregate over the recent runs."""
        by_status = dict(
            ReportRun.objects.order_by()
            .values("status")
            .annotate(n=Count("pk"))
            .values_list("status", "n")
        )
        # Finished runs only: a failed run sent back to the queue keeps its old finished_at.
        finished = ReportRun.objects.filter(
            status__in=[RunStatus.DONE, RunStatus.FAILED], finished_at__gte=now - WINDOW
        )
        done = Q(status=RunStatus.DONE, started_at__isnull=False)
        recent = finished.aggregate(
            finished=Count("pk"),
            done=Count("pk", filter=done),
            render_sum=Sum(
                F("finished_at") - F("started_at"), output_field=DurationField(), filter=done
            ),
            **{
                f"render_le_{b}": Count(
                    "pk", filter=done & Q(finished_at__lte=F("started_at") + timedelta(seconds=b))
                )
                for b in RENDER_BUCKETS
            },
            attempts_sum=Sum("attempts"),
            **{
                f"attempts_le_{n}": Count("pk", filter=Q(attempts__lte=n))
                for n in range(settings.REPORT_MAX_ATTEMPTS + 1)
            },
            stuck=Count("pk", filter=Q(status=RunStatus.FAILED, error__in=stuck_errors())),
        )
        return by_status, recent
