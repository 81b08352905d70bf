"""Uploaded JSON, YAML and CSV that would make a parser recurse without end or blow up in memory
(`"[" * 200000`, a list of millions of values) are refused with a 400 that says why, never a 500:
evaluation archives, catalog bundles, measurement imports, evidence files and API bodies."""

import hashlib
import html
import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.bundle.export import bundle_export
from evaluations.models import MemberRole
from poc import services as poc_services
from portable.archive import evaluation_export
from tests.factories import add_candidates, declare_none, make_everything

pytestmark = pytest.mark.django_db

DEEP = "[" * 200000
NESTED = "nested more than"


@pytest.fixture
def everything(owner, people):
    return make_everything(owner, people)


def zipped(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return out.getvalue()


def unzipped(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def text_of(response) -> str:
    return html.unescape(response.content.decode())


# --- evaluation archives ---------------------------------------------------------------------


def archive_with(everything, *, manifest=None, document=None) -> bytes:
    spool = io.BytesIO()
    evaluation_export(everything, spool)
    files = unzipped(spool.getvalue())
    if document is not None:
        files["evaluation.json"] = document.encode()
        listed = json.loads(files["manifest.json"])
        for entry in listed["files"]:
            if entry["path"] == "evaluation.json":
                entry.update(
                    sha256=hashlib.sha256(files["evaluation.json"]).hexdigest(),
                    size=len(files["evaluation.json"]),
                )
        files["manifest.json"] = json.dumps(listed).encode()
    if manifest is not None:
        files["manifest.json"] = manifest.encode()
    return zipped(files)


@pytest.mark.parametrize("part", ["manifest", "document"])
def test_a_deeply_nested_archive_is_a_400(client, owner, everything, part):
    data = archive_with(everything, **{part: DEEP})
    client.force_login(owner)
    response = client.post(
        reverse("portable:evaluation_import"),
        {"archive": SimpleUploadedFile("e.zip", data, "application/zip")},
    )
    assert response.status_code == 400
    assert NESTED in text_of(response)


# --- catalog bundles -------------------------------------------------------------------------


def bundle_upload(client, data: bytes):
    file = SimpleUploadedFile("catalog.zip", data, content_type="application/zip")
    return client.post(reverse("catalog:bundle"), {"action": "preview", "bundle": file})


@pytest.mark.parametrize(
    ("manifest", "message"),
    [("[" * 60000, NESTED), ("[" * 200000, "manifest.json is larger than 64.0")],
    ids=["deep", "large"],
)
def test_a_hostile_bundle_manifest_is_a_400(client, admin_user, manifest, message):
    files = unzipped(bundle_export())
    files["manifest.json"] = manifest.encode()
    client.force_login(admin_user)
    response = bundle_upload(client, zipped(files))
    assert response.status_code == 400
    assert message in text_of(response)


@pytest.mark.parametrize("text", ["[" * 200000, "- " * 200000 + "x", "[" * 900 + "]" * 900])
@pytest.mark.parametrize("loader", ["libyaml", "python"])
def test_deeply_nested_catalog_yaml_is_a_400(client, admin_user, monkeypatch, text, loader):
    import yaml

    if loader == "python":  # an installation whose PyYAML was built without libyaml
        monkeypatch.setattr("common.seeding._LOADER", yaml.SafeLoader)
    files = unzipped(bundle_export())
    files["catalog.yaml"] = text.encode()
    manifest = json.loads(files["manifest.json"])
    manifest["sha256"] = {"catalog.yaml": hashlib.sha256(files["catalog.yaml"]).hexdigest()}
    files["manifest.json"] = json.dumps(manifest).encode()
    client.force_login(admin_user)
    response = bundle_upload(client, zipped(files))
    assert response.status_code == 400
    assert "catalog.yaml" in text_of(response)


# --- measurement imports, evidence, API bodies -----------------------------------------------


def api_for(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("m.json", DEEP, NESTED),
        ("m.json", '{"measurements": ' + "[" * 5000 + "]" * 5000 + "}", NESTED),
        ("m.csv", DEEP, "cannot be read"),
        ("m.csv", "candidate,case,value\n" + "x," * 200000 + "\n", "more cells than"),
    ],
    ids=["json", "json-in-key", "csv", "csv-wide"],
)
def test_a_hostile_measurements_file_is_a_400(people, everything, name, content, message):
    api = api_for(people[MemberRole.REVIEWER])
    response = api.post(
        f"/api/evaluations/{everything.pk}/poc/imports/",
        {"file": SimpleUploadedFile(name, content.encode(), "text/plain"), "dry_run": True},
        format="multipart",
    )
    assert response.status_code == 400, response.content[:300]
    assert message in json.dumps(response.json())


def test_a_deeply_nested_json_evidence_file_is_a_400(evaluation, owner, people):
    reviewer = people[MemberRole.REVIEWER]
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    poc_services.plan_init(user=owner, evaluation=evaluation)
    declare_none(evaluation, owner, reviewer)
    case = evaluation.poc_cases.order_by("pk").first()
    poc_services.score_save(
        user=reviewer, case=case, candidate=slurm, score="4", expected_version=0
    )
    path = f"/api/evaluations/{evaluation.pk}/poc/cells/{case.pk}/{slurm.pk}/evidence/"
    response = api_for(reviewer).post(
        path,
        {"file": SimpleUploadedFile("result.json", DEEP.encode(), "application/json")},
        format="multipart",
    )
    assert response.status_code == 400, response.content[:300]
    assert NESTED in json.dumps(response.json())


def test_a_deeply_nested_api_body_is_a_400(owner, everything):
    api = api_for(owner)
    response = api.patch(
        f"/api/evaluations/{everything.pk}/", DEEP, content_type="application/json"
    )
    assert response.status_code == 400
    assert NESTED in response.json()["detail"]
    with_nul = api.post(
        f"/api/evaluations/{everything.pk}/candidates/",
        "[" * 5000 + '"\\u0000"' + "]" * 5000,
        content_type="application/json",
    )
    assert with_nul.status_code == 400
