"""Importing measured values from a benchmark script's CSV or JSON file.

A file is read (size, name, UTF-8), parsed into rows (CSV header or JSON keys: files.py), and
each row is checked: which candidate and which plan case it names, the number, the unit, the
date, a second row for the same cell, a cell I already submitted, a row naming another
reviewer. The rows that pass are then saved through `poc.services.score_save`, one call per row
inside one transaction, so every rule of a typed score applies too. Any error anywhere and
nothing is kept; a preview (dry run) always rolls back. Only my own scores are read or written:
nothing of other reviewers' scores is shown beyond what the scorecard already shows me (blind
scoring).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _

from common.exceptions import Conflict, DomainError
from common.numbers import parse_decimal
from evaluations.locking import evaluation_lock_for
from evaluations.models import Candidate, Evaluation

from ..models import Evidence, Outcome, PlanCase, Score
from ..selectors import plan_cases, scorecard
from ..services.evidence import clean_file_name
from ..services.scores import score_save
from .files import (
    COLUMNS,
    MAX_TEXT,
    REQUIRED,
    TYPES,
    Row,
    RowError,
    parse,
)
from .models import MeasurementImport

# Where score_save's field errors show in the file.
SERVICE_COLUMNS = {"measured_value": "value", "score": "value", "case": "case"}


@dataclass
class Change:
    """What one row does to my score for its cell."""

    row: int
    case: PlanCase
    candidate: Candidate
    old_value: Decimal | None
    new_value: Decimal
    old_score: Decimal | None
    new_score: Decimal | None
    conflicts: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "row": self.row,
            "case": self.case.pk,
            "case_title": self.case.shown_title,
            "candidate": self.candidate.pk,
            "candidate_name": self.candidate.name,
            "unit": self.case.metric_unit,
            "old_value": self.old_value,
            "new_value": self.new_value,
            "old_score": self.old_score,
            "new_score": self.new_score,
            "conflicts": self.conflicts,
        }


@dataclass
class ImportResult:
    name: str
    sha256: str
    size: int
    content_type: str = ""
    rows: int = 0
    ignored_columns: list[str] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    state: str = ""  # the versions of my scores on the file's cells, as previewed
    applied: bool = False
    record: MeasurementImport | None = None


class _Rollback(Exception):
    pass


# --- checking the rows ---------------------------------------------------------------------


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, dict | list | bool):
        raise ValueError
    return str(value).strip()


def _lookup(items: dict, named: dict, text: str):
    """An item by id (digits) or by name (any other text): (item or None, ambiguous)."""
    if text.isascii() and text.isdigit():
        return items.get(int(text)), False
    found = named.get(text.casefold(), [])
    return (found[0] if len(found) == 1 else None), len(found) > 1


def _date(text: str) -> datetime:
    try:
        moment = parse_datetime(text)
        if moment is None:
            day = parse_date(text)
            if day is None:
                raise ValueError
            moment = datetime.combine(day, time())
    except ValueError:
        raise ValidationError(
            _("Not a date: use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS with an optional time zone.")
        ) from None
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    if moment > timezone.now() + timedelta(days=1):
        raise ValidationError(_("This date is in the future."))
    return moment


class Checker:
    """Resolves and checks rows against one evaluation's plan and candidates, for one user."""

    def __init__(self, evaluation: Evaluation, user):
        self.user = user
        cases = list(plan_cases(evaluation))
        for case in cases:
            case.evaluation = evaluation
        self.cases = {c.pk: c for c in cases}
        self.case_keys: dict[str, list] = {}
        for case in cases:
            if case.source_case_id:
                self.case_keys.setdefault(case.source_case.key.casefold(), []).append(case)
        candidates = list(
            Candidate.objects.filter(evaluation=evaluation).select_related("solution")
        )
        for candidate in candidates:
            candidate.evaluation = evaluation
        self.candidates = {c.pk: c for c in candidates}
        self.candidate_names: dict[str, list] = {}
        for candidate in candidates:
            self.candidate_names.setdefault(candidate.name.strip().casefold(), []).append(candidate)
        self.mine = {
            (s.case_id, s.candidate_id): s
            for s in Score.objects.filter(case__evaluation=evaluation, reviewer=user)
        }

    def check(self, rows: list[Row]) -> list[RowError]:
        errors: list[RowError] = []
        seen: dict[tuple[int, int], int] = {}
        for row in rows:
            before = len(errors)
            texts = {}
            for col in COLUMNS:
                try:
                    texts[col] = _text(row.values.get(col))
                except ValueError:
                    errors.append(RowError(row.number, col, _("Give a single value here.")))
            if len(errors) > before:
                continue
            errors += self._check_row(row, texts)
            if len(errors) > before or row.case is None or row.candidate is None:
                continue
            cell = (row.case.pk, row.candidate.pk)
            if cell in seen:
                errors.append(
                    RowError(
                        row.number,
                        "",
                        _("Row %(n)s already gives a value for this case and candidate.")
                        % {"n": seen[cell]},
                    )
                )
                continue
            seen[cell] = row.number
            mine = self.mine.get(cell)
            if mine is not None and mine.submitted:
                errors.append(
                    RowError(
                        row.number,
                        "",
                        _("You submitted this score; submitted scores are final."),
                    )
                )
        return errors

    def _check_row(self, row: Row, texts: dict) -> list[RowError]:
        errors = []

        def error(col, message):
            errors.append(RowError(row.number, col, message))

        for col in ("run_id", "tool", "unit", "reviewer"):
            if len(texts[col]) > MAX_TEXT:
                error(col, _("At most %(n)s characters.") % {"n": MAX_TEXT})
        if texts["reviewer"] and texts["reviewer"] != self.user.get_username():
            error(
                "reviewer",
                _("You can import only your own measurements; this row names someone else."),
            )
        for col in REQUIRED:
            if not texts[col] and col in row.values:  # a missing column or key is said once
                error(col, _("Required."))
        if texts["candidate"]:
            row.candidate, ambiguous = _lookup(
                self.candidates, self.candidate_names, texts["candidate"]
            )
            if ambiguous:
                error("candidate", _("Several candidates have this name; give its id instead."))
            elif row.candidate is None:
                error(
                    "candidate",
                    _("No candidate of this evaluation is called or numbered “%(c)s”.")
                    % {"c": texts["candidate"]},
                )
        if texts["case"]:
            row.case, _ambiguous = _lookup(self.cases, self.case_keys, texts["case"])
            if row.case is None:
                error(
                    "case",
                    _("The plan has no case with the key or id “%(c)s”.") % {"c": texts["case"]},
                )
            elif not row.case.has_metric:
                error("case", _("This case has no metric; score it on the scorecard instead."))
            elif texts["unit"] and texts["unit"] != row.case.metric_unit:
                error(
                    "unit",
                    _("The case is measured in “%(case)s”, not “%(row)s”.")
                    % {"case": row.case.metric_unit or _("no unit"), "row": texts["unit"]},
                )
        raw = row.values.get("value")
        if texts["value"]:
            try:
                row.value = parse_decimal(raw if isinstance(raw, int | Decimal) else texts["value"])
            except ValidationError as exc:
                error("value", exc.messages[0])
        if texts["measured_at"]:
            try:
                row.measured_at = _date(texts["measured_at"])
            except ValidationError as exc:
                error("measured_at", exc.messages[0])
        return errors

    def state(self, rows: list[Row]) -> str:
        """A fingerprint of the versions of my scores on the rows' cells (0: none yet)."""
        cells = sorted({(r.case.pk, r.candidate.pk) for r in rows})
        versions = [(c, d, getattr(self.mine.get((c, d)), "version", 0)) for c, d in cells]
        return hashlib.sha256(json.dumps(versions).encode()).hexdigest()[:32]


# --- preview and apply ---------------------------------------------------------------------


def _conflicts(row: Row, mine: Score | None, new_score, cell) -> list[str]:
    out = []
    typed = mine is not None and mine.score is not None and mine.measured_value is None
    if typed and new_score is not None and mine.score != new_score:
        out.append(
            _("Your typed score %(old)s becomes %(new)s, the score of the measured value.")
            % {"old": mine.score, "new": new_score}
        )
    if mine is not None and mine.outcome != Outcome.NOT_RUN:
        outcome = mine.get_outcome_display()
        out.append(_("The outcome you recorded (%(o)s) is kept.") % {"o": outcome})
    if cell is not None and cell.consensus is not None:
        out.append(
            _("The cell has an agreed score of %(s)s; it still counts, not this value.")
            % {"s": cell.consensus.score}
        )
    return out


def _service_errors(number: int, exc: Exception) -> list[RowError]:
    if isinstance(exc, DomainError):
        return [RowError(number, "", exc.message)]
    if hasattr(exc, "error_dict"):
        return [
            RowError(number, SERVICE_COLUMNS.get(key, ""), message)
            for key, errors in exc.message_dict.items()
            for message in errors
        ]
    return [RowError(number, "", message) for message in exc.messages]


def run(
    *,
    user,
    evaluation: Evaluation,
    name: str,
    content: bytes,
    apply: bool,
    expected_state: str | None = None,
) -> ImportResult:
    """Preview (apply False: nothing is kept) or apply an import of my measured values.

    File-level refusals raise ValidationError({"file": ...}); row errors come back in the
    result (and nothing is kept). With `expected_state` (the preview's), scores of mine that
    changed since the preview refuse the whole import (Conflict)."""
    result = ImportResult(
        name=name,
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
    )
    try:
        with transaction.atomic():
            evaluation_lock_for(user, evaluation, "poc.score")
            rows, result.ignored_columns, result.errors = parse(name, content)
            result.name = clean_file_name(name)
            result.content_type = TYPES["." + result.name.rsplit(".", 1)[-1].lower()]
            result.rows = len(rows)
            mine = Score.objects.select_for_update().filter(case__evaluation=evaluation)
            list(mine.filter(reviewer=user))  # my scores stay as checked until the end
            checker = Checker(evaluation, user)
            result.errors += checker.check(rows)
            if result.errors:
                raise _Rollback
            result.state = checker.state(rows)
            if expected_state is not None and expected_state != result.state:
                raise Conflict(
                    _(
                        "Your scores for these cells changed since the preview; preview the "
                        "file again."
                    )
                )
            _save_rows(result, rows, checker, scorecard(evaluation, user))
            if result.errors or not apply:
                raise _Rollback
            result.record = _keep_file(result, rows, user, evaluation, content)
            result.applied = True
    except _Rollback:
        if result.errors:
            result.changes = []  # nothing would change
    result.errors.sort(key=lambda e: e.row)
    return result


def _save_rows(result: ImportResult, rows: list[Row], checker: Checker, card) -> None:
    cells = {(c.case.pk, c.candidate.pk): c for c in card.cells()}
    for row in rows:
        cell_key = (row.case.pk, row.candidate.pk)
        mine = checker.mine.get(cell_key)
        try:
            saved = score_save(
                user=checker.user,
                case=row.case,
                candidate=row.candidate,
                measured_value=row.value,
                outcome=mine.outcome if mine else Outcome.NOT_RUN,
                notes=mine.notes if mine else "",
                expected_version=mine.version if mine else None,
            )
        except (ValidationError, DomainError) as exc:
            result.errors += _service_errors(row.number, exc)
            continue
        result.changes.append(
            Change(
                row=row.number,
                case=row.case,
                candidate=row.candidate,
                old_value=mine.measured_value if mine else None,
                new_value=saved.measured_value,
                old_score=mine.score if mine else None,
                new_score=saved.score,
                conflicts=_conflicts(row, mine, saved.score, cells.get(cell_key)),
            )
        )
        row.values["_score"] = saved.pk


def _keep_file(result, rows, user, evaluation, content: bytes) -> MeasurementImport:
    record = MeasurementImport(
        evaluation=evaluation,
        reviewer=user,
        original_name=result.name,
        content_type=result.content_type,
        size=result.size,
        sha256=result.sha256,
        row_count=len(rows),
        rows=[
            {
                "row": r.number,
                "case": r.case.pk,
                "candidate": r.candidate.pk,
                "value": str(r.value),
                "unit": r.case.metric_unit,
                "run_id": _text(r.values.get("run_id")),
                "measured_at": r.measured_at.isoformat() if r.measured_at else "",
                "tool": _text(r.values.get("tool")),
                "score": r.values["_score"],
            }
            for r in rows
        ],
    )
    suffix = "." + result.name.rsplit(".", 1)[-1].lower()
    record.file.save(f"{uuid.uuid4().hex}{suffix}", ContentFile(content), save=False)
    record._history_user = user
    record.save()
    score_ids = [r.values["_score"] for r in rows]
    record.scores.set(score_ids)
    Evidence.objects.bulk_create(
        Evidence(
            score_id=pk,
            file=record.file.name,
            original_name=result.name,
            content_type=result.content_type,
            size=result.size,
            sha256=result.sha256,
            uploaded_by=user,
        )
        for pk in score_ids
    )
    return record


def my_imports(evaluation: Evaluation, user):
    """My imports of this evaluation, newest first (never another reviewer's)."""
    return MeasurementImport.objects.filter(evaluation=evaluation, reviewer=user)
