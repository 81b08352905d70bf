"""Reports API: the same runs, sections, blind rule and privacy as the pages."""

import io

import pytest
from django.core.management import call_command
from pypdf import PdfReader
from rest_framework.test import APIClient

from evaluations.models import Evaluation, MemberRole
from reports import services
from reports.models import ReportRun, RunStatus
from reports.sections import ALL as ALL_SECTIONS
from tests.factories import add_candidates, answer_all, submit_one_score, unused_pk

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def url(evaluation, rest=""):
    return f"/api/evaluations/{evaluation.pk}/reports/{rest}"


@pytest.fixture
def filled(evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner)
    return evaluation


def rendered(run_id):
    """Render in this process when a worker would (CI sends the task to Redis)."""
    run = ReportRun.objects.get(pk=run_id)
    if run.status != RunStatus.DONE:
        services.report_render(run_id)
    return ReportRun.objects.get(pk=run_id)


def test_request_follow_and_download(filled, people):
    viewer = people[MemberRole.VIEWER]  # procurement
    client = client_for(viewer)
    response = client.post(url(filled), {"language": "en", "sections": ["costs", "questions"]})
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["sections"] == ["questions", "costs"] and body["language"] == "en"
    assert body["requested_by"] == viewer.username and body["locked"] is False
    assert isinstance(body["queued_now"], bool) and len(body["snapshot_sha256"]) == 64
    run = rendered(body["id"])

    detail = client.get(url(filled, f"{run.pk}/")).json()
    assert detail["status"] == "done" and detail["pages"] >= 2
    assert detail["pdf"].endswith(f"/api/evaluations/{filled.pk}/reports/{run.pk}/pdf/")
    assert [r["id"] for r in client.get(url(filled)).json()] == [run.pk]
    download = client.get(detail["pdf"])
    assert download.status_code == 200 and download["Content-Type"] == "application/pdf"
    content = b"".join(download.streaming_content)
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(content)).pages)
    assert "Five questions before procurement" in text and "POC scorecard" not in text


def test_without_sections_every_section_is_printed(filled, owner):
    response = client_for(owner).post(url(filled), {"language": "zh-hans"}, format="json")
    assert response.status_code == 202 and response.json()["sections"] == ALL_SECTIONS


@pytest.mark.parametrize(
    "body, field",
    [
        ({"language": "fr"}, "language"),
        ({}, "language"),
        ({"language": "en", "sections": []}, "sections"),
        ({"language": "en", "sections": ["poc", "gossip"]}, "sections"),
    ],
)
def test_bad_requests_say_which_field_and_save_nothing(filled, owner, body, field):
    response = client_for(owner).post(url(filled), body, format="json")
    assert response.status_code == 400 and field in response.json(), response.json()
    assert not ReportRun.objects.exists()


def test_outsiders_get_404_everywhere(filled, owner, people):
    run, _sent = services.report_request(user=owner, evaluation=filled, language="en")
    rendered(run.pk)
    client = client_for(people["outsider"])
    for path in ("", f"{run.pk}/", f"{run.pk}/pdf/"):
        assert client.get(url(filled, path)).status_code == 404
    assert client.post(url(filled), {"language": "en"}).status_code == 404
    assert client.post(url(filled, f"{run.pk}/retry/")).status_code == 404
    assert ReportRun.objects.count() == 1
    other_evaluation_run = client_for(owner).get(
        f"/api/evaluations/{unused_pk(Evaluation)}/reports/{run.pk}/"
    )
    assert other_evaluation_run.status_code == 404


def test_reports_with_scores_are_locked_while_cells_are_hidden(filled, owner, people):
    reviewer = people[MemberRole.REVIEWER]
    case, slurm = submit_one_score(filled, owner)
    full, _sent = services.report_request(user=owner, evaluation=filled, language="en")
    rendered(full.pk)

    client = client_for(reviewer)
    (listed,) = client.get(url(filled)).json()
    assert listed["locked"] is True and listed["pdf"] is None
    refused = client.get(url(filled, f"{full.pk}/pdf/"))
    assert refused.status_code == 403 and "submitted your own scores" in refused.json()["detail"]
    asked = client.post(url(filled), {"language": "en", "sections": ["poc"]}, format="json")
    assert asked.status_code == 400 and "hidden from you" in asked.json()["sections"][0]
    fine = client.post(url(filled), {"language": "en", "sections": ["matrices"]}, format="json")
    assert fine.status_code == 202 and fine.json()["locked"] is False


def test_retry_sends_a_failed_run_again(filled, owner):
    run, _sent = services.report_request(user=owner, evaluation=filled, language="en")
    services.report_fail(run.pk, "worker lost")
    response = client_for(owner).post(url(filled, f"{run.pk}/retry/"))
    assert response.status_code == 202 and response.json()["error"] == ""
    assert response.json()["status"] in ("queued", "done")  # done: rendered in-process
    assert rendered(run.pk).status == RunStatus.DONE


def test_the_schema_describes_the_reports_api(owner):
    paths = client_for(owner).get("/api/schema/", {"format": "json"}).json()["paths"]
    assert "/api/evaluations/{evaluation_pk}/reports/" in paths
    assert "/api/evaluations/{evaluation_pk}/reports/{run_pk}/pdf/" in paths
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=io.StringIO())
