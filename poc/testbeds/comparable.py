"""Which candidates were tested under the same conditions, so that they may be compared.

Results rank, lead and test robustness only within a *comparable group*: candidates of the same
solution type (poc.selectors.comparison) tested under the same conditions (this module). The
conditions of a test bed (`conditions_key`) are what services.bed_mismatch compares for the
"test beds differ" reminder, plus the recorded software versions:

- the accelerator (vendor and model, compared without case and spaces: services.accelerator_key);
- the accelerator count and the node count;
- the software versions recorded under component versions, one a line ("Kubernetes 1.29.4",
  "CUDA 12.2"): two beds differ when both name a component in different versions. A component
  only one bed names is part of that candidate's own stack (Slurm lists Enroot, Volcano lists
  Kubernetes) and keeps no one apart. A candidate joins the first group of its hardware whose
  beds it does not contradict, in the candidates' order, so no two beds in a group disagree.

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

import hashlib
import re
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


VERSION_START = re.compile(r"^v?\d")


def versions_of(components: str) -> dict[str, tuple[str, str]]:
    """The recorded software versions, one a line: "Kubernetes 1.29.4" -> {"kubernetes":
    ("1.29.4", "Kubernetes 1.29.4")}: the name is what comes before the first word starting with
    a digit, compared without case; a line with no such word names no version and is not
    compared."""
    out = {}
    for line in components.splitlines():
        words = line.split()
        at = next((i for i, w in enumerate(words) if VERSION_START.match(w)), None)
        if at:
            out[" ".join(words[:at]).casefold()] = (words[at].casefold(), " ".join(words))
    return out


def hardware_key(bed: TestBed) -> str:
    return "|".join(
        (
            accelerator_key(bed.accelerator),
            "" if bed.accelerator_count is None else str(bed.accelerator_count),
            "" if bed.nodes is None else str(bed.nodes),
        )
    )


def conditions_key(bed: TestBed | None) -> str | None:
    """The conditions of a bed as recorded (see the module), as a digest: what a declaration
    names; None: not recorded."""
    if bed is None:
        return None
    lines = "\n".join(_lines(bed.components))
    if hardware_key(bed) == "||" and not lines:
        return None
    return hashlib.sha256(f"{hardware_key(bed)}|{lines}".encode()).hexdigest()


def conflicts(a: dict, b: dict) -> list[str]:
    """The components both beds name, in different versions (versions_of)."""
    return sorted(name for name in a.keys() & b.keys() if a[name][0] != b[name][0])


def hardware_label(bed: TestBed) -> str:
    """ "NVIDIA A800 × 32, 4 nodes"."""
    head = bed.accelerator or _("accelerator not recorded")
    if bed.accelerator_count is not None:
        head = f"{head} × {bed.accelerator_count}"
    if bed.nodes is not None:
        head = ngettext(
            "%(accelerators)s, %(n)d node", "%(accelerators)s, %(n)d nodes", bed.nodes
        ) % {"accelerators": head, "n": bed.nodes}
    return head


def conditions_label(bed: TestBed | None) -> str:
    """ "NVIDIA A800 × 32, 4 nodes; Kubernetes 1.29, CUDA 12.2" ("" when not recorded)."""
    if conditions_key(bed) is None:
        return ""
    versions = ", ".join(" ".join(line.split()) for line in bed.components.splitlines() if line)
    head = hardware_label(bed)
    return shorten(f"{head}; {versions}" if versions else head, LABEL_LIMIT)


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
    versions: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def recorded(self) -> bool:
        return self.key is not None

    @property
    def label(self) -> str:
        return " ≡ ".join(self.labels) if self.recorded else not_recorded_label()


def _partition(candidates, beds: dict) -> list[BedGroup]:
    """Same hardware, and no component named by two beds in two versions: each candidate joins
    the first group of its hardware whose beds it does not contradict (candidates in order)."""
    groups: list[BedGroup] = []
    unrecorded = BedGroup(None, [])
    for c in candidates:
        bed = beds.get(c.pk)
        if conditions_key(bed) is None:
            unrecorded.candidates.append(c.pk)
            continue
        hardware, versions = hardware_key(bed), versions_of(bed.components)
        group = next(
            (g for g in groups if g.key == hardware and not conflicts(g.versions, versions)),
            None,
        )
        if group is None:
            group = BedGroup(hardware, [hardware_label(bed)])
            groups.append(group)
        group.candidates.append(c.pk)
        group.versions.update(versions)
    for group in groups:
        # Several groups on one hardware: name the versions that keep them apart.
        apart = sorted(
            {
                name
                for other in groups
                if other is not group and other.key == group.key
                for name in conflicts(group.versions, other.versions)
            }
        )
        if apart:
            shown = ", ".join(group.versions[name][1] for name in apart)
            group.labels = [shorten(f"{group.labels[0]}; {shown}", LABEL_LIMIT)]
    return groups + ([unrecorded] if unrecorded.candidates else [])


def bed_groups(candidates, beds: dict, equivalences) -> list[BedGroup]:
    """The candidates (in their order) split into comparable test-bed groups: recorded
    conditions in order of first appearance, then "test bed not recorded"; then the groups a
    declaration names on both sides joined. `beds` maps a candidate's pk to its TestBed (absent
    or None: none)."""
    groups = _partition(candidates, beds)
    by_key: dict[str, int] = {}  # a bed's conditions -> the index of its group
    for i, group in enumerate(groups):
        for pk in group.candidates:
            key = conditions_key(beds.get(pk))
            if key is not None:
                by_key.setdefault(key, i)
    parent = list(range(len(groups)))

    def find(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    applied = [e for e in equivalences if e.first_key in by_key and e.second_key in by_key]
    for e in applied:
        a, b = find(by_key[e.first_key]), find(by_key[e.second_key])
        if a != b:
            parent[max(a, b)] = min(a, b)
    for i, group in enumerate(groups):
        root = find(i)
        if root != i:
            groups[root].candidates.extend(group.candidates)
            groups[root].labels.extend(x for x in group.labels if x not in groups[root].labels)
    for e in applied:
        groups[find(by_key[e.first_key])].equivalences.append(e)
    order = {pk: n for n, pk in enumerate(c.pk for c in candidates)}
    out = [g for i, g in enumerate(groups) if find(i) == i]
    for g in out:
        g.candidates.sort(key=order.__getitem__)
    return out


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
    a, b = beds[first.pk], beds[second.pk]
    first_key, second_key = conditions_key(a), conditions_key(b)
    if hardware_key(a) == hardware_key(b) and not conflicts(
        versions_of(a.components), versions_of(b.components)
    ):
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
