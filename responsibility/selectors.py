"""Reads for matrices and costs, in a fixed number of queries per page."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, F, Prefetch, Q, Sum, prefetch_related_objects

from evaluations.models import Candidate, CandidateStatus, Evaluation
from evaluations.stack_controls import layers_with_controls

from . import checks
from .costs import CostInputs, CostResult, total_cost_of_ownership
from .models import Area, AreaRow, Cell, CostInput, CostSettings, Party, PartyKind

# The enterprise's own teams that can be accountable for a governance area (permissions and
# audit, tenant quotas): its platform team and its security team. A vendor, a cloud provider or
# an "other" party cannot govern for the enterprise, nor can the business teams being governed.
GOVERNING_KINDS = (PartyKind.INTERNAL, PartyKind.SECURITY)
# A row's effort has two decimal places (AreaRow.internal_fte), so any sum of them has too.
FTE_PLACES = Decimal("0.01")


def effort_sum(total: Decimal | None) -> Decimal:
    """An effort total the database added up, exact again: SQLite adds decimals as binary
    floats and hands back 7.30000000000000 for 1.1 + 2.1 + 4.1."""
    return (total or Decimal("0")).quantize(FTE_PLACES)


def shared_parties() -> list[Party]:
    return list(Party.objects.filter(evaluation=None).order_by("order", "pk"))


def parties_for(evaluation: Evaluation) -> list[Party]:
    """The shared parties, then the evaluation's own."""
    return list(
        Party.objects.filter(Q(evaluation=None) | Q(evaluation=evaluation)).order_by(
            F("evaluation_id").asc(nulls_first=True), "order", "pk"
        )
    )


def active_areas() -> list[Area]:
    return list(Area.objects.filter(is_active=True).select_related("group"))


def rows_prefetch() -> Prefetch:
    cells = Cell.objects.select_related("party")
    return Prefetch(
        "area_rows",
        queryset=AreaRow.objects.select_related("area").prefetch_related(
            Prefetch("cells", queryset=cells)
        ),
    )


@dataclass
class MatrixRowView:
    area: Area
    row: AreaRow | None
    letters: dict[int, str]  # party id → letter
    check: checks.AreaCheck

    @property
    def version(self) -> int:
        return self.row.version if self.row else 0

    @property
    def fte(self) -> Decimal:
        return self.row.internal_fte if self.row else Decimal("0")


@dataclass
class MatrixView:
    candidate: Candidate
    rows: list[MatrixRowView]
    result: checks.MatrixCheck
    started: bool
    fte_total: Decimal = Decimal("0")
    governance_without_internal_owner: list[Area] = field(default_factory=list)


def matrix_view(candidate: Candidate, areas: list[Area], parties: list[Party]) -> MatrixView:
    """Build one candidate's matrix from its prefetched `area_rows` (see rows_prefetch), over
    the areas that apply to it (a stack's has the areas between its layers too)."""
    by_area = {r.area_id: r for r in candidate.area_rows.all()}
    letters = {pk: {c.party_id: c.letter for c in r.cells.all()} for pk, r in by_area.items()}
    return build_matrix(candidate, areas, parties, letters, rows=by_area, started=bool(by_area))


def build_matrix(
    candidate: Candidate,
    areas: list[Area],
    parties: list[Party],
    letters: dict[int, dict[int, str]],
    *,
    rows: dict[int, AreaRow] | None = None,
    started: bool,
    fte_total: Decimal | None = None,
) -> MatrixView:
    """One candidate's matrix from `letters` (area id → {party id → letter}). With `rows` (area
    id → AreaRow) each row carries its note, effort and version; without them (the reminders'
    aggregates) pass the candidate's `fte_total`."""
    rows = rows or {}
    party_by_id = {p.pk: p for p in parties}
    out = []
    for area in areas:
        if not area.applies_to(candidate):
            continue
        held = letters.get(area.pk, {})
        by_key = {
            party_by_id[pid].key if pid in party_by_id else str(pid): letter
            for pid, letter in held.items()
        }
        check = checks.check_area(area.key, by_key)
        out.append(MatrixRowView(area, rows.get(area.pk), held, check))
    result = checks.MatrixCheck([r.check for r in out])
    internal = {p.pk for p in parties if p.kind in GOVERNING_KINDS}
    missing_owner = [
        r.area
        for r in out
        if r.area.governance
        and not any(
            checks.is_accountable(letter) and pid in internal for pid, letter in r.letters.items()
        )
    ]
    if fte_total is None:
        fte_total = sum((r.fte for r in out), Decimal("0"))
    return MatrixView(
        candidate=candidate,
        rows=out,
        result=result,
        started=started,
        fte_total=fte_total,
        governance_without_internal_owner=missing_owner,
    )


def matrix_letters(owners: dict[int, int]) -> dict[int, dict]:
    """The letters and effort of the candidates in `owners` (candidate id → evaluation id), as
    tuples: one query for the cells and one aggregate over the rows, however many evaluations,
    candidates and areas there are.

    Returns {evaluation id: {"letters": {candidate id: {area id: {party id: letter}}},
    "rows": {candidate id: (row count, effort over single areas, effort over all areas)}}};
    the effort counts active areas only, as the matrix page does."""
    out: dict[int, dict] = {pk: {"letters": {}, "rows": {}} for pk in set(owners.values())}
    if not owners:
        return out
    cells = Cell.objects.filter(row__candidate_id__in=owners).order_by()
    for candidate_id, area_id, party_id, letter in cells.values_list(
        "row__candidate_id", "row__area_id", "party_id", "letter"
    ):
        letters = out[owners[candidate_id]]["letters"].setdefault(candidate_id, {})
        letters.setdefault(area_id, {})[party_id] = letter
    active = Q(area__is_active=True)
    rows = (
        AreaRow.objects.filter(candidate_id__in=owners)
        .values("candidate_id")
        .annotate(
            n=Count("pk"),
            single=Sum("internal_fte", filter=active & Q(area__stack_only=False)),
            stack=Sum("internal_fte", filter=active),
        )
        .order_by()
    )
    for row in rows:
        facts = (row["n"], effort_sum(row["single"]), effort_sum(row["stack"]))
        out[owners[row["candidate_id"]]]["rows"][row["candidate_id"]] = facts
    return out


def matrix_facts(batch) -> dict[int, dict]:
    """`matrix_letters` of every shortlisted candidate of a batch of EvaluationData (see
    EvaluationData.facts): what the reminders read of the matrices."""
    owners = {c.pk: d.evaluation.pk for d in batch for c in d.shortlisted}
    out = matrix_letters(owners)
    return {d.evaluation.pk: out.get(d.evaluation.pk, {"letters": {}, "rows": {}}) for d in batch}


def lean_matrix(candidate: Candidate, areas: list[Area], parties: list[Party], facts) -> MatrixView:
    """A candidate's matrix from `matrix_letters` facts: letters, checks and effort, without
    its AreaRow instances (no notes or versions: the matrix page itself reads those)."""
    n, single, stack = facts["rows"].get(candidate.pk, (0, Decimal("0"), Decimal("0")))
    letters = facts["letters"].get(candidate.pk, {})
    fte = stack if candidate.is_stack else single
    return build_matrix(candidate, areas, parties, letters, started=n > 0, fte_total=fte)


def evaluation_matrices(evaluation: Evaluation, *, lean: bool = False) -> list[MatrixView]:
    """Every shortlisted candidate's matrix (fixed number of queries). `lean` reads letters and
    effort as tuples (see lean_matrix): for pages that show owners, checks and totals, not each
    row's note and version."""
    areas = active_areas()
    parties = parties_for(evaluation)
    candidates = Candidate.objects.filter(
        evaluation=evaluation, status=CandidateStatus.SHORTLISTED
    ).select_related("solution__solution_type")
    if not lean:
        candidates = candidates.prefetch_related(rows_prefetch())
    candidates = list(candidates)
    # A stack's layers and what they claim decide which areas its matrix has (Area.applies_to):
    # read for all stacks at once, and not at all without a stack.
    prefetch_related_objects([c for c in candidates if c.is_stack], layers_with_controls())
    if lean:
        facts = matrix_letters({c.pk: evaluation.pk for c in candidates}).get(evaluation.pk)
        return [lean_matrix(c, areas, parties, facts) for c in candidates]
    return [matrix_view(c, areas, parties) for c in candidates]


def cost_settings(evaluation: Evaluation) -> CostSettings:
    """The saved settings, or unsaved defaults (version 0) when there are none yet."""
    try:
        return evaluation.cost
    except Evaluation.cost.RelatedObjectDoesNotExist:
        return CostSettings(evaluation=evaluation, version=0)


def cost_input(candidate: Candidate) -> CostInput:
    try:
        return candidate.cost
    except Candidate.cost.RelatedObjectDoesNotExist:
        return CostInput(candidate=candidate, version=0)


def cost_inputs_for(settings: CostSettings, data: CostInput, fte: Decimal, **what_if) -> CostInputs:
    """The pure model's inputs; `what_if` overrides gpu_count, utilisation or fte_cost_per_year."""
    return CostInputs(
        years=settings.years,
        licence_per_year=data.licence_per_year,
        vendor_services_per_year=data.vendor_services_per_year,
        gpu_count=what_if.get("gpu_count", data.gpu_count),
        gpu_hours_per_year=data.gpu_hours_per_year,
        gpu_price_per_hour=data.gpu_price_per_hour,
        utilisation=what_if.get("utilisation", data.utilisation),
        hardware_one_off=data.hardware_one_off,
        hardware_per_year=data.hardware_per_year,
        one_off=data.one_off,
        internal_fte=fte,
        fte_cost_per_year=what_if.get("fte_cost_per_year", settings.fte_cost_per_year),
    )


@dataclass
class CandidateCost:
    candidate: Candidate
    data: CostInput
    fte: Decimal
    result: CostResult

    @property
    def missing(self) -> bool:
        """Nobody entered this candidate's cost inputs: no totals, left out of the chart."""
        return self.result.missing


class CandidateCosts(list[CandidateCost]):
    """The shortlisted candidates' costs, in order, and who has no cost inputs yet."""

    @property
    def missing_names(self) -> list[str]:
        """Candidates without cost inputs: shown as missing, left out of the chart."""
        return [r.candidate.name for r in self if r.missing]


def evaluation_costs(
    evaluation: Evaluation, *, matrices: list[MatrixView] | None = None, **what_if
) -> tuple[CostSettings, CandidateCosts]:
    """Costs per shortlisted candidate; pass `matrices` (evaluation_matrices) if you have them.

    A candidate whose cost inputs were never saved gets the model's MISSING result (no totals),
    whatever the what-if says: its licences, services and hardware are unknown, not zero.
    """
    settings = cost_settings(evaluation)
    out = CandidateCosts()
    if matrices is None:
        matrices = evaluation_matrices(evaluation, lean=True)
    matrices = {m.candidate.pk: m for m in matrices}
    candidates = Candidate.objects.filter(
        evaluation=evaluation, status=CandidateStatus.SHORTLISTED
    ).select_related("solution__solution_type", "cost")
    for candidate in candidates:
        data = cost_input(candidate)
        fte = matrices[candidate.pk].fte_total
        entered = data.pk is not None
        inputs = cost_inputs_for(settings, data, fte, **what_if) if entered else None
        result = total_cost_of_ownership(inputs)
        out.append(CandidateCost(candidate, data, fte, result))
    return settings, out
