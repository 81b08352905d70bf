"""Cost of ownership on plain values (no Django). Money is Decimal, rounded to cents per line.

Year 1 carries the one-off costs (integration, migration, training, hardware bought up front);
every year carries licences, vendor services, cloud GPU spend, yearly hardware and people.
Cloud GPU spend per year = GPU count × hours per year × price per GPU-hour × utilisation.
People = internal FTE × loaded cost per FTE-year.

Missing, never zero: a candidate nobody entered cost inputs for has no inputs (None) and its
result is `MISSING` — no years, no totals, nothing to draw — rather than 0.00 totals that read
like a free platform. Inputs someone entered as zero are a real zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
ZERO = Decimal("0")


def money(value: Decimal) -> Decimal:
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class CostInputs:
    years: int
    licence_per_year: Decimal = ZERO
    vendor_services_per_year: Decimal = ZERO
    gpu_count: int = 0
    gpu_hours_per_year: Decimal = ZERO
    gpu_price_per_hour: Decimal = ZERO
    utilisation: Decimal = Decimal("1")
    hardware_one_off: Decimal = ZERO
    hardware_per_year: Decimal = ZERO
    one_off: Decimal = ZERO
    internal_fte: Decimal = ZERO
    fte_cost_per_year: Decimal = ZERO

    def __post_init__(self):
        if not 1 <= self.years <= 10:
            raise ValueError("years must be between 1 and 10")
        if not ZERO <= Decimal(self.utilisation) <= 1:
            raise ValueError("utilisation must be between 0 and 1")
        for name in (
            "licence_per_year",
            "vendor_services_per_year",
            "gpu_count",
            "gpu_hours_per_year",
            "gpu_price_per_hour",
            "hardware_one_off",
            "hardware_per_year",
            "one_off",
            "internal_fte",
            "fte_cost_per_year",
        ):
            if Decimal(getattr(self, name)) < 0:
                raise ValueError(f"{name} must not be negative")


@dataclass(frozen=True)
class YearCost:
    year: int
    licences: Decimal
    services: Decimal
    cloud: Decimal
    hardware: Decimal
    one_off: Decimal
    people: Decimal
    total: Decimal
    cumulative: Decimal


@dataclass(frozen=True)
class CostResult:
    """Year-by-year costs; with `missing` set (see `MISSING`) there are no years and no totals."""

    years: tuple[YearCost, ...]
    total: Decimal | None
    people_total: Decimal | None
    missing: bool = False

    @property
    def people_share(self) -> Decimal | None:
        """People's share of the total, in percent with one decimal (0 when the total is 0;
        None when the inputs are missing)."""
        if self.missing:
            return None
        if not self.total:
            return Decimal("0.0")
        return (self.people_total * 100 / self.total).quantize(
            Decimal("0.1"), rounding=ROUND_HALF_UP
        )

    @property
    def cumulative(self) -> list[Decimal] | None:
        """Cumulative cost at the end of each year; None when missing (nothing to draw)."""
        if self.missing:
            return None
        return [y.cumulative for y in self.years]


MISSING = CostResult(years=(), total=None, people_total=None, missing=True)


def total_cost_of_ownership(inputs: CostInputs | None) -> CostResult:
    """The multi-year cost of `inputs`; `MISSING` when there are no inputs (None)."""
    if inputs is None:
        return MISSING
    cloud = money(
        Decimal(inputs.gpu_count)
        * Decimal(inputs.gpu_hours_per_year)
        * Decimal(inputs.gpu_price_per_hour)
        * Decimal(inputs.utilisation)
    )
    people = money(Decimal(inputs.internal_fte) * Decimal(inputs.fte_cost_per_year))
    licences = money(inputs.licence_per_year)
    services = money(inputs.vendor_services_per_year)
    rows = []
    cumulative = ZERO
    for year in range(1, inputs.years + 1):
        first = year == 1
        hardware = money(inputs.hardware_per_year) + (
            money(inputs.hardware_one_off) if first else 0
        )
        one_off = money(inputs.one_off) if first else money(ZERO)
        total = licences + services + cloud + hardware + one_off + people
        cumulative += total
        rows.append(
            YearCost(year, licences, services, cloud, hardware, one_off, people, total, cumulative)
        )
    return CostResult(tuple(rows), cumulative, people * inputs.years)
