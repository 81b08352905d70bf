"""Stored files no row refers to are swept once they are past the grace period."""

import os
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings as django_settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import transaction

from common import tasks
from common.files import orphan_files, sweep_orphan_files
from reports.models import ReportRun

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)  # resets default_storage's location
    return tmp_path


def age(name: str, seconds: int = 7200) -> None:
    past = time.time() - seconds
    os.utime(default_storage.path(name), (past, past))


def run_for(evaluation, owner) -> ReportRun:
    return ReportRun.objects.create(
        evaluation=evaluation, requested_by=owner, language="en", snapshot={}, sections=[]
    )


def test_a_file_left_by_a_rolled_back_transaction_is_swept(evaluation, owner):
    kept = run_for(evaluation, owner)
    kept.pdf.save("kept.pdf", ContentFile(b"%PDF-1.7 kept"))
    lost = run_for(evaluation, owner)
    with pytest.raises(RuntimeError), transaction.atomic():
        lost.pdf.save("lost.pdf", ContentFile(b"%PDF-1.7 lost"))  # row and file written...
        raise RuntimeError("the render failed after saving")  # ...and the row rolled back
    lost_name = lost.pdf.name
    assert default_storage.exists(lost_name)
    evidence = default_storage.save("evidence/2026/11/stray.txt", ContentFile(b"log"))
    young = default_storage.save("evidence/2026/11/in-flight.txt", ContentFile(b"log"))
    for name in (kept.pdf.name, lost_name, evidence):
        age(name)

    assert orphan_files(older_than=HOUR) == sorted([lost_name, evidence])
    assert sweep_orphan_files(older_than=HOUR, dry_run=True) == sorted([lost_name, evidence])
    assert default_storage.exists(lost_name)  # a dry run deletes nothing

    assert sweep_orphan_files(older_than=HOUR) == sorted([lost_name, evidence])
    assert not default_storage.exists(lost_name) and not default_storage.exists(evidence)
    assert default_storage.exists(kept.pdf.name)  # referenced
    assert default_storage.exists(young)  # within the grace period
    kept.refresh_from_db()
    assert kept.pdf.read() == b"%PDF-1.7 kept"


def test_the_command_and_the_beat_job(evaluation, owner):
    stray = default_storage.save("reports/2026/11/stray.pdf", ContentFile(b"%PDF"))
    age(stray)
    out = StringIO()
    call_command("sweep_files", "--dry-run", stdout=out)
    assert f"Would delete {stray}" in out.getvalue() and default_storage.exists(stray)
    call_command("sweep_files", stdout=out)
    assert "Deleted 1 unreferenced file(s)." in out.getvalue()
    assert not default_storage.exists(stray)
    age(default_storage.save("reports/2026/11/another.pdf", ContentFile(b"%PDF")))
    assert tasks.sweep_orphan_files() == 1  # what beat runs every hour
    schedule = django_settings.CELERY_BEAT_SCHEDULE
    assert any(job["task"] == "common.sweep_orphan_files" for job in schedule.values())


def test_nothing_to_sweep_in_an_empty_storage():
    assert orphan_files(older_than=timedelta(0)) == []
