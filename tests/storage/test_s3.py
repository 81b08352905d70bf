"""Evidence and report PDFs in an S3-compatible bucket (moto's server over HTTP): stored there and
not on local disk, streamed to members only, reused, swept, and checked by /readyz."""

import hashlib
import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from rest_framework.test import APIClient

from common import roles
from common.files import sweep_orphan_files
from common.health import storage_status
from evaluations.models import MemberRole
from poc import services as poc_services
from poc.models import Evidence
from reports import services
from reports.models import ReportRun, RunStatus
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, answer_all, declare_none, make_evaluation
from tests.storage.conftest import PREFIX, start_moto

ROOT = Path(__file__).resolve().parents[2]
SECTIONS = ["questions", "matrices"]


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def local_files() -> list[Path]:
    """Files under MEDIA_ROOT: with S3 configured, none may land there."""
    root = Path(django_settings.MEDIA_ROOT)
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


@pytest.fixture
def scored_cell(evaluation, owner):
    """A reviewer member who has saved a score, so evidence can be attached to it."""
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    poc_services.plan_init(user=owner, evaluation=evaluation)
    reviewer = make_user(roles.REVIEWER, username="s3-reviewer")
    add_member(evaluation, reviewer, MemberRole.REVIEWER)
    declare_none(evaluation, owner, reviewer)
    case = evaluation.poc_cases.get(source_case__key="gang_under_contention")
    cell = f"/api/evaluations/{evaluation.pk}/poc/cells/{case.pk}/{slurm.pk}/"
    assert api(reviewer).put(f"{cell}score/", {"score": "3"}, format="json").status_code in (
        200,
        201,
    )
    return reviewer, cell


@pytest.mark.django_db
def test_evidence_is_stored_in_the_bucket_and_streamed_to_members_only(
    s3, evaluation, owner, scored_cell
):
    reviewer, cell = scored_cell
    before = local_files()
    text = (b"all ranks started at once\n" * 120_000)[: 3 * 1024 * 1024]
    upload = api(reviewer).post(
        f"{cell}evidence/",
        {"file": SimpleUploadedFile("gang-run.txt", text, "text/plain")},
        format="multipart",
    )
    assert upload.status_code == 201, upload.content
    evidence = Evidence.objects.get(pk=upload.json()["id"])

    assert s3.keys("evidence/") == [f"{PREFIX}/{evidence.file.name}"]
    assert s3.read(evidence.file.name) == text
    assert local_files() == before, "evidence written to local disk"

    got = api(reviewer).get(upload.json()["url"])
    assert got.status_code == 200
    assert not got.has_header("Location")
    body = b"".join(got.streaming_content)
    assert hashlib.sha256(body).hexdigest() == evidence.sha256 and body == text
    assert int(got["Content-Length"]) == len(text)
    assert got["Content-Disposition"].startswith("attachment")
    assert "gang-run.txt" in got["Content-Disposition"]
    assert got["Content-Type"].startswith("text/plain")

    outsider = make_user(roles.TECH_LEAD, username="s3-outsider")
    assert api(outsider).get(upload.json()["url"]).status_code == 404


@pytest.mark.django_db
def test_a_report_pdf_is_stored_reused_and_downloaded_from_the_bucket(s3, evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner)
    with override_settings(CELERY_TASK_ALWAYS_EAGER=True):
        run, _sent = services.report_request(
            user=owner, evaluation=evaluation, language="en", sections=SECTIONS
        )
        services.report_render(run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    assert s3.keys("reports/") == [f"{PREFIX}/{run.pdf.name}"]

    # An unchanged request reuses that PDF (found with storage.exists) and keeps its own copy.
    again, _sent = services.report_request(
        user=owner, evaluation=evaluation, language="en", sections=SECTIONS
    )
    assert again.status == RunStatus.DONE and again.pdf.name != run.pdf.name
    assert s3.read(again.pdf.name) == s3.read(run.pdf.name)

    url = f"/api/evaluations/{evaluation.pk}/reports/{again.pk}/pdf/"
    got = api(owner).get(url)
    assert got.status_code == 200 and got["Content-Type"] == "application/pdf"
    body = b"".join(got.streaming_content)
    assert body.startswith(b"%PDF-") and int(got["Content-Length"]) == len(body)
    assert hashlib.sha256(body).hexdigest() == again.pdf_sha256
    assert f"shortlist-{evaluation.pk}-en-{again.pk}.pdf" in got["Content-Disposition"]
    assert api(make_user(roles.TECH_LEAD, username="s3-stranger")).get(url).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_writes_the_pdf_to_the_bucket(seeded, s3, celery_worker, owner):
    evaluation = make_evaluation(owner, title="Rendered into the bucket")
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner)
    before = local_files()
    run, sent = services.report_request(
        user=owner, evaluation=evaluation, language="en", sections=SECTIONS
    )
    assert sent
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not run.finished:
        time.sleep(0.2)
        run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    assert s3.keys("reports/") == [f"{PREFIX}/{run.pdf.name}"]
    assert local_files() == before, "the worker wrote the PDF to local disk"
    got = api(owner).get(f"/api/evaluations/{evaluation.pk}/reports/{run.pk}/pdf/")
    assert b"".join(got.streaming_content) == s3.read(run.pdf.name)


@pytest.mark.django_db
def test_the_sweep_deletes_old_orphans_in_the_bucket_and_keeps_the_rest(s3, evaluation, owner):
    kept = ReportRun.objects.create(
        evaluation=evaluation, requested_by=owner, language="en", snapshot={}, sections=[]
    )
    kept.pdf.save("kept.pdf", ContentFile(b"%PDF-1.7 kept"))
    orphan = default_storage.save("reports/2026/11/orphan.pdf", ContentFile(b"%PDF orphan"))
    stray = default_storage.save("evidence/2026/11/stray.txt", ContentFile(b"stray"))
    outside = default_storage.save("elsewhere/keep.txt", ContentFile(b"not ours"))
    time.sleep(3.1)  # S3 keeps modification times to the second
    young = default_storage.save("evidence/2026/11/in-flight.txt", ContentFile(b"young"))
    grace = timedelta(seconds=2)

    assert sweep_orphan_files(older_than=grace, dry_run=True) == sorted([orphan, stray])
    assert len(s3.keys()) == 5  # a dry run deletes nothing
    assert sweep_orphan_files(older_than=grace) == sorted([orphan, stray])
    assert s3.keys() == sorted(f"{PREFIX}/{n}" for n in (kept.pdf.name, outside, young))
    kept.refresh_from_db()
    assert kept.pdf.read() == b"%PDF-1.7 kept"


@pytest.mark.django_db
def test_readiness_fails_for_a_missing_bucket_or_a_stopped_server(s3, settings, client):
    settings.HEALTHZ_TOKEN = "s3-probe-token"
    client.defaults["HTTP_AUTHORIZATION"] = "Bearer s3-probe-token"
    with override_settings(REDIS_URL="", CELERY_TASK_ALWAYS_EAGER=True):
        ready = client.get("/readyz")
        assert ready.status_code == 200, ready.json()
        assert ready.json()["checks"]["storage"] == {"ok": True, "detail": f"s3 bucket {s3.name}"}

        s3.client.delete_bucket(Bucket=s3.name)
        missing = client.get("/readyz")
        assert missing.status_code == 503 and missing.json()["failing"] == ["storage"]
        detail = missing.json()["checks"]["storage"]["detail"]
        assert s3.name in detail and "404" in detail

        # A server of its own, stopped: the probe answers within its short timeout.
        moto = start_moto()
        moto.client().create_bucket(Bucket=s3.name)
        options = settings.STORAGES["default"]["OPTIONS"]
        settings.STORAGES = {
            **settings.STORAGES,
            "default": {**settings.STORAGES["default"], "OPTIONS": {**options}},
        }
        settings.STORAGES["default"]["OPTIONS"]["endpoint_url"] = moto.endpoint
        assert client.get("/readyz").status_code == 200
        moto.server.stop()
        started = time.monotonic()
        stopped = client.get("/readyz")
        took = time.monotonic() - started
        assert stopped.status_code == 503 and stopped.json()["failing"] == ["storage"]
        assert "Could not connect" in stopped.json()["checks"]["storage"]["detail"]
        assert took < 10, f"the probe took {took:.1f} s"
    assert storage_status()["ok"] is False  # never raises


def test_s3_bucket_switches_the_default_storage_in_production_settings(tmp_path):
    """The settings block itself: S3_* variables → the S3 backend with private, non-overwriting,
    signed options; production keeps its own static files storage; unset → local disk."""
    probe = (
        "import json, django; django.setup(); from django.conf import settings; "
        "print(json.dumps(settings.STORAGES))"
    )
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("S3_", "DJANGO_", "AWS_"))}
    base_env.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY="x" * 50,
        DJANGO_MEDIA_ROOT=str(tmp_path),
    )

    def storages(**extra):
        out = subprocess.run(
            [sys.executable, "-c", probe],
            cwd=ROOT,
            env={**base_env, **extra},
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )

        return json.loads(out.stdout.strip().splitlines()[-1])

    local = storages()
    assert local["default"]["BACKEND"] == "django.core.files.storage.FileSystemStorage"
    assert local["staticfiles"]["BACKEND"].startswith("whitenoise.")
    minio = storages(
        S3_BUCKET="evidence",
        S3_ENDPOINT_URL="http://minio:9000",
        S3_REGION="us-east-1",
        S3_ACCESS_KEY_ID="key",
        S3_SECRET_ACCESS_KEY="secret",
        S3_PREFIX="/shortlist/",
    )
    assert minio["staticfiles"] == local["staticfiles"]
    assert minio["default"] == {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": "evidence",
            "endpoint_url": "http://minio:9000",
            "region_name": "us-east-1",
            "access_key": "key",
            "secret_key": "secret",
            "location": "shortlist",
            "addressing_style": "path",
            "default_acl": None,
            "file_overwrite": False,
            "querystring_auth": True,
            "max_memory_size": 2 * 1024 * 1024,
        },
    }
    aws = storages(S3_BUCKET="evidence")["default"]["OPTIONS"]
    assert aws["endpoint_url"] is None and aws["access_key"] is None  # boto3's own chain
    assert aws["addressing_style"] == "auto"
