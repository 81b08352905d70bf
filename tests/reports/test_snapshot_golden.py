"""The demo's report snapshots, byte for byte: what a report of the demo seals must not change
when code moves between apps (each app builds its own report sections) or is reorganised.

The demo is loaded at a fixed instant with the row counters restarted, so its timestamps and
keys are the same on every run and database; both languages' snapshots are compared with the
recorded JSON in tests/reports/golden/ (gzipped), and their seals with the recorded SHA-256.

A change that is meant to change the report (a new field, a new schema version) records new
files: `SHORTLIST_RECORD_GOLDEN=1 pytest tests/reports/test_snapshot_golden.py`; the test's
failure names the first value that differs."""

from __future__ import annotations

import gzip
import json
import os
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path

import pytest
import time_machine
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.utils.translation import gettext, override

from evaluations.demo import DEMO_TITLES
from evaluations.models import Evaluation
from reports.snapshot import build_snapshot, snapshot_json, snapshot_sha256

GOLDEN = Path(__file__).parent / "golden"
LOADED_AT = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
GENERATED_AT = "2026-03-09T10:00:00+00:00"
RECORD = os.environ.get("SHORTLIST_RECORD_GOLDEN") == "1"

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def restart_counters() -> None:
    """Each table's next key follows its current largest (1 when empty), as on a fresh
    database, whatever rolled-back tests before this one used."""
    with connection.cursor() as cursor:
        for model in apps.get_models(include_auto_created=True):
            table, pk = model._meta.db_table, model._meta.pk
            if not pk.get_internal_type().endswith("AutoField"):
                continue
            if connection.vendor == "postgresql":
                cursor.execute(
                    "SELECT setval(pg_get_serial_sequence(%s, %s), "
                    f'coalesce(max("{pk.column}"), 1), max("{pk.column}") IS NOT null) '
                    f'FROM "{table}"',
                    [table, pk.column],
                )
            else:
                cursor.execute("DELETE FROM sqlite_sequence WHERE name = %s", [table])
                cursor.execute(
                    "INSERT INTO sqlite_sequence (name, seq) "
                    f'SELECT %s, coalesce(max("{pk.column}"), 0) FROM "{table}"',
                    [table],
                )


def first_difference(recorded, built, path="$") -> str:
    if type(recorded) is not type(built):
        return f"{path}: {recorded!r:.120} became {built!r:.120}"
    if isinstance(recorded, dict):
        for key in sorted(set(recorded) | set(built)):
            if key not in built or key not in recorded:
                return f"{path}.{key}: only in the {'recorded' if key in recorded else 'new'}"
            if recorded[key] != built[key]:
                return first_difference(recorded[key], built[key], f"{path}.{key}")
    if isinstance(recorded, list):
        if len(recorded) != len(built):
            return f"{path}: {len(recorded)} items became {len(built)}"
        for i, (a, b) in enumerate(zip(recorded, built, strict=True)):
            if a != b:
                return first_difference(a, b, f"{path}[{i}]")
    return f"{path}: {recorded!r:.120} became {built!r:.120}"


def test_the_demo_reports_seal_the_recorded_bytes():
    with override("zh-hans"):  # the recorded Chinese reports are in Chinese
        assert gettext("Decision") != "Decision", "compile the translations (make translations)"
    restart_counters()
    with time_machine.travel(LOADED_AT, tick=False):
        call_command("demo", stdout=StringIO())
    built = {}
    for language, title in DEMO_TITLES.items():
        evaluation = Evaluation.objects.get(title=title)
        for report_language in ("en", "zh-hans"):
            snapshot = build_snapshot(
                evaluation, language=report_language, generated_at=GENERATED_AT
            )
            built[f"demo-{language}.report-{report_language}"] = snapshot
    seals_file = GOLDEN / "seals.json"
    seals = {name: snapshot_sha256(snapshot) for name, snapshot in built.items()}
    if RECORD:
        GOLDEN.mkdir(exist_ok=True)
        for name, snapshot in built.items():
            # mtime=0: the same bytes give the same file, so an unchanged report is no diff
            packed = gzip.compress(snapshot_json(snapshot), compresslevel=9, mtime=0)
            (GOLDEN / f"{name}.json.gz").write_bytes(packed)
        seals_file.write_text(json.dumps(seals, indent=2, sort_keys=True) + "\n")
    recorded_seals = json.loads(seals_file.read_text())
    assert sorted(recorded_seals) == sorted(built)
    for name, snapshot in built.items():
        recorded = gzip.decompress((GOLDEN / f"{name}.json.gz").read_bytes())
        if snapshot_json(snapshot) != recorded:
            pytest.fail(f"{name}: {first_difference(json.loads(recorded), snapshot)}")
        assert seals[name] == recorded_seals[name], name
