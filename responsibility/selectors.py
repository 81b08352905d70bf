"""Reads for matrices and costs, in a fixed number of queries per page."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import F, Prefetch, Q

from evaluations.models import Candidate, CandidateStatus, Evaluation

from . import checks
from .costs import CostInputs, CostResult, total_cost_of_ownership
from .models import Area, AreaRow, Cell, CostInput, CostSettings, Party, PartyKind

# The enterprise's own teams that can be accountable for a governance area (permissions and
# audit, tenant quotas): its platform team and its security team. A vendor, a cloud provider or
# an "other" party cannot govern for the enterprise, nor can the business teams being governed.
GOVERNING_KINDS = (PartyKind.INTERNAL, PartyKind.SECURITY)


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


def evaluation_matrices(evaluation: Evaluation) -> list[MatrixView]:
    """Every shortlisted candidate's matrix (fixed number of queries)."""
    areas = active_areas()
    parties = parties_for(evaluation)
    candidates = (
        Candidate.objects.filter(evaluation=evaluation, status=CandidateStatus.SHORTLISTED)
        .select_related("solution__solution_type")
        .prefetch_related(rows_prefetch())
    )
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
        matrices = evaluation_matrices(evaluation)
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
