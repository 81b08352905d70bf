"""Test beds: where each candidate's POC ran (versions under test, accelerators, scale, dates).

The seeds insist that candidates are tested on the same tasks under the same constraints: a
POC that ran one platform on 8 Ascend 910B and another on 64 A800 compares the hardware as much
as the platform. `bed_mismatch` is the pure rule behind the "test beds differ" reminder:

- accelerators differ when two recorded beds name different accelerators (vendor and model,
  compared without case and spaces);
- scale differs when two recorded beds give different accelerator counts or node counts.

A bed with a field left blank is not compared on that field (nothing to compare yet).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from common.concurrency import bump, lock_or_new
from common.exceptions import Conflict
from common.history import save_as
from evaluations.locking import evaluation_lock_for
from evaluations.models import Candidate, CandidateStatus

from .models import TestBed

# --- the rule --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bed:
    """What the rule reads of one candidate's test bed."""

    name: str
    accelerator: str = ""
    count: int | None = None
    nodes: int | None = None


@dataclass(frozen=True)
class Mismatch:
    accelerators: tuple[tuple[str, str], ...] = ()  # (candidate, accelerator) when they differ
    scale: tuple[tuple[str, int | None, int | None], ...] = ()  # (candidate, count, nodes)

    def __bool__(self) -> bool:
        return bool(self.accelerators or self.scale)


def accelerator_key(text: str) -> str:
    """What two accelerator names are compared by: without case and spaces."""
    return "".join(text.split()).casefold()


def bed_mismatch(beds: list[Bed]) -> Mismatch:
    """Whether the candidates' test beds differ in accelerator or in scale (see the module)."""
    named = [b for b in beds if b.accelerator.strip()]
    accelerators = ()
    if len({accelerator_key(b.accelerator) for b in named}) > 1:
        accelerators = tuple((b.name, b.accelerator.strip()) for b in named)
    counts = {b.count for b in beds if b.count is not None}
    nodes = {b.nodes for b in beds if b.nodes is not None}
    scale = ()
    if len(counts) > 1 or len(nodes) > 1:
        scale = tuple(
            (b.name, b.count, b.nodes) for b in beds if b.count is not None or b.nodes is not None
        )
    return Mismatch(accelerators, scale)


def bed_of(candidate) -> Bed | None:
    """The rule's view of a candidate's saved test bed (None: none recorded)."""
    bed = getattr(candidate, "test_bed", None)
    if bed is None:
        return None
    return Bed(candidate.name, bed.accelerator, bed.accelerator_count, bed.nodes)


# --- reads and writes ------------------------------------------------------------------------


def beds_of(evaluation) -> list[tuple[Candidate, TestBed | None]]:
    """Each shortlisted candidate with its test bed (None: not recorded yet)."""
    beds = {b.candidate_id: b for b in TestBed.objects.filter(candidate__evaluation=evaluation)}
    candidates = evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED).select_related(
        "solution__solution_type"
    )
    return [(c, beds.get(c.pk)) for c in candidates.order_by("pk")]


TEXT_FIELDS = (
    "product_version",
    "components",
    "accelerator_vendor",
    "accelerator_model",
    "notes",
)


@transaction.atomic
def bed_save(
    *,
    user,
    candidate: Candidate,
    expected_version: int | None,
    product_version: str = "",
    components: str = "",
    accelerator_vendor: str = "",
    accelerator_model: str = "",
    accelerator_count: int | None = None,
    nodes: int | None = None,
    tested_from: date | None = None,
    tested_to: date | None = None,
    notes: str = "",
) -> TestBed:
    """Record or change a candidate's test bed (editors and owners, while the evaluation is
    open). Versioned: a stale edit is refused."""
    evaluation_lock_for(user, candidate.evaluation, "poc.change_plan")
    if candidate.status != CandidateStatus.SHORTLISTED:
        raise Conflict(_("%(s)s is eliminated; it has no test bed.") % {"s": candidate.name})
    errors = {}
    if tested_from and tested_to and tested_to < tested_from:
        errors["tested_to"] = [_("The end date is before the start date.")]
    for name, value in (("accelerator_count", accelerator_count), ("nodes", nodes)):
        if value is not None and value < 1:
            errors[name] = [_("Give a whole number of 1 or more, or leave it blank.")]
    if accelerator_count is not None and nodes is not None and nodes > accelerator_count:
        errors["nodes"] = [_("More nodes than accelerators: check both numbers.")]
    if errors:
        raise ValidationError(errors)
    row = lock_or_new(TestBed, expected_version=expected_version, candidate=candidate)
    values = {
        "product_version": product_version,
        "components": components,
        "accelerator_vendor": accelerator_vendor,
        "accelerator_model": accelerator_model,
        "notes": notes,
    }
    for name, value in values.items():
        setattr(row, name, (value or "").strip())
    row.accelerator_count = accelerator_count
    row.nodes = nodes
    row.tested_from = tested_from
    row.tested_to = tested_to
    bump(row)
    row.full_clean(exclude=["candidate"])
    save_as(row, user)
    return row
