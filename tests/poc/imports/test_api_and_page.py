"""Importing measured values through the API (dry run, then apply) and the page."""

import re
from decimal import Decimal as D
from html import unescape

import pytest
from django.test import override_settings
from django.urls import reverse

from evaluations.models import MemberRole
from poc.models import MeasurementImport, Score
from tests.poc.imports.support import (
    GOOD,
    api_for,
    as_csv,
    upload,
    url,
)

pytestmark = pytest.mark.django_db


# --- the API -------------------------------------------------------------------------------


def test_api_dry_run_then_apply(poc):
    api = api_for(poc["r1"])
    content = as_csv(GOOD)
    dry = api.post(url(poc), {"file": upload(content), "dry_run": True}, format="multipart")
    assert dry.status_code == 200, dry.content
    body = dry.json()
    assert body["applied"] is False and body["changes"][0]["new_score"] == "5.0"
    assert not Score.objects.exists()
    applied = api.post(
        url(poc),
        {"file": upload(content), "state": body["state"], "sha256": body["sha256"]},
        format="multipart",
    )
    assert applied.status_code == 201, applied.content
    assert applied.json()["import_id"] == MeasurementImport.objects.get().pk
    assert Score.objects.get().measured_value == D("42")
    listed = api.get(url(poc)).json()
    assert [r["sha256"] for r in listed] == [body["sha256"]]
    assert api_for(poc["r2"]).get(url(poc)).json() == []  # never another reviewer's imports


def test_api_row_errors_and_refusals(poc, people):
    api = api_for(poc["r1"])
    bad = api.post(url(poc), {"file": upload(as_csv({**GOOD, "case": "nope"}))}, format="multipart")
    assert bad.status_code == 400
    assert bad.json()["errors"] == [
        {"row": 2, "column": "case", "message": "The plan has no case with the key or id “nope”."}
    ]
    assert bad.json()["file"]
    other = api.post(
        url(poc), {"file": upload(as_csv(GOOD)), "sha256": "0" * 64}, format="multipart"
    )
    assert other.status_code == 400 and "sha256" in other.json()
    stale = api.post(
        url(poc), {"file": upload(as_csv(GOOD)), "state": "0" * 32}, format="multipart"
    )
    assert stale.status_code == 409 and stale.json()["detail"]
    txt = api.post(url(poc), {"file": upload(b"hello", "m.txt")}, format="multipart")
    assert txt.status_code == 400 and "file" in txt.json()
    viewer = api_for(people[MemberRole.VIEWER])
    assert (
        viewer.post(url(poc), {"file": upload(as_csv(GOOD))}, format="multipart").status_code == 403
    )
    outsider = api_for(people["outsider"])
    assert (
        outsider.post(url(poc), {"file": upload(as_csv(GOOD))}, format="multipart").status_code
        == 404
    )
    assert outsider.get(url(poc)).status_code == 404
    assert not Score.objects.exists()


@override_settings(EVIDENCE_MAX_BYTES=100)
def test_api_upload_stopped_at_the_limit(poc):
    response = api_for(poc["r1"]).post(
        url(poc), {"file": upload(as_csv(*[GOOD] * 10))}, format="multipart"
    )
    assert response.status_code == 400 and "file" in response.json()


# --- the page ------------------------------------------------------------------------------


def page(poc):
    return reverse("poc:imports", kwargs={"pk": poc["e"].pk})


def hidden(html: str) -> dict:
    return {
        name: unescape(value)
        for name, value in re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', html)
    }


def test_page_preview_then_apply(client, poc):
    client.force_login(poc["r1"])
    assert client.get(page(poc)).status_code == 200
    preview = client.post(page(poc), {"action": "preview", "file": upload(as_csv(GOOD))})
    assert preview.status_code == 200
    html = preview.content.decode()
    assert 'data-testid="import-changes"' in html and "42" in html
    assert not Score.objects.exists()
    form = hidden(html.split('data-testid="import-apply"')[1])
    assert form["action"] == "apply" and len(form["sha256"]) == 64
    done = client.post(page(poc), form)
    assert done.status_code == 302 and done["Location"].endswith(f"/evaluations/{poc['e'].pk}/poc/")
    assert Score.objects.get().measured_value == D("42")
    assert "m.csv" in client.get(page(poc)).content.decode()
    again = client.post(page(poc), form)  # my score changed since that preview
    assert again.status_code == 409 and MeasurementImport.objects.count() == 1


def test_page_row_errors_and_tampering(client, poc):
    client.force_login(poc["r1"])
    bad = client.post(
        page(poc), {"action": "preview", "file": upload(as_csv(GOOD, {**GOOD, "value": "x"}))}
    )
    assert bad.status_code == 400
    html = bad.content.decode()
    assert 'data-testid="import-errors"' in html and "import-apply" not in html
    preview = client.post(page(poc), {"action": "preview", "file": upload(as_csv(GOOD))})
    form = hidden(preview.content.decode().split('data-testid="import-apply"')[1])
    form["content"] = "Y2FuZGlkYXRl"  # another file under the previewed SHA-256
    assert client.post(page(poc), form).status_code == 400
    assert not Score.objects.exists()


def test_page_members_only(client, poc, people):
    client.force_login(people["outsider"])
    assert client.get(page(poc)).status_code == 404
    client.force_login(people[MemberRole.VIEWER])
    response = client.get(page(poc))
    assert response.status_code == 200 and b"import-upload" not in response.content
    refused = client.post(page(poc), {"action": "preview", "file": upload(as_csv(GOOD))})
    assert refused.status_code == 403
