"""Importing measured values, the service: a preview saves nothing, applying saves all with
evidence or nothing, submitted cells and blind scoring respected."""

import hashlib
import json
from decimal import Decimal as D

import pytest

from common.exceptions import Conflict, Forbidden
from evaluations.models import MemberRole
from poc import services
from poc.models import Evidence, MeasurementImport, Score
from tests.poc.imports.support import (
    EXAMPLES,
    GOOD,
    as_csv,
    run,
)

pytestmark = pytest.mark.django_db


# --- the service: preview, apply, all-or-nothing ---------------------------------------------


def test_preview_saves_nothing_and_apply_saves_all_with_evidence(poc):
    content = (EXAMPLES / "measurements.csv").read_bytes()
    preview = run(poc, content)
    assert not preview.errors, preview.errors
    assert len(preview.changes) == 6 and not preview.applied
    assert not Score.objects.exists() and not MeasurementImport.objects.exists()
    assert not Evidence.objects.exists()
    applied = run(poc, content, apply=True, expected_state=preview.state)
    assert applied.applied and not applied.errors
    scores = Score.objects.filter(reviewer=poc["r1"])
    assert scores.count() == 6 and all(s.submitted_at is None for s in scores)
    latency = scores.get(case=poc["latency"], candidate=poc["volcano"])
    assert (latency.measured_value, latency.score) == (D("71"), D("1.0"))
    record = MeasurementImport.objects.get()
    assert record.sha256 == hashlib.sha256(content).hexdigest() == applied.sha256
    assert record.file.read() == content
    assert record.row_count == 6 and set(record.scores.all()) == set(scores)
    assert record.rows[0]["run_id"] == "run-2026-11-02-a" and record.rows[0]["tool"]
    evidence = Evidence.objects.filter(score__in=scores)
    assert evidence.count() == 6 and {e.sha256 for e in evidence} == {record.sha256}
    assert latency.history.count() == 1


def test_json_example_matches_the_csv_one(poc):
    from_json = run(poc, (EXAMPLES / "measurements.json").read_bytes(), name="m.json")
    from_csv = run(poc, (EXAMPLES / "measurements.csv").read_bytes())
    assert not from_json.errors and len(from_json.changes) == 6
    rows = [{**c.as_dict(), "row": c.row + 1} for c in from_json.changes]  # CSV: after a header
    assert rows == [c.as_dict() for c in from_csv.changes]


def test_one_bad_row_saves_nothing(poc):
    result = run(poc, as_csv(GOOD, {**GOOD, "candidate": "Volcano", "value": "x"}), apply=True)
    assert not result.applied and len(result.errors) == 1
    assert not Score.objects.exists() and not MeasurementImport.objects.exists()


def test_stale_preview_refused(poc):
    content = as_csv(GOOD)
    preview = run(poc, content)
    services.score_save(
        user=poc["r1"], case=poc["latency"], candidate=poc["slurm"], score="4",
        expected_version=0,
    )  # fmt: skip
    with pytest.raises(Conflict, match="changed since the preview"):
        run(poc, content, apply=True, expected_state=preview.state)
    assert Score.objects.get().measured_value is None


def test_typed_score_conflict_and_kept_notes(poc):
    services.score_save(
        user=poc["r1"], case=poc["latency"], candidate=poc["slurm"], score="4", notes="Mine.",
        outcome="passed", expected_version=0,
    )  # fmt: skip
    result = run(poc, as_csv(GOOD), apply=True)
    change = result.changes[0]
    assert (change.old_score, change.new_score) == (D("4.0"), D("5.0"))
    assert any("typed score 4.0 becomes 5.0" in c for c in change.conflicts)
    score = Score.objects.get()
    assert (score.notes, score.outcome, score.measured_value) == ("Mine.", "passed", D("42"))


def test_blind_preview_shows_only_my_scores(poc):
    services.score_save(
        user=poc["r2"], case=poc["latency"], candidate=poc["slurm"], score="1", submit=True,
        expected_version=0,
    )  # fmt: skip
    result = run(poc, as_csv(GOOD), user=poc["r1"])
    change = result.changes[0]
    assert change.old_score is None and change.old_value is None
    assert not any("1.0" in c for c in change.conflicts)
    assert "1.0" not in json.dumps([c.as_dict() for c in result.changes], default=str)


def test_only_scorers_import(poc, people):
    with pytest.raises(Forbidden):
        run(poc, as_csv(GOOD), user=people[MemberRole.VIEWER])
