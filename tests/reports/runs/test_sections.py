"""Report runs, continued: the chosen sections, blind scoring in reports, the operators'
command, and honest messages when a report is requested again."""

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from evaluations.models import Evaluation, MemberRole
from poc import services as poc_services
from reports import services
from reports.models import ReportRun, RunStatus
from reports.render import RenderedPdf, render_pdf
from reports.sections import ALL as ALL_SECTIONS
from tests.factories import declare_none, submit_one_score, unused_pk
from tests.reports.runs.support import (
    finished,
    pdf_text,
)

pytestmark = pytest.mark.django_db


# --- sections ---------------------------------------------------------------------------------


def report_page(evaluation) -> str:
    return reverse("reports:report_list", kwargs={"pk": evaluation.pk})


def test_a_report_prints_only_the_chosen_sections(client, filled, owner):
    client.force_login(owner)
    form = {"language": "en", "choose_sections": "1", "sections": ["costs", "questions"]}
    assert client.post(report_page(filled), form).status_code == 302
    run = ReportRun.objects.get(evaluation=filled)
    assert run.sections == ["questions", "costs"]  # report order, whatever the form order
    assert run.snapshot["sections"] == run.sections  # sealed with the data
    text = pdf_text(render_pdf(run.snapshot, run.snapshot_sha256, run.language).content)
    assert "Five questions before procurement" in text and "Cost of ownership" in text
    for left_out in ("Executive summary", "Responsibility matrices", "POC scorecard", "Appendix"):
        assert left_out not in text
    assert "Sections" in text and filled.title in text  # the cover says what it holds

    listing = client.get(report_page(filled)).content.decode()
    assert "Five questions before procurement, Cost of ownership" in listing


def test_without_a_choice_a_report_has_every_section(filled, owner):
    run, _sent = services.report_request(user=owner, evaluation=filled, language="en")
    assert run.sections == ALL_SECTIONS and run.complete


@pytest.mark.parametrize(
    "chosen, message",
    [([], "Choose at least one section."), (["poc", "gossip"], "Unknown report section: gossip.")],
)
def test_bad_section_choices_are_refused_with_a_message(client, filled, owner, chosen, message):
    client.force_login(owner)
    form = {"language": "en", "choose_sections": "1", "sections": chosen}
    response = client.post(report_page(filled), form, follow=True)
    assert response.status_code == 200 and message in response.content.decode()
    assert not ReportRun.objects.filter(evaluation=filled).exists()


def test_reports_with_scores_follow_blind_scoring(client, filled, owner, people):
    """A report that prints scores would show a reviewer what the scorecard hides."""
    reviewer = people[MemberRole.REVIEWER]
    case, slurm = submit_one_score(filled, owner)
    full, _sent = services.report_request(user=owner, evaluation=filled, language="en")
    services.report_render(full.pk)
    download = reverse("reports:report_download", kwargs={"pk": filled.pk, "run_id": full.pk})
    preview = reverse("reports:report_preview", kwargs={"pk": filled.pk})

    client.force_login(reviewer)
    listing = client.get(report_page(filled)).content.decode()
    assert 'data-testid="reports-blind"' in listing and f'data-testid="locked-{full.pk}"' in listing
    for key in ALL_SECTIONS:  # the form leaves the locked sections unticked
        ticked = f'value="{key}" checked' in listing
        assert ticked == (key not in ("summary", "poc", "reminders", "robustness", "appendix")), key
    assert client.get(download).status_code == 403
    assert client.get(preview).status_code == 403
    form = {"language": "en", "choose_sections": "1", "sections": ["poc"]}
    refused = client.post(report_page(filled), form, follow=True).content.decode()
    assert "open once you have submitted your own scores" in refused
    assert ReportRun.objects.filter(requested_by=reviewer).count() == 0
    # Without scores the report is there at once.
    form["sections"] = ["questions", "matrices"]
    assert client.post(report_page(filled), form).status_code == 302
    assert client.get(f"{preview}?sections=questions").status_code == 200

    # The viewer (procurement) and the owner see every score anyway.
    for user in (owner, people[MemberRole.VIEWER]):
        client.force_login(user)
        assert client.get(download).status_code == 200

    # Once the reviewer has scored that cell too, the full report opens for them.
    declare_none(filled, reviewer)
    poc_services.score_save(
        user=reviewer, case=case, candidate=slurm, score="2", expected_version=None
    )
    poc_services.scores_submit(user=reviewer, evaluation=filled)
    client.force_login(reviewer)
    assert client.get(download).status_code == 200
    assert f'data-testid="locked-{full.pk}"' not in client.get(report_page(filled)).content.decode()


def test_render_report_writes_a_pdf_for_operators(filled, tmp_path):
    out = tmp_path / "report.pdf"
    call_command(
        "render_report", filled.pk, "--language", "en", "--output", str(out), "--sections",
        "questions",
    )  # fmt: skip
    text = pdf_text(out.read_bytes())
    assert filled.title in text and "Five questions before procurement" in text
    assert "POC scorecard" not in text
    with pytest.raises(CommandError, match="Unknown report section: gossip"):
        call_command("render_report", filled.pk, "--output", str(out), "--sections", "gossip")
    with pytest.raises(CommandError, match="There is no evaluation"):
        call_command("render_report", unused_pk(Evaluation), "--output", str(out))


def test_the_run_list_has_a_fixed_query_count_and_leaves_snapshots_alone(
    client, filled, owner, django_assert_max_num_queries
):
    def add_runs(n):
        for _ in range(n):
            ReportRun.objects.create(
                evaluation=filled,
                requested_by=owner,
                language="en",
                sections=ALL_SECTIONS,
                snapshot={"big": "x" * 100_000},
                snapshot_sha256="0" * 64,
            )

    client.force_login(owner)
    page = report_page(filled)
    poll = {"HX-Request": "true"}  # what the page fetches every second while a run is going
    client.get(page, headers=poll)  # warm caches (sessions, permissions)
    add_runs(3)
    with CaptureQueriesContext(connection) as few:
        assert client.get(page, headers=poll).status_code == 200
    add_runs(12)
    with django_assert_max_num_queries(len(few.captured_queries)) as many:
        response = client.get(page, headers=poll)
    assert response.status_code == 200 and response.content.count(b"<tr data-status") == 15
    run_queries = [q["sql"] for q in many.captured_queries if "reports_reportrun" in q["sql"]]
    assert run_queries and not any('"snapshot"' in sql for sql in run_queries)


# --- requesting: honest messages, re-requests finished on the spot -----------------------------


def test_a_queued_request_says_so_and_the_page_follows_it(client, filled, owner, monkeypatch):
    sent = []
    monkeypatch.setattr(services, "report_enqueue", lambda run_id: sent.append(run_id) or True)
    client.force_login(owner)
    response = client.post(report_page(filled), {"language": "en"}, follow=True)
    run = ReportRun.objects.get(evaluation=filled)
    assert sent == [run.pk] and run.status == RunStatus.QUEUED
    html = response.content.decode()
    assert "Report requested: it is queued, and the list below follows its progress." in html
    assert "appears below" not in html
    assert 'hx-trigger="every 1s"' in html  # the list polls while the run is unfinished
    assert "data-busy-on-submit" in html and 'data-busy-label="Requesting…"' in html


def test_a_finished_request_says_it_is_ready(client, filled, owner, settings):
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        first = finished(services.report_request(user=owner, evaluation=filled, language="en")[0])
        assert first.status == RunStatus.DONE  # the request below reuses it
    client.force_login(owner)
    response = client.post(report_page(filled), {"language": "en"}, follow=True)
    assert "Report ready: download it below." in response.content.decode()
    assert ReportRun.objects.filter(evaluation=filled).latest("pk").status == RunStatus.DONE


def test_an_unchanged_re_request_is_done_at_once_without_the_worker(filled, owner, monkeypatch):
    first = finished(services.report_request(user=owner, evaluation=filled, language="en")[0])
    sent, renders = [], []
    monkeypatch.setattr(services, "report_enqueue", lambda run_id: sent.append(run_id) or True)
    monkeypatch.setattr(services, "render_pdf", lambda *a, **k: renders.append(a))
    again, queued = services.report_request(user=owner, evaluation=filled, language="en")
    assert queued and sent == [] and renders == []
    again.refresh_from_db()
    assert again.status == RunStatus.DONE and again.progress == 100
    assert again.started_at and again.finished_at and again.pages == first.pages
    assert again.pdf.name != first.pdf.name and again.pdf.read() == first.pdf.read()
    # Another language still goes to the worker.
    zh, _queued = services.report_request(user=owner, evaluation=filled, language="zh-hans")
    assert sent == [zh.pk] and zh.status == RunStatus.QUEUED


def test_the_worker_records_progress_while_it_renders(filled, owner, monkeypatch):
    run = ReportRun.objects.create(
        evaluation=filled,
        requested_by=owner,
        language="en",
        sections=["questions"],
        snapshot={},
        snapshot_sha256="0" * 64,
    )
    seen = []

    def fake_render(snapshot, sha256, language, *, progress):
        for percent in (25, 80, 95):
            progress(percent)
            seen.append(ReportRun.objects.get(pk=run.pk).progress)
        return RenderedPdf(b"%PDF-1.7 test", "f" * 64, 1, refused=[])

    monkeypatch.setattr(services, "render_pdf", fake_render)
    services.report_render(run.pk)
    run.refresh_from_db()
    assert seen == [25, 80, 95] and run.status == RunStatus.DONE and run.progress == 100
