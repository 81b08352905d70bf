"""What an evaluation archive holds and how it refers to things (portable.export writes it,
portable.reading checks an upload, portable.archive imports it).

The archive holds:

- `evaluation.json`: every row of the evaluation (`PARTS`, in creation order), with
  `"schema_version": 1`;
- `files/<sha256><suffix>`: the evidence files, measurement import files and report PDFs,
  named by their content (a file two rows share is stored once);
- `manifest.json`: the SHA-256 and size of every other file in the archive.

References inside `evaluation.json` never carry database ids:

- a row of the same evaluation: its position (from 0) in its part's list, rows being listed in
  the order they were created (an integer);
- a catalog or library entry (solutions, scenarios, questions, areas, test groups, constraints,
  shared parties, ...): its natural key (`NATURAL_KEYS`, a string);
- a person: their username (a string); `people` gives each one's e-mail for the importer.

Not carried: the rows' change history (django-simple-history); the import starts it with one
record per row. Report snapshots are carried as they were sealed (their SHA-256 must still
match), so they keep the ids of the instance that printed them.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import models

from catalog.models import Capability, Scenario, ShortlistRule, Solution, SolutionType
from evaluations.models import (
    Candidate,
    CandidateLayer,
    Constraint,
    ConstraintWaiver,
    ContextAnswer,
    ContextQuestion,
    Decision,
    Evaluation,
    FiveQuestion,
    Membership,
    QuestionAnswer,
    ReminderAcknowledgement,
    StatusChange,
)
from poc.models import (
    BedEquivalence,
    ConflictDeclaration,
    Consensus,
    Evidence,
    MeasurementImport,
    PlanCase,
    PlanGroup,
    Score,
    TestBed,
    TestCase,
    TestGroup,
)
from reports.models import ReportRun
from responsibility.models import Area, AreaRow, Cell, CostInput, CostSettings, Party, SupportTerm
from signoff.models import Approval

SCHEMA_VERSION = 1
DOCUMENT = "evaluation.json"
MANIFEST = "manifest.json"
FILES = "files/"
CHUNK = 1024 * 1024
# manifest.json lists each file in about 130 bytes: this is room for some 30,000 files.
MANIFEST_MAX_BYTES = 4 * 1024 * 1024
SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Part:
    """One model of an evaluation and the lookup from its rows to the evaluation."""

    model: type[models.Model]
    to_evaluation: str
    # The name the archive lists its rows under, when it is not the model's label: a model that
    # moved to another app keeps the name archives already use (schema version 1).
    archived_as: str = ""

    @property
    def label(self) -> str:
        return self.archived_as or self.model._meta.label_lower


# Every model whose rows belong to one evaluation, in an order where each row refers only to
# rows of parts before it (and to catalog entries and people). tests/portable checks that no
# model pointing at one of these is left out.
PARTS: tuple[Part, ...] = (
    Part(Evaluation, "pk"),
    Part(Membership, "evaluation"),
    Part(ContextAnswer, "evaluation"),
    Part(Party, "evaluation"),  # the evaluation's own parties; shared ones are catalog
    Part(Candidate, "evaluation"),
    Part(CandidateLayer, "candidate__evaluation"),
    Part(QuestionAnswer, "candidate__evaluation"),
    Part(ConstraintWaiver, "candidate__evaluation"),
    Part(Decision, "evaluation"),
    Part(ReminderAcknowledgement, "evaluation"),
    Part(StatusChange, "evaluation"),
    Part(AreaRow, "candidate__evaluation"),
    Part(Cell, "row__candidate__evaluation"),
    Part(CostSettings, "evaluation"),
    Part(CostInput, "candidate__evaluation"),
    Part(SupportTerm, "candidate__evaluation"),
    Part(PlanGroup, "evaluation"),
    Part(PlanCase, "evaluation"),
    Part(Score, "case__evaluation"),
    Part(Evidence, "score__case__evaluation"),
    Part(Consensus, "case__evaluation"),
    Part(ConflictDeclaration, "evaluation"),
    Part(TestBed, "candidate__evaluation"),
    Part(BedEquivalence, "evaluation"),
    Part(MeasurementImport, "evaluation"),
    Part(ReportRun, "evaluation"),
    Part(Approval, "evaluation", archived_as="evaluations.approval"),  # now signoff's
)
PART_OF = {part.model: part for part in PARTS}

# Catalog and library entries an evaluation refers to, by the field that names them in every
# instance. Parties are both: the evaluation's own are rows, the shared ones catalog.
NATURAL_KEYS: dict[type[models.Model], str] = {
    SolutionType: "slug",
    Scenario: "slug",
    Solution: "slug",
    Capability: "slug",
    ShortlistRule: "key",
    ContextQuestion: "key",
    FiveQuestion: "key",
    Constraint: "key",
    Area: "key",
    TestGroup: "key",
    TestCase: "key",
    Party: "key",
}
CATALOG_SCOPE: dict[type[models.Model], dict] = {Party: {"evaluation__isnull": True}}

# JSON fields holding ids of the evaluation's rows: {(model, field): {json key: model}}.
JSON_REFERENCES = {
    (MeasurementImport, "rows"): {"case": PlanCase, "candidate": Candidate, "score": Score},
}


class ArchiveRefused(ValidationError):
    """An archive this instance will not import (or an evaluation it cannot export); the
    message says why and what to do."""


def max_bytes() -> int:
    return settings.PORTABLE_MAX_BYTES


def size_text(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


def user_model():
    return get_user_model()


# Facts about one instance's copy, not about the evaluation: an archive never carries them (the
# import sets them for the copy it makes).
LOCAL_FIELDS = {"evaluations.evaluation": {"imported_from", "imported_at"}}


def row_fields(model):
    """The concrete fields an archive row carries: all but the primary key and the local ones."""
    local = LOCAL_FIELDS.get(model._meta.label_lower, set())
    return [f for f in model._meta.concrete_fields if not f.primary_key and f.name not in local]


def m2m_fields(model):
    return list(model._meta.many_to_many)


def plain(value):
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def names_text(items) -> str:
    return ", ".join(sorted(items))
