"""Which candidates were tested under the same conditions, so that they may be compared.

Results rank, lead and test robustness only within a *comparable group*: candidates of the same
solution type (poc.selectors.comparison) tested under the same conditions (this module). The
conditions of a test bed (`conditions_key`) are what services.bed_mismatch compares for the
"test beds differ" reminder, plus the recorded software versions:

- the accelerator (vendor and model, compared without case and spaces: services.accelerator_key);
- the accelerator count and the node count;
- the component versions (Kubernetes, drivers, CUDA or CANN), one a line, compared without case,
  spacing or order of the lines.

Unlike the reminder, a blank field is not skipped here: a bed that does not say how many
accelerators it had is not known to be the same as one with 32, so it is not ranked with it.
The product version is not compared: it is the version of the candidate itself, which differs
from product to product by nature.

A candidate without a test bed (none saved, or one with none of these fields filled in) is in
the group "test bed not recorded", ranked only with the others in it: when no bed is recorded
at all, every candidate of a type is in it, as before test beds were recorded, and the page
says the conditions are unknown rather than the same.

The owner may declare two conditions equivalent, with a reason (models.BedEquivalence); a
declaration joins the groups of both conditions (and of any declared equivalent to either). It
names the conditions as they were; once a bed changes, it no longer applies to that bed."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from common.concurrency import lock_and_check
from common.exceptions import Conflict
from common.history import save_as
from common.text import shorten
from evaluations.extensions import HistorySource
from evaluations.locking import evaluation_lock_for
from evaluations.models import Candidate, CandidateStatus, Evaluation

from .models import BedEquivalence, TestBed
from .services import accelerator_key

LABEL_LIMIT = 300


def _lines(text: str) -> list[str]:
    return sorted(" ".join(line.split()).casefold() for line in text.splitlines() if line.strip())


def conditions_key(bed: TestBed | None) -> str | None:
    """What two beds must share to be compared (see the module); None: not recorded."""
    if bed is None:
        return None
    parts = (
        accelerator_key(bed.accelerator),
        "" if bed.accelerator_count is None else str(bed.accelerator_count),
        "" if bed.nodes is None else str(bed.nodes),
        "\n".join(_lines(bed.components)),
    )
    if not any(parts):
        return None
    return "|".join(parts)


def conditions_label(bed: TestBed | None) -> str:
    """ "NVIDIA A800 × 32, 4 nodes; Kubernetes 1.29, CUDA 12.2" ("" when not recorded)."""
    if conditions_key(bed) is None:
        return ""
    head = bed.accelerator or _("accelerator not recorded")
    if bed.accelerator_count is not None:
        head = f"{head} × {bed.accelerator_count}"
    if bed.nodes is not None:
        head = ngettext(
            "%(accelerators)s, %(n)d node", "%(accelerators)s, %(n)d nodes", bed.nodes
        ) % {"accelerators": head, "n": bed.nodes}
    versions = ", ".join(" ".join(line.split()) for line in bed.components.splitlines() if line)
    if versions:
        head = f"{head}; {versions}"
    return shorten(head, LABEL_LIMIT)


def not_recorded_label() -> str:
    return _("test bed not recorded")


@dataclass
class BedGroup:
    """Candidates tested under the same (or declared equivalent) conditions. `key` is None for
    the "test bed not recorded" group; `labels` are the conditions in it (several when a
    declaration joined them); `equivalences` the declarations that joined them."""

    key: str | None
    labels: list[str]
    candidates: list[int] = field(default_factory=list)
    equivalences: list[BedEquivalence] = field(default_factory=list)

    @property
    def recorded(self) -> bool:
        return self.key is not None

    @property
    def label(self) -> str:
        return " ≡ ".join(self.labels) if self.recorded else not_recorded_label()


def bed_groups(candidates, beds: dict, equivalences) -> list[BedGroup]:
    """The candidates (in their order) split into comparable test-bed groups: recorded
    conditions in order of first appearance, then "test bed not recorded". `beds` maps a
    candidate's pk to its TestBed (absent or None: none)."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    keys = {c.pk: conditions_key(beds.get(c.pk)) for c in candidates}
    present = {k for k in keys.values() if k is not None}
    applied = [e for e in equivalences if e.first_key in present and e.second_key in present]
    for e in applied:
        a, b = find(e.first_key), find(e.second_key)
        if a != b:
            parent[b] = a
    groups: dict[str | None, BedGroup] = {}
    for c in candidates:
        key = keys[c.pk]
        root = None if key is None else find(key)
        group = groups.get(root)
        if group is None:
            group = groups[root] = BedGroup(root, [])
        label = conditions_label(beds.get(c.pk))
        if label and label not in group.labels:
            group.labels.append(label)
        group.candidates.append(c.pk)
    for e in applied:
        groups[find(e.first_key)].equivalences.append(e)
    return sorted(groups.values(), key=lambda g: not g.recorded)


def conditions_of(evaluation: Evaluation) -> tuple[dict[int, TestBed], list[BedEquivalence]]:
    """The evaluation's test beds by candidate and its declared equivalences (two queries)."""
    beds = {b.candidate_id: b for b in TestBed.objects.filter(candidate__evaluation=evaluation)}
    equivalences = list(
        BedEquivalence.objects.filter(evaluation=evaluation).select_related(
            "first__solution", "second__solution", "declared_by"
        )
    )
    return beds, equivalences


# --- the owner's declarations ----------------------------------------------------------------


@transaction.atomic
def equivalence_declare(
    *, user, evaluation: Evaluation, first: Candidate, second: Candidate, reason: str
) -> BedEquivalence:
    """The owner declares the test beds of two candidates equivalent, saying why."""
    evaluation_lock_for(user, evaluation, "poc.declare_bed_equivalence")
    errors = {}
    reason = (reason or "").strip()
    if not reason:
        errors["reason"] = [
            _("Say why these test beds count as the same conditions, e.g. what was measured.")
        ]
    if first.pk == second.pk:
        errors["second"] = [_("Choose two different candidates.")]
    beds = {b.candidate_id: b for b in TestBed.objects.filter(candidate__in=[first.pk, second.pk])}
    for name, candidate in (("first", first), ("second", second)):
        if candidate.evaluation_id != evaluation.pk:
            errors[name] = [_("That candidate is not in this evaluation.")]
        elif candidate.status != CandidateStatus.SHORTLISTED:
            errors[name] = [_("%(s)s is not on the shortlist.") % {"s": candidate.name}]
        elif conditions_key(beds.get(candidate.pk)) is None:
            errors[name] = [
                _("Record the test bed of %(s)s first: there is nothing to declare equivalent.")
                % {"s": candidate.name}
            ]
    if errors:
        raise ValidationError(errors)
    first_key, second_key = conditions_key(beds[first.pk]), conditions_key(beds[second.pk])
    if first_key == second_key:
        raise Conflict(_("These test beds are already the same conditions: nothing to declare."))
    row = BedEquivalence(
        evaluation=evaluation,
        first=first,
        second=second,
        first_key=first_key,
        second_key=second_key,
        first_label=conditions_label(beds[first.pk]),
        second_label=conditions_label(beds[second.pk]),
        reason=reason,
        declared_by=user,
        version=1,
    )
    row.full_clean(exclude=["evaluation", "first", "second", "declared_by"])
    save_as(row, user)
    return row


@transaction.atomic
def equivalence_withdraw(*, user, equivalence: BedEquivalence, expected_version) -> None:
    """The owner withdraws a declaration: the two test beds are compared apart again."""
    evaluation_lock_for(user, equivalence.evaluation, "poc.declare_bed_equivalence")
    row = lock_and_check(BedEquivalence, pk=equivalence.pk, expected_version=expected_version)
    row._history_user = user
    row.delete()


def equivalence_get(evaluation: Evaluation, pk) -> BedEquivalence:
    try:
        return BedEquivalence.objects.select_related("evaluation").get(
            evaluation=evaluation, pk=int(pk)
        )
    except (BedEquivalence.DoesNotExist, TypeError, ValueError):
        raise Http404(_("No such test-bed equivalence.")) from None


def history_source():
    """Declarations and withdrawals show on the evaluation's History tab and in the report."""
    return HistorySource(
        "bedequivalence",
        rows=lambda evaluation: BedEquivalence.history.filter(evaluation_id=evaluation.pk),
        describe=lambda r: f"{r.first_label} ≡ {r.second_label}: {shorten(r.reason, 120)}",
    )
