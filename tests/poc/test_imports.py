"""Importing measured values: the file and row checks (table tests, CSV and JSON), the service
(all-or-nothing, evidence, submitted cells, blind scoring), the API and the page."""

import hashlib
import json
import re
from decimal import Decimal as D
from html import unescape
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from common import roles
from common.exceptions import Conflict, Forbidden
from evaluations import services as ev
from evaluations.models import MemberRole
from poc import services
from poc.imports import files as import_files
from poc.imports import services as imports
from poc.models import Evidence, MeasurementImport, Score, TestGroup
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, declare_none

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[2] / "poc" / "examples"


@pytest.fixture
def poc(evaluation, owner, people):
    slurm, volcano, _runai = add_candidates(evaluation, owner, "slurm", "volcano", "runai")
    services.plan_init(user=owner, evaluation=evaluation)
    second = make_user(roles.REVIEWER, username="rev2")
    add_member(evaluation, second, MemberRole.REVIEWER)
    declare_none(evaluation, owner, people[MemberRole.REVIEWER], second)
    own = services.plan_case_add_custom(
        user=owner,
        evaluation=evaluation,
        group=TestGroup.objects.order_by("order").first(),
        title="Own start time",
        acceptance="Fast.",
        metric_unit="s",
        metric_direction="lower",
        metric_threshold="30",
    )
    return {
        "e": evaluation,
        "slurm": slurm,
        "volcano": volcano,
        "latency": evaluation.poc_cases.get(source_case__key="preemption_latency"),
        "plain": evaluation.poc_cases.get(source_case__key="queue_priority_backfill"),
        "own": own,
        "r1": people[MemberRole.REVIEWER],
        "r2": second,
    }


def csv_file(*lines: str) -> bytes:
    return (
        "\n".join(["candidate,case,value,unit,run_id,measured_at,tool", *lines]) + "\n"
    ).encode()


def run(poc, content: bytes, name="m.csv", user=None, apply=False, **kwargs):
    return imports.run(
        user=user or poc["r1"],
        evaluation=poc["e"],
        name=name,
        content=content,
        apply=apply,
        **kwargs,
    )


def errors_of(result) -> list[tuple[int, str, str]]:
    return [(e.row, e.column, e.message) for e in result.errors]


# --- the file ------------------------------------------------------------------------------

FILE_REFUSALS = [
    ("m.txt", b"candidate,case,value\n", "Import a .csv or a .json file."),
    ("../m.csv", b"candidate,case,value\n", "may not contain a path"),
    ("m.csv", "candidate,case,value\nSlurm,x,\xe9\n".encode("latin-1"), "not UTF-8"),
    ("m.csv", b"candidate,case\x00,value\n", "NUL"),
    ("m.csv", b"<html><body>hi</body></html>", "markup"),
    ("m.csv", b"\n\n", "empty"),
    ("m.csv", b"candidate,case,value\n", "no measurements"),
    ("m.json", b"{not json", "not valid JSON"),
    ("m.json", b'{"rows": []}', "measurements"),
    ("m.json", b"42", "measurements"),
    ("m.csv", b'candidate,case,value\n"Slurm,x,1\n', "cannot be read"),
]


@pytest.mark.parametrize(("name", "content", "message"), FILE_REFUSALS)
def test_files_refused_whole(poc, name, content, message):
    with pytest.raises(ValidationError) as exc:
        run(poc, content, name=name)
    assert message in " ".join(exc.value.message_dict["file"])


def test_too_large_and_too_many_rows(poc, settings):
    with pytest.raises(ValidationError, match="at most"):
        run(poc, b"x" * (import_files.MAX_BYTES + 1))
    lines = [f"Slurm,preemption_latency,{i}" for i in range(import_files.MAX_ROWS + 1)]
    with pytest.raises(ValidationError, match="rows"):
        run(poc, csv_file(*lines))


# --- the rows: every kind of error, in CSV and JSON ------------------------------------------


def row_cases(poc):
    """(row values, column, message part) for one bad row; the same table runs as CSV and JSON."""
    p = poc
    return [
        ({"candidate": "Nomad"}, "candidate", "No candidate"),
        ({"candidate": "999999"}, "candidate", "No candidate"),
        ({"case": "no_such_case"}, "case", "no case with the key"),
        ({"case": str(p["plain"].pk + 100000)}, "case", "no case with the key"),
        ({"case": "queue_priority_backfill"}, "case", "has no metric"),
        ({"unit": "ms"}, "unit", "measured in “s”, not “ms”"),
        ({"value": "12,5"}, "value", "plain number"),
        ({"value": "1e3"}, "value", "plain number"),
        ({"value": "NaN"}, "value", "plain number"),
        ({"value": "=1+2"}, "value", "plain number"),
        ({"value": "١٢"}, "value", "plain number"),
        ({"value": ""}, "value", "Required"),
        ({"value": "12.12345"}, "value", "decimal places"),
        ({"measured_at": "yesterday"}, "measured_at", "Not a date"),
        ({"measured_at": "2027-02-30"}, "measured_at", "Not a date"),
        ({"measured_at": "2999-01-01"}, "measured_at", "future"),
        ({"tool": "x" * 101}, "tool", "At most 100"),
        ({"reviewer": "someone-else"}, "reviewer", "only your own"),
    ]


GOOD = {
    "candidate": "Slurm",
    "case": "preemption_latency",
    "value": "42",
    "unit": "s",
    "run_id": "r1",
    "measured_at": "2026-01-02",
    "tool": "bench.py",
}


def as_csv(*rows: dict) -> bytes:
    columns = list(dict.fromkeys(k for r in rows for k in r))
    lines = [",".join(columns)] + [",".join(f'"{r.get(c, "")}"' for c in columns) for r in rows]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("kind", ["csv", "json"])
def test_each_row_error_names_row_and_column(poc, kind):
    for change, column, message in row_cases(poc):
        good = {**GOOD, "candidate": "Volcano"}
        bad = {**GOOD, **change}
        if kind == "csv":
            content, name, row = as_csv(good, bad), "m.csv", 3
        else:
            content, name, row = json.dumps([good, bad]).encode(), "m.json", 2
        result = run(poc, content, name=name)
        assert [(e.row, e.column) for e in result.errors] == [(row, column)], (change, result)
        assert message in result.errors[0].message, (change, result.errors[0].message)
        assert not result.changes and not Score.objects.exists()


def test_json_specific_errors(poc):
    cases = [
        ([GOOD, 5], (2, ""), "object"),
        ([{**GOOD, "value": [1]}], (1, "value"), "single value"),
        ([{**GOOD, "value": True}], (1, "value"), "single value"),
        ([{"candidate": "Slurm", "case": "preemption_latency"}], (1, "value"), "missing"),
    ]
    for data, where, message in cases:
        result = run(poc, json.dumps(data).encode(), name="m.json")
        assert [(e.row, e.column) for e in result.errors] == [where], data
        assert message in result.errors[0].message
    result = run(
        poc, b'[{"candidate": "Slurm", "case": "preemption_latency", "value": NaN}]', "m.json"
    )
    assert errors_of(result)[0][:2] == (1, "value")
    result = run(
        poc, b'[{"candidate": "Slurm", "case": "preemption_latency", "value": 1e3}]', "m.json"
    )
    assert not result.errors and result.changes[0].new_value == D("1000")


def test_csv_header_errors(poc):
    result = run(poc, b"candidate,value\nSlurm,3\n")
    assert (1, "case") in [(e.row, e.column) for e in result.errors]
    result = run(poc, b"candidate,case,value,value\nSlurm,preemption_latency,3,4\n")
    assert any("twice" in e.message for e in result.errors)
    result = run(poc, b"candidate,case,value\nSlurm,preemption_latency,3,4\n")
    assert errors_of(result) == [(2, "", "This row has more cells than the header.")]


def test_duplicate_cell_and_submitted_cell(poc):
    result = run(poc, as_csv(GOOD, {**GOOD, "value": "50"}))
    assert errors_of(result) == [
        (3, "", "Row 2 already gives a value for this case and candidate.")
    ]
    services.score_save(
        user=poc["r1"], case=poc["latency"], candidate=poc["slurm"], score="3", submit=True,
        expected_version=0,
    )  # fmt: skip
    result = run(poc, as_csv(GOOD))
    assert errors_of(result) == [(2, "", "You submitted this score; submitted scores are final.")]


def test_names_ids_aliases_and_ignored_columns(poc):
    content = (
        "Candidate ID;Case Key;Metric Value;Extra\n"
        f"{poc['volcano'].pk};{poc['own'].pk};25;x\n"
        "slurm;PREEMPTION_LATENCY;70;y\n"
    ).encode()
    result = run(poc, content)
    assert not result.errors
    assert result.ignored_columns == ["extra"]
    assert [(c.candidate, c.case, c.new_score) for c in result.changes] == [
        (poc["volcano"], poc["own"], D("4.0")),  # 25 s against 30 s: 10 % better or more
        (poc["slurm"], poc["latency"], D("1.0")),  # 70 s against 60 s: up to 25 % worse
    ]


def test_service_rules_apply_per_row(poc, owner):
    ev.candidate_eliminate(
        user=owner, candidate=poc["volcano"], reason="Out.", expected_version=None
    )
    result = run(poc, as_csv(GOOD, {**GOOD, "candidate": "Volcano"}))
    assert [(e.row, e.column) for e in result.errors] == [(3, "")]
    assert "eliminated" in result.errors[0].message
    assert not Score.objects.exists()


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


# --- the API -------------------------------------------------------------------------------


def api_for(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def url(poc):
    return f"/api/evaluations/{poc['e'].pk}/poc/imports/"


def upload(content: bytes, name="m.csv"):
    return SimpleUploadedFile(name, content, "text/csv")


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
