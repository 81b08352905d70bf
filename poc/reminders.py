"""POC risk reminders (SPEC §1.9), contributed to evaluations with the lookups they read
(evaluations.extensions): the plan's groups loaded with the evaluation, and its cases and
scores as aggregates through
`EvaluationData.facts` (one tuple per case and per scored cell, never a Score instance), so a
list of evaluations and the status strip of a large one stay at a fixed query count."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from django.db.models import Count, F, Max, Min, Prefetch, Q, Sum
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from evaluations.extensions import Lookups
from evaluations.models import Status
from evaluations.reminders import Reminder

from . import scoring
from .models import Consensus, PlanCase, PlanGroup, Score

# What these reminders read with the evaluation (contributed with them: PocConfig.ready).
LOOKUPS = Lookups(
    evaluation_prefetches=(
        Prefetch("poc_groups", queryset=PlanGroup.objects.select_related("group")),
    )
)


@dataclass(frozen=True)
class Case:
    """What the reminders read of one planned case."""

    pk: int
    group_id: int
    weight: Decimal
    happy_path: bool


@dataclass(frozen=True)
class Cell:
    """One case × shortlisted candidate cell with submitted scores: how many, their range, and
    how many are the viewer's own."""

    count: int
    low: Decimal
    high: Decimal
    mine: int
    total: Decimal = Decimal(0)  # Σ of the scores and Σ of their squares: agreement needs
    squares: Decimal = Decimal(0)  # only these (scoring.krippendorff_alpha_from_sums)


@dataclass
class PocFacts:
    cases: list[Case] = field(default_factory=list)
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)  # (case, candidate) → cell
    agreed: set[tuple[int, int]] = field(default_factory=set)  # cells with a consensus


def poc_facts(batch) -> dict[int, PocFacts]:
    """The cases, the scored cells and the consensus cells of every evaluation in `batch`, in
    three aggregate queries whatever their number or size."""
    ids = [d.evaluation.pk for d in batch]
    viewer = batch[0].viewer
    viewer_id = getattr(viewer, "pk", None)
    out: dict[int, PocFacts] = {pk: PocFacts() for pk in ids}
    cases = PlanCase.objects.filter(evaluation_id__in=ids).order_by()
    for pk, evaluation_id, group_id, weight, happy in cases.values_list(
        "pk", "evaluation_id", "group_id", "weight", "group__happy_path"
    ):
        out[evaluation_id].cases.append(Case(pk, group_id, weight, happy))
    if not any(f.cases for f in out.values()):
        return out  # no plan yet: no cell to read
    # The shortlisted candidates' ids, so that both queries below go by the candidate index.
    owners = {c.pk: d.evaluation.pk for d in batch for c in d.shortlisted}
    scored = (
        Score.objects.filter(candidate_id__in=owners, submitted_at__isnull=False)
        .exclude(score=None)
        .values("case_id", "candidate_id")
        .annotate(
            n=Count("pk"),
            low=Min("score"),
            high=Max("score"),
            mine=Count("pk", filter=Q(reviewer_id=viewer_id)),
            total=Sum("score"),
            squares=Sum(F("score") * F("score")),
        )
        .order_by()
    )
    for row in scored:
        cell = Cell(row["n"], row["low"], row["high"], row["mine"], row["total"], row["squares"])
        out[owners[row["candidate_id"]]].cells[row["case_id"], row["candidate_id"]] = cell
    agreed = Consensus.objects.filter(candidate_id__in=owners).order_by()
    for case_id, candidate_id in agreed.values_list("case_id", "candidate_id"):
        out[owners[candidate_id]].agreed.add((case_id, candidate_id))
    return out


def _url(data, name: str) -> str:
    return reverse(f"poc:{name}", kwargs={"pk": data.evaluation.pk})


# The abnormal and long-running group (the library group with `happy_path` off) must carry at
# least this share of the plan's weight, in percent. Every seeded scenario profile gives it 25 %
# or more; below 20 % the cases where platforms differ can no longer move the result much.
ABNORMAL_MIN_SHARE = Decimal("20")


def _percent(value: Decimal) -> str:
    """A share for a sentence: 12.5, 20 (one decimal at most, no trailing zero)."""
    value = value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    return f"{value:f}".removesuffix(".0")


def _abnormal_share(data) -> Decimal | None:
    """The abnormal and long-running groups' share (percent) of the weight the plan's totals
    actually use: a group counts with its weight only when it is weighted and holds cases with
    weight (see poc.scoring.overall). None when no group counts at all."""
    case_weight: dict[int, Decimal] = {}
    for case in data.facts(poc_facts).cases:
        case_weight[case.group_id] = case_weight.get(case.group_id, Decimal(0)) + case.weight
    total = abnormal = Decimal(0)
    for g in data.evaluation.poc_groups.all():
        if g.weight > 0 and case_weight.get(g.group_id, 0) > 0:
            total += g.weight
            if not g.group.happy_path:
                abnormal += g.weight
    return abnormal * 100 / total if total > 0 else None


def happy_path_only(data):
    """SPEC §1.9, seed risk "the POC tests normal tasks only, not upgrades and failures": the
    plan has no abnormal and long-running case, gives that group too little weight, or a
    candidate the POC has tested has no score in it (as `data.viewer` may see scores)."""
    cases = data.facts(poc_facts).cases
    if not cases:
        return  # no POC plan yet
    if all(c.happy_path for c in cases):
        yield Reminder(
            key="poc-happy-path-only",
            severity="high",
            title=_("The POC tests only the happy path"),
            why=_(
                "No case covers job failure, queue congestion, privilege escalation, upgrades, "
                "alerting or vendor response. Differences between platforms usually show there."
            ),
            fix_url=_url(data, "plan"),
            fix_label=_("Add abnormal and long-running cases"),
        )
        return
    share = _abnormal_share(data)
    if share is not None and share < ABNORMAL_MIN_SHARE:
        yield Reminder(
            key="poc-abnormal-underweighted",
            severity="medium",
            title=_("Abnormal and long-running cases carry less than %(min)s%% of the weight")
            % {"min": _percent(ABNORMAL_MIN_SHARE)},
            why=_(
                "The abnormal and long-running group carries %(share)s%% of the weight the POC "
                "totals use; this check asks for at least %(min)s%%. Failures, upgrades and long "
                "runs are where platforms differ; with so little weight the everyday cases "
                "decide alone."
            )
            % {"share": _percent(share), "min": _percent(ABNORMAL_MIN_SHARE)},
            fix_url=_url(data, "plan"),
            fix_label=_("Raise the group's weight"),
        )
    yield from _abnormal_unscored(data)


def _abnormal_unscored(data):
    """Shortlisted candidates with a score on an everyday case (or every candidate, once the
    evaluation is sealed) but none on any weighted abnormal and long-running case."""
    weighted = {g.group_id for g in data.evaluation.poc_groups.all() if g.weight > 0}
    abnormal = {
        c.pk
        for c in data.facts(poc_facts).cases
        if not c.happy_path and c.weight > 0 and c.group_id in weighted
    }
    if not abnormal:
        return  # the group weighs nothing: the share check above speaks for it
    tested: set[int] = set()
    abnormal_scored: set[int] = set()
    for case, candidate_id, cell, agreed in _cells(data):
        if cell is None and not agreed:
            continue
        if case.pk in abnormal:
            abnormal_scored.add(candidate_id)
        elif case.happy_path:
            tested.add(candidate_id)
    if data.evaluation.is_sealed:  # the POC is over: every candidate should have been tested
        tested = {c.pk for c in data.shortlisted}
    missing = [c for c in data.shortlisted if c.pk in tested and c.pk not in abnormal_scored]
    if not missing:
        return
    why = _(
        "No abnormal and long-running case has a score for: %(names)s. The POC then shows how "
        "they run everyday work, not how they handle failures, congestion or upgrades."
    ) % {"names": _names(c.name for c in missing)}
    if _blind(data):
        why += " " + _("Scores hidden from you until you submit your own count as missing here.")
    yield Reminder(
        key="poc-abnormal-unscored",
        severity="high",
        title=_("Abnormal and long-running cases not scored"),
        why=why,
        fix_url=_url(data, "scorecard"),
        fix_label=_("Score the abnormal and long-running cases"),
    )


def empty_group(data):
    groups = list(data.evaluation.poc_groups.all())
    used = {c.group_id for c in data.facts(poc_facts).cases}
    empty = [g.group.name for g in groups if g.weight > 0 and g.group_id not in used]
    if groups and empty:
        yield Reminder(
            key="poc-empty-group",
            severity="medium",
            title=_("A weighted POC group has no cases"),
            why=_("These groups carry weight but have no case to score: %(groups)s.")
            % {"groups": _names(empty)},
            fix_url=_url(data, "plan"),
            fix_label=_("Add cases or set the weight to 0"),
        )


def _blind(data) -> bool:
    """Whether blind scoring applies to `data.viewer` (None reads everything)."""
    viewer = data.viewer
    return viewer is not None and not viewer.has_perm("poc.see_all_scores", data.evaluation)


def _names(names) -> str:
    return pgettext("list separator", ", ").join(str(n) for n in names)


def _cells(data):
    """Each case × shortlisted candidate cell: its submitted scores (a `Cell`, or None) and
    whether a consensus is recorded, as `data.viewer` may see them. Blind scoring (see
    poc.selectors.scorecard) hides a cell others scored until the viewer submitted theirs, so
    such a cell is left out here too, or a count would give the scores away."""
    facts = data.facts(poc_facts)
    shortlisted = [c.pk for c in data.shortlisted]
    blind = _blind(data)
    for case in facts.cases:
        for candidate_id in shortlisted:
            cell = facts.cells.get((case.pk, candidate_id))
            if blind and cell is not None and not cell.mine:
                continue
            yield case, candidate_id, cell, (case.pk, candidate_id) in facts.agreed


def unscored_after_poc(data):
    if data.evaluation.status not in (Status.DECIDED, Status.ARCHIVED):
        return
    missing = sum(1 for _case, _c, cell, agreed in _cells(data) if cell is None and not agreed)
    if missing:
        yield Reminder(
            key="poc-unscored",
            severity="high",
            title=_("POC cells left unscored"),
            why=_("%(n)d case × candidate cell(s) have no submitted score, yet the POC is over.")
            % {"n": missing},
            fix_url=_url(data, "scorecard"),
            fix_label=_("Review the scorecard"),
        )


def unresolved_disagreements(data):
    open_ = sum(
        1
        for _case, _c, cell, agreed in _cells(data)
        if not agreed
        and cell is not None
        and cell.count > 1
        # the range decides: scoring.disagreement reads only the lowest and highest score
        and scoring.disagreement([cell.low, cell.high])
    )
    if open_:
        yield Reminder(
            key="poc-disagreements",
            severity="medium",
            title=_("Reviewers disagree and no consensus is recorded"),
            why=_(
                "%(n)d cell(s) have scores 1.5 points or more apart. The owner should agree a "
                "score with a reason."
            )
            % {"n": open_},
            fix_url=_url(data, "scorecard"),
            fix_label=_("Settle the disagreements"),
        )


def low_agreement(data):
    """Reviewers agree too little (Krippendorff's alpha below scoring.ALPHA_MIN) in a weighted
    group, over the cells `data.viewer` may see: the totals then rest on who happened to score
    rather than on the candidates, and the results withhold a leader the bootstrap does not
    confirm (poc.thin)."""
    weighted = {g.group_id: g.group.name for g in data.evaluation.poc_groups.all() if g.weight > 0}
    units: dict[int, list] = {}
    for case, _candidate, cell, _agreed in _cells(data):
        if case.group_id in weighted and cell is not None and cell.count > 1:
            units.setdefault(case.group_id, []).append((cell.count, cell.total, cell.squares))
    low = []
    for group_id, name in weighted.items():
        alpha = scoring.krippendorff_alpha_from_sums(units.get(group_id, []))
        if alpha is not None and alpha < scoring.ALPHA_MIN:
            low.append(_("“%(group)s” (α = %(alpha)s)") % {"group": name, "alpha": f"{alpha:.2f}"})
    if low:
        yield Reminder(
            key="poc-low-agreement",
            severity="medium",
            title=_("Reviewers agree too little to rely on the scores"),
            why=_(
                "Krippendorff's alpha is below %(min)s in %(groups)s: the reviewers score the "
                "same cells too differently for the totals to say more than who scored them. "
                "Agree on what each score means, settle the disagreements and rescore."
            )
            % {"min": f"{scoring.ALPHA_MIN:.3f}", "groups": _names(low)},
            fix_url=_url(data, "scorecard"),
            fix_label=_("Settle the disagreements"),
        )


REMINDERS = (
    happy_path_only,
    empty_group,
    unscored_after_poc,
    unresolved_disagreements,
    low_agreement,
)
