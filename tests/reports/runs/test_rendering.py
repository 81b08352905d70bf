"""Report runs: request, worker, PDF; sealed snapshots, the renderer's safety (nothing
fetched from outside), and reliability."""

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader

from common.i18n import missing_translations
from evaluations.models import MemberRole
from reports import services
from reports.fetcher import BASE_URL, FetchRefused, SafeURLFetcher
from reports.models import ReportRun, RunStatus
from reports.render import harfbuzz_subsetting_available, render_pdf
from reports.tasks import check_translations
from tests.factories import add_candidates, answer_all
from tests.reports.runs.support import (
    PROBES,
    finished,
    pdf_text,
)

pytestmark = pytest.mark.django_db


def test_fetcher_allows_only_bundled_assets_and_data():
    fetcher = SafeURLFetcher()
    css = fetcher.fetch(BASE_URL + "reports/report.css")
    assert b"@page" in css.read()
    assert fetcher.fetch("data:text/plain;base64,aGk=").read() == b"hi"
    for url in (
        "http://127.0.0.1:6379/",
        "https://example.com/x.png",
        "file:///etc/passwd",
        BASE_URL + "../../etc/passwd",
        BASE_URL + "reports/missing.css",
        "ftp://127.0.0.1/x",
    ):
        with pytest.raises(FetchRefused):
            fetcher.fetch(url)
    assert len(fetcher.refused) == 6


def test_harfbuzz_subsetting_is_available():
    # make test installs libharfbuzz-subset0; without it Chinese reports render far slower.
    assert harfbuzz_subsetting_available()


def test_translations_are_compiled_and_their_absence_is_refused(filled, tmp_path, settings):
    # make test compiles them, as make run/worker/bench do: the real catalog is found.
    assert missing_translations() == []
    settings.LOCALE_PATHS = [tmp_path]  # a fresh clone before compilemessages
    assert missing_translations() == ["zh-hans"]
    with pytest.raises(RuntimeError, match="compilemessages"):
        check_translations()  # the worker refuses to start
    with pytest.raises(CommandError, match="compilemessages"):
        out = tmp_path / "x.pdf"
        call_command("render_report", filled.pk, "--language", "zh-hans", "--output", str(out))
    assert not out.exists()


def test_request_renders_a_pdf_with_the_snapshot_hash(client, filled, people, settings):
    viewer = people[MemberRole.VIEWER]  # procurement reads and exports
    client.force_login(viewer)
    response = client.post(
        reverse("reports:report_list", kwargs={"pk": filled.pk}), {"language": "zh-hans"}
    )
    assert response.status_code == 302
    run = ReportRun.objects.get(evaluation=filled)
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        pytest.skip("rendered by a worker: see test_worker_renders_reports")
    run.refresh_from_db()
    assert run.status == RunStatus.DONE and run.pages >= 3
    text = pdf_text(run.pdf.read())
    assert filled.title in text and "Slurm" in text and "Volcano" in text
    assert run.snapshot_sha256 in text.replace("\n", "")
    assert "方案" in text or "候选" in text  # Chinese rendered with the CJK font
    for probe in PROBES:  # printed as text, nothing fetched
        assert probe.split(" ")[0] in text.replace("\n", " ")
    download = client.get(
        reverse("reports:report_download", kwargs={"pk": filled.pk, "run_id": run.pk})
    )
    assert download.status_code == 200 and download["Content-Type"] == "application/pdf"


def test_rendering_is_idempotent_and_reproducible(filled, owner):
    run, _sent = services.report_request(user=owner, evaluation=filled, language="en")
    run.refresh_from_db()
    if run.status != RunStatus.DONE:
        services.report_render(run.pk)
        run.refresh_from_db()
    first_file, first_text = run.pdf.name, pdf_text(run.pdf.read())
    again = services.report_render(run.pk)  # a redelivered task
    assert again.pdf.name == first_file and again.attempts == run.attempts
    rerender = render_pdf(run.snapshot, run.snapshot_sha256, run.language)
    assert pdf_text(rerender.content) == first_text
    assert rerender.refused == []


def test_unchanged_data_keeps_its_seal_and_reuses_the_pdf(filled, owner, monkeypatch):
    first = finished(services.report_request(user=owner, evaluation=filled, language="en")[0])
    renders = []
    monkeypatch.setattr(
        services, "render_pdf", lambda *a, **k: renders.append(a) or render_pdf(*a, **k)
    )
    same = finished(services.report_request(user=owner, evaluation=filled, language="en")[0])
    # The seal covers the content, not the render time; the PDF is the earlier one, not redrawn.
    assert same.snapshot_sha256 == first.snapshot_sha256
    assert renders == [] and same.pdf_sha256 == first.pdf_sha256 and same.pages == first.pages
    assert same.pdf.name != first.pdf.name and same.pdf.read() == first.pdf.read()
    # Another language, other sections, or changed data: rendered anew.
    zh = finished(services.report_request(user=owner, evaluation=filled, language="zh-hans")[0])
    part = finished(
        services.report_request(user=owner, evaluation=filled, language="en", sections=["poc"])[0]
    )
    filled.refresh_from_db()
    filled.notes = "Changed after the first report."
    filled.save()
    changed = finished(services.report_request(user=owner, evaluation=filled, language="en")[0])
    assert len(renders) == 3
    assert changed.snapshot_sha256 != first.snapshot_sha256
    assert len({zh.pdf_sha256, part.pdf_sha256, changed.pdf_sha256, first.pdf_sha256}) == 4


def test_every_page_of_a_draft_report_says_draft(filled, owner):
    run = finished(services.report_request(user=owner, evaluation=filled, language="en")[0])
    pages = PdfReader(io.BytesIO(run.pdf.read())).pages
    assert len(pages) > 1
    assert all("DRAFT — no decision recorded" in page.extract_text() for page in pages)


def test_non_members_get_404(client, filled, owner, people):
    run, _sent = services.report_request(user=owner, evaluation=filled, language="en")
    client.force_login(people["outsider"])
    for url in (
        reverse("reports:report_list", kwargs={"pk": filled.pk}),
        reverse("reports:report_preview", kwargs={"pk": filled.pk}),
        reverse("reports:report_download", kwargs={"pk": filled.pk, "run_id": run.pk}),
    ):
        assert client.get(url).status_code == 404
    assert (
        client.post(
            reverse("reports:report_list", kwargs={"pk": filled.pk}), {"language": "en"}
        ).status_code
        == 404
    )
    assert ReportRun.objects.filter(requested_by=people["outsider"]).count() == 0


def test_preview_uses_the_same_template_and_escapes_user_text(client, filled, owner):
    client.force_login(owner)
    html = client.get(reverse("reports:report_preview", kwargs={"pk": filled.pk})).content.decode()
    assert "&lt;img src=" in html and '<img src="http' not in html
    assert 'rel="attachment"' not in html


def test_stuck_runs_fail_and_can_be_retried(filled, owner):
    run, _sent = services.report_request(user=owner, evaluation=filled, language="en")
    ReportRun.objects.filter(pk=run.pk).update(
        status=RunStatus.RENDERING, created_at=timezone.now() - timedelta(hours=1)
    )
    assert services.reports_fail_stuck() == 1
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "retry" in run.error
    services.report_retry(user=owner, run=run)
    run.refresh_from_db()
    if run.status == RunStatus.QUEUED:
        services.report_render(run.pk)
        run.refresh_from_db()
    assert run.status == RunStatus.DONE


def test_a_run_that_keeps_failing_ends_failed(filled, owner):
    run, _sent = services.report_request(user=owner, evaluation=filled, language="en")
    ReportRun.objects.filter(pk=run.pk).update(status=RunStatus.RENDERING, attempts=3)
    services.report_render(run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "attempts" in run.error


def test_broker_down_keeps_the_run_and_says_so(client, filled, owner):
    from config.celery_app import app

    previous = (app.conf.broker_url, app.conf.task_always_eager)
    app.conf.update(broker_url="redis://127.0.0.1:1/0", task_always_eager=False)
    try:
        client.force_login(owner)
        response = client.post(
            reverse("reports:report_list", kwargs={"pk": filled.pk}),
            {"language": "en"},
            follow=True,
        )
    finally:
        app.conf.update(broker_url=previous[0], task_always_eager=previous[1])
        assert "unreachable" in response.content.decode()
    run = ReportRun.objects.get(evaluation=filled)
    assert run.status == RunStatus.QUEUED and run.snapshot_sha256
    # The run says why it waits and offers a retry.
    assert "could not be reached" in run.error
    assert f'data-testid="retry-{run.pk}"' in response.content.decode()


def test_a_queued_run_a_worker_has_offers_no_retry(client, filled, owner, monkeypatch):
    monkeypatch.setattr(services, "report_enqueue", lambda run_id: True)  # queued, not run yet
    run, _sent = services.report_request(user=owner, evaluation=filled, language="en")
    assert run.status == RunStatus.QUEUED and not run.error
    client.force_login(owner)
    page = client.get(reverse("reports:report_list", kwargs={"pk": filled.pk})).content.decode()
    assert 'data-status="queued"' in page and f'data-testid="retry-{run.pk}"' not in page


@override_settings(REPORT_STUCK_AFTER=1)
def test_fresh_runs_are_not_stuck(filled, owner):
    services.report_request(user=owner, evaluation=filled, language="en")
    assert services.reports_fail_stuck(now=timezone.now() - timedelta(seconds=30)) == 0


@pytest.mark.django_db(transaction=True)
def test_worker_renders_reports(seeded, celery_worker, owner, django_capture_on_commit_callbacks):
    """Request → real worker on Redis → done, with one PDF (in CI: required)."""
    import time

    from evaluations.services import evaluation_create  # noqa: F401  (app loaded)
    from tests.factories import make_evaluation

    evaluation = make_evaluation(owner, title="Worker-rendered evaluation")
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner)
    run, sent = services.report_request(user=owner, evaluation=evaluation, language="zh-hans")
    assert sent
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.finished:
            break
        time.sleep(0.2)
    assert run.status == RunStatus.DONE, run.error
    text = pdf_text(run.pdf.read())
    assert "Worker-rendered evaluation" in text and "Slurm" in text
    assert run.snapshot_sha256 in text.replace("\n", "")
