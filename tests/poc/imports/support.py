"""What the measurement-import tests share: the example files, a good row and CSV built from
rows, running an import, and the API request."""

from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from poc.imports import services as imports

EXAMPLES = Path(__file__).resolve().parents[3] / "poc" / "examples"


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


def api_for(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def url(poc):
    return f"/api/evaluations/{poc['e'].pk}/poc/imports/"


def upload(content: bytes, name="m.csv"):
    return SimpleUploadedFile(name, content, "text/csv")
