"""Importing measured values, the checks: files refused whole, and every kind of row error named
by row and column, in CSV and JSON (table tests)."""

import json
from decimal import Decimal as D

import pytest
from django.core.exceptions import ValidationError

from evaluations import services as ev
from poc import services
from poc.imports import files as import_files
from poc.models import Score
from tests.poc.imports.support import (
    GOOD,
    as_csv,
    csv_file,
    errors_of,
    run,
)

pytestmark = pytest.mark.django_db


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
