"""Thin, idempotent tasks that take IDs; their status lives in the ReportRun row."""

import logging

from botocore.exceptions import BotoCoreError, ClientError
from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_init
from django.conf import settings

from . import services
from .gc_tuning import gc_tuned

log = logging.getLogger(__name__)

# Transient: a storage or database hiccup, an object store unreachable or answering 503.
TRANSIENT = (OSError, ConnectionError, BotoCoreError, ClientError)


@shared_task(
    name=services.RENDER_TASK,
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.REPORT_SOFT_TIME_LIMIT,
    time_limit=settings.REPORT_TIME_LIMIT,
    max_retries=settings.REPORT_MAX_ATTEMPTS,
)
def render_report(self, run_id: int) -> str:
    log.info("Rendering report run %s (attempt %s).", run_id, self.request.retries + 1)
    try:
        # The collector is restored, and the render's garbage freed, once the run is saved:
        # nobody waits for that second.
        with gc_tuned():
            run = services.report_render(run_id)
    except SoftTimeLimitExceeded:
        services.report_fail(run_id, "The report took too long to render.")
        raise
    except TRANSIENT as exc:
        if self.request.retries < self.max_retries:
            raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
        services.report_fail(run_id, f"{type(exc).__name__}: {exc}")
        raise
    except Exception as exc:
        services.report_fail(run_id, f"{type(exc).__name__}: {exc}")
        raise
    log.info("Report run %s is %s.", run_id, run.status if run else "missing")
    return run.status if run else "missing"


@shared_task(name="reports.fail_stuck_runs")
def fail_stuck_runs() -> int:
    return services.reports_fail_stuck()


@worker_init.connect
def check_font_subsetting(**kwargs):
    """Refuse to start a worker that would subset CJK fonts with fontTools (over 100× slower
    than HarfBuzz for that step, adding ~20 s to a large Chinese report): the fix is a system
    package, so say which."""
    from .render import harfbuzz_subsetting_available

    if not harfbuzz_subsetting_available():
        raise RuntimeError(
            "WeasyPrint cannot load libharfbuzz-subset (HarfBuzz ≥ 4.1): reports would fall back "
            "to fontTools and render many times slower. Install Debian's libharfbuzz-subset0."
        )


@worker_init.connect
def check_translations(**kwargs):
    """Refuse to start a worker that would print Chinese reports with English headings."""
    from common.i18n import missing_translations

    if missing := missing_translations():
        raise RuntimeError(
            f"No compiled translations for {', '.join(missing)}: reports in that language would "
            "come out in English. Run `python manage.py compilemessages` (make worker does)."
        )
