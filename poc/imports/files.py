"""Reading a measurements file: its name, size and UTF-8 text, then its rows as written (a CSV
header line or JSON objects), with the errors of the file's structure. What the rows name is
checked in services.py."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from common.parsing import InputRefused, json_loads

from ..services.evidence import MARKUP, clean_file_name

if TYPE_CHECKING:
    from evaluations.models import Candidate

    from ..models import PlanCase

MAX_BYTES = getattr(settings, "IMPORT_MAX_BYTES", 512 * 1024)
MAX_ROWS = 5000
MAX_TEXT = 100  # run id, tool, unit
TYPES = {".csv": "text/csv", ".json": "application/json"}
COLUMNS = ("candidate", "case", "value", "unit", "run_id", "measured_at", "tool", "reviewer")
REQUIRED = ("candidate", "case", "value")
ALIASES = {
    "candidate_id": "candidate",
    "candidate_name": "candidate",
    "case_key": "case",
    "case_id": "case",
    "metric_value": "value",
    "measured_value": "value",
    "run": "run_id",
    "measured": "measured_at",
    "date": "measured_at",
}


@dataclass
class RowError:
    row: int  # CSV: the line of the file, the header being 1; JSON: the item, from 1
    column: str  # "" for the row as a whole
    message: str

    def as_dict(self) -> dict:
        return {"row": self.row, "column": self.column, "message": self.message}


@dataclass
class Row:
    number: int
    values: dict  # column -> value as read
    case: PlanCase | None = None
    candidate: Candidate | None = None
    value: Decimal | None = None
    measured_at: datetime | None = None


# --- reading the file ----------------------------------------------------------------------


def file_error(message: str) -> ValidationError:
    return ValidationError({"file": [message]})


def read_upload(upload) -> tuple[str, bytes]:
    """The name and bytes of an uploaded file, refused early when too large."""
    if upload.size > MAX_BYTES:
        raise file_error(too_large(upload.size))
    return upload.name, b"".join(upload.chunks())


def too_large(size: int) -> str:
    return _("The file is %(size)s bytes; an import takes at most %(max)s.") % {
        "size": size,
        "max": MAX_BYTES,
    }


def decode(name: str, content: bytes) -> tuple[str, str]:
    """(format, text): the file's kind by its name (.csv or .json) and its UTF-8 text."""
    name = clean_file_name(name)
    suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if suffix not in TYPES:
        raise file_error(_("Import a .csv or a .json file."))
    if len(content) > MAX_BYTES:
        raise file_error(too_large(len(content)))
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise file_error(_("The file is not UTF-8 text; save it as UTF-8 and try again.")) from None
    if "\x00" in text:
        raise file_error(_("The file contains NUL characters; it is not a text file."))
    if text.lstrip()[:64].lower().encode().startswith(MARKUP):
        raise file_error(_("The file is markup (HTML, SVG or XML), not measurements."))
    return suffix[1:], text


def _column(name: str) -> str:
    key = "_".join(str(name).strip().lower().replace("-", " ").split())
    return ALIASES.get(key, key)


def _columns(names, row: int) -> tuple[list[str], list[str], list[RowError]]:
    """Normalised column names, the ignored ones, and header errors."""
    errors, seen, ignored = [], set(), []
    out = [_column(n) for n in names]
    for original, col in zip(names, out, strict=True):
        if col in seen:
            errors.append(RowError(row, str(original), _("This column appears twice.")))
        seen.add(col)
        if col not in COLUMNS and col not in ignored:
            ignored.append(col)
    return out, ignored, errors


def parse_csv(text: str) -> tuple[list[Row], list[str], list[RowError]]:
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    delimiter = max(",;\t", key=first.count) if first else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        records = [(reader.line_num, cells) for cells in reader]
    except csv.Error as exc:
        raise file_error(
            _("The CSV cannot be read at line %(line)s: %(error)s.")
            % {"line": reader.line_num, "error": exc}
        ) from None
    records = [(n, cells) for n, cells in records if any(c.strip() for c in cells)]
    if not records:
        raise file_error(_("The file is empty: it needs a header line and one row or more."))
    header_line, header = records[0]
    columns, ignored, errors = _columns(header, header_line)
    missing = [c for c in REQUIRED if c not in columns]
    for col in missing:
        errors.append(RowError(header_line, col, _("This column is missing; every row needs it.")))
    rows = []
    for number, cells in records[1:]:
        if len(cells) > len(columns):
            errors.append(RowError(number, "", _("This row has more cells than the header.")))
            continue
        rows.append(Row(number, dict(zip(columns, cells, strict=False))))
    return rows, ignored, errors


def parse_json(text: str) -> tuple[list[Row], list[str], list[RowError]]:
    try:
        data = json_loads(text, parse_float=Decimal, parse_constant=lambda name: name)
    except InputRefused as exc:
        raise file_error(str(exc)) from None
    except ValueError as exc:
        raise file_error(_("The file is not valid JSON: %(error)s.") % {"error": exc}) from None
    if isinstance(data, dict):
        data = data.get("measurements")
    if not isinstance(data, list):
        raise file_error(
            _('Give a JSON list of measurements, or an object with a "measurements" list.')
        )
    rows, errors, ignored = [], [], []
    for number, item in enumerate(data, start=1):
        if not isinstance(item, dict):
            errors.append(RowError(number, "", _("Each measurement is an object of keys.")))
            continue
        columns, extra, header_errors = _columns(list(item), number)
        errors += header_errors
        ignored += [c for c in extra if c not in ignored]
        values = dict(zip(columns, item.values(), strict=True))
        for col in REQUIRED:
            if col not in values:
                errors.append(RowError(number, col, _("This key is missing.")))
        rows.append(Row(number, values))
    return rows, ignored, errors


def parse(name: str, content: bytes) -> tuple[list[Row], list[str], list[RowError]]:
    """Rows as read, the ignored columns and the errors of the file's structure."""
    kind, text = decode(name, content)
    rows, ignored, errors = (parse_csv if kind == "csv" else parse_json)(text)
    if not rows and not errors:
        raise file_error(_("The file has no measurements."))
    if len(rows) > MAX_ROWS:
        raise file_error(
            _("The file has %(n)s rows; an import takes at most %(max)s.")
            % {"n": len(rows), "max": MAX_ROWS}
        )
    return rows, ignored, errors
