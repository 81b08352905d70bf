"""Requesting, rendering and expiring report runs. Side effects (enqueueing) happen only here."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models.fields.json import KeyTransform
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from common.exceptions import Forbidden
from evaluations.models import Evaluation
from poc.selectors import hidden_cell_count

from .models import ReportRun, RunStatus
from .render import RenderedPdf, render_pdf
from .sections import clean_sections, prints_scores
from .snapshot import build_snapshot, snapshot_sha256

log = logging.getLogger(__name__)

# The note on a queued run that never reached the task queue (the broker was down).
UNQUEUED_ERROR = gettext_noop(
    "The task queue could not be reached, so no worker has this report yet. Retry it once the "
    "queue is back."
)
# The error of a run no worker finished in time (reports_fail_stuck); the metrics count them by it.
STUCK_ERROR = gettext_noop("No worker finished this run in time; retry it.")
# The task that renders a run (reports/tasks.py, registered when the app is ready), found by its
# name: the tasks call these services, so the services never import the tasks.
RENDER_TASK = "reports.render_report"


def report_enqueue(run_id: int) -> bool:
    """Send the run to the worker. False when the broker cannot be reached: the run stays
    queued (nothing is lost) and can be sent again."""
    render_report = current_app.tasks[RENDER_TASK]
    try:
        # A fresh connection each time: a broker that went away is noticed at once, and one
        # that came back is used again without a restart.
        with render_report.app.connection_for_write() as connection:
            render_report.apply_async(args=[run_id], connection=connection, retry=False)
    except Exception:  # broker down: kombu raises OperationalError and friends
        log.warning("Could not enqueue report run %s; it stays queued.", run_id, exc_info=True)
        # Said on the run, so its row offers a retry (a run that did reach the queue does not).
        ReportRun.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(error=_(UNQUEUED_ERROR))
        return False
    return True


def blind_message(hidden: int) -> str:
    """Why reports with scores stay closed to someone from whom `hidden` cells are hidden."""
    return ngettext(
        "Reports with POC scores open once you have submitted your own scores: %(n)d cell "
        "others have scored is still hidden from you. Leave out the executive summary, the POC "
        "scorecard, decision robustness and the appendix to get a report now.",
        "Reports with POC scores open once you have submitted your own scores: %(n)d cells "
        "others have scored are still hidden from you. Leave out the executive summary, the POC "
        "scorecard, decision robustness and the appendix to get a report now.",
        hidden,
    ) % {"n": hidden}


def blind_refusal(user, evaluation: Evaluation, sections) -> str:
    """Reports follow blind scoring: one that prints scores, figures made from them or the
    evidence behind them (`sections.WITH_SCORES`) is closed to a reviewer until they have
    submitted their own score for every cell others have scored. Returns why it is closed to
    `user`, or "" when it is open. Membership itself is checked by the views (404 otherwise)."""
    if not prints_scores(sections):
        return ""
    hidden = hidden_cell_count(evaluation, user)
    return blind_message(hidden) if hidden else ""


def report_request(
    *, user, evaluation: Evaluation, language: str, sections: list[str] | None = None
) -> tuple[ReportRun, bool]:
    """Freeze the evaluation's data into a run and send it to the worker once it is committed.

    `sections`: the parts to print after the cover (None: all). When an earlier finished run
    printed the same snapshot (`same_report`), the new run is finished here with that PDF, with
    no round trip through the worker. Returns the run and whether it is done or on its way
    (False: the broker could not be reached and the run waits for a retry)."""
    if not user.has_perm("evaluations.view_evaluation", evaluation):
        raise Forbidden(_("Only members can request reports."))
    if language not in dict(settings.LANGUAGES):
        raise ValidationError({"language": _("Choose English or Chinese.")})
    sections = clean_sections(sections)
    if refusal := blind_refusal(user, evaluation, sections):
        raise ValidationError({"sections": refusal})
    with transaction.atomic():
        snapshot = build_snapshot(
            evaluation,
            language=language,
            generated_at=timezone.localtime().replace(microsecond=0).isoformat(),
            sections=sections,
        )
        run = ReportRun.objects.create(
            evaluation=evaluation,
            requested_by=user,
            language=language,
            sections=sections,
            snapshot=snapshot,
            snapshot_sha256=snapshot_sha256(snapshot),
        )
        earlier = same_report(run)
        if earlier is not None:
            now = timezone.now()
            run.started_at = now
            _finish(run, reused_pdf(earlier), finished_at=now)
    if run.status == RunStatus.DONE:
        return run, True
    return run, report_enqueue(run.pk)


def reused_pdf(earlier: ReportRun) -> RenderedPdf:
    """The PDF of an earlier run that printed the same snapshot."""
    with earlier.pdf.open("rb") as f:
        content = f.read()
    return RenderedPdf(content, earlier.pdf_sha256, earlier.pages, refused=[])


def _finish(run: ReportRun, pdf: RenderedPdf, *, finished_at) -> None:
    """Store the run's own copy of the PDF and mark it done (inside the caller's transaction)."""
    name = f"shortlist-{run.evaluation_id}-{run.pk}-{run.language}.pdf"
    run.pdf.save(name, ContentFile(pdf.content), save=False)
    run.pdf_sha256 = pdf.sha256
    run.pdf_size = len(pdf.content)
    run.pages = pdf.pages
    run.progress = 100
    run.status = RunStatus.DONE
    run.error = ""
    run.finished_at = finished_at
    run.save()


def report_retry(*, user, run: ReportRun) -> bool:
    if not user.has_perm("evaluations.view_evaluation", run.evaluation):
        raise Forbidden(_("Only members can retry reports."))
    if run.status == RunStatus.DONE:
        return True
    ReportRun.objects.filter(pk=run.pk).update(
        status=RunStatus.QUEUED, error="", progress=0, attempts=0
    )
    return report_enqueue(run.pk)


def report_render(run_id: int) -> ReportRun | None:
    """Render one run. Idempotent: a finished run is left alone, so a redelivered task never
    makes a second PDF; a run that already used its attempts ends failed."""
    with transaction.atomic():
        run = ReportRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status == RunStatus.DONE:
            return run
        if run.attempts >= settings.REPORT_MAX_ATTEMPTS:
            run.status = RunStatus.FAILED
            run.error = _("Gave up after %(n)d attempts.") % {"n": run.attempts}
            run.finished_at = timezone.now()
            run.save()
            return run
        run.status = RunStatus.RENDERING
        run.attempts += 1
        run.progress = 10
        run.started_at = timezone.now()
        run.save()
    earlier = same_report(run)
    if earlier is not None:  # the same sealed content, language and sections: no new render
        pdf = reused_pdf(earlier)
    else:
        pdf = render_pdf(
            run.snapshot, run.snapshot_sha256, run.language, progress=_progress_of(run_id)
        )
    with transaction.atomic():
        run = ReportRun.objects.select_for_update().get(pk=run_id)
        if run.status == RunStatus.DONE:  # another delivery finished first
            return run
        _finish(run, pdf, finished_at=timezone.now())
    return run


def _progress_of(run_id: int):
    """Records how far the render has come, for the page that polls the run."""

    def record(percent: int) -> None:
        ReportRun.objects.filter(pk=run_id, status=RunStatus.RENDERING).update(progress=percent)

    return record


def same_report(run: ReportRun) -> ReportRun | None:
    """An earlier finished run of the same evaluation whose PDF this run would reproduce: same
    snapshot seal, language, sections and sign-off (the approvals, printed but not sealed; its
    file still there), or None."""
    earlier = (
        ReportRun.objects.filter(
            evaluation_id=run.evaluation_id,
            status=RunStatus.DONE,
            snapshot_sha256=run.snapshot_sha256,
            language=run.language,
        )
        .exclude(pk=run.pk)
        .exclude(pdf="")
        # Only the sign-off is compared: the snapshots themselves (hundreds of kilobytes each)
        # stay in the database.
        .defer("snapshot")
        .annotate(signoff=KeyTransform("signoff", "snapshot"))
        .order_by("-finished_at", "-pk")
    )
    for candidate in earlier[:5]:
        if (
            candidate.sections == run.sections
            and candidate.signoff == run.snapshot.get("signoff")
            and candidate.pdf.storage.exists(candidate.pdf.name)
        ):
            return candidate
    return None


def report_fail(run_id: int, error: str) -> None:
    ReportRun.objects.filter(pk=run_id).exclude(status=RunStatus.DONE).update(
        status=RunStatus.FAILED, error=error[:2000], finished_at=timezone.now()
    )


def reports_fail_stuck(*, now=None) -> int:
    """Mark runs queued or rendering for longer than REPORT_STUCK_AFTER seconds as failed."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.REPORT_STUCK_AFTER)
    return ReportRun.objects.filter(
        status__in=[RunStatus.QUEUED, RunStatus.RENDERING], created_at__lt=cutoff
    ).update(
        status=RunStatus.FAILED,
        error=_(STUCK_ERROR),
        finished_at=now,
    )
