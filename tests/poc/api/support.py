"""What the POC API tests share: an API client, the URLs of a plan and a cell, scoring and
evidence requests."""

from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from evaluations.models import MemberRole

READERS = [MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER]


def client_for(user=None) -> APIClient:
    client = APIClient()
    client.default_format = "json"
    if user is not None:
        client.force_authenticate(user)
    return client


def url(evaluation, rest=""):
    return f"/api/evaluations/{evaluation.pk}/poc/{rest}"


def cell_url(evaluation, case, candidate, rest):
    return url(evaluation, f"cells/{case.pk}/{candidate.pk}/{rest}")


def put_score(user, evaluation, case, candidate, **body):
    return client_for(user).put(cell_url(evaluation, case, candidate, "score/"), body)


def cell_of(body, case, candidate):
    return next(c for c in body["cells"] if c["case"] == case.pk and c["candidate"] == candidate.pk)


def scorecard_cell(user, evaluation, case, candidate):
    response = client_for(user).get(url(evaluation, "scorecard/"))
    assert response.status_code == 200
    return cell_of(response.json(), case, candidate)


def upload(user, evaluation, case, candidate, filename, content, **extra):
    return client_for(user).post(
        cell_url(evaluation, case, candidate, "evidence/"),
        {"file": SimpleUploadedFile(filename, content), **extra},
        format="multipart",
    )


def download(user, evaluation, evidence_id):
    return client_for(user).get(url(evaluation, f"evidence/{evidence_id}/"))


def file_bytes(response) -> bytes:
    return b"".join(response.streaming_content)
