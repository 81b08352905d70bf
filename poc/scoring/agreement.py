"""Reviewer agreement: Krippendorff's alpha for interval data, per group and over the plan."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction

from .base import CellKey, Plan
from .memo import remembered

ALPHA_MIN = 0.667
"""Below this alpha, Krippendorff advises against drawing conclusions from the scores."""


def krippendorff_alpha_interval(units: Sequence[Sequence[Decimal | float]]) -> float | None:
    """Krippendorff's alpha for interval data (δ²(c, k) = (c − k)²).

    Follows Krippendorff's definition in "Computing Krippendorff's Alpha-Reliability" (2011),
    coincidence-matrix form. Each unit is the list of scores that different reviewers gave one
    cell. Units with fewer than two values cannot be paired and are ignored; m_u is the number
    of values in unit u and n = Σ m_u over the remaining (pairable) units.

    * Coincidences: every ordered pair (i ≠ j) of values inside unit u adds 1 / (m_u − 1) to
      o(v_i, v_j); n_c = Σ_k o(c, k) is how often value c occurs, Σ_c n_c = n.
    * Observed disagreement: D_o = (1/n) Σ_c Σ_k o(c, k)·δ²(c, k)
      = (1/n) Σ_u 1/(m_u − 1) Σ_{i≠j in u} (v_i − v_j)².
    * Expected disagreement: D_e = 1/(n(n − 1)) Σ_c Σ_k n_c·n_k·δ²(c, k), i.e. the mean squared
      difference over all ordered pairs of pairable values regardless of unit, which equals
      2(n·Σv² − (Σv)²) / (n(n − 1)).
    * alpha = 1 − D_o / D_e: 1 is perfect agreement, 0 agreement at chance level, below 0
      systematic disagreement.

    Returns ``None`` when fewer than two pairable values exist (e.g. a single reviewer) or when
    D_e = 0 (every pairable value is the same): agreement is then undefined and callers show
    "n/a". Computed exactly with fractions, returned as a float.
    """
    pairable = [[Fraction(value) for value in unit] for unit in units if len(unit) >= 2]
    n = sum(len(unit) for unit in pairable)
    if n < 2:
        return None
    # Exact and fast: every value times the common denominator D is an integer, so the sums
    # run on integers; D² cancels in D_o / D_e.
    scale = math.lcm(*(value.denominator for unit in pairable for value in unit))
    ints = [[value.numerator * (scale // value.denominator) for value in unit] for unit in pairable]
    squared_by_size: dict[int, int] = {}
    for unit in ints:
        squared = sum((vi - vj) ** 2 for i, vi in enumerate(unit) for vj in unit[i + 1 :])
        squared_by_size[len(unit)] = squared_by_size.get(len(unit), 0) + squared
    # ×2: both orders of each pair.
    observed = sum(Fraction(2 * squared, m - 1) for m, squared in squared_by_size.items())
    every = [value for unit in ints for value in unit]
    expected_sum = 2 * (n * sum(v * v for v in every) - sum(every) ** 2)
    if expected_sum == 0:
        return None
    d_o = observed / n
    d_e = Fraction(expected_sum, n * (n - 1))
    return float(1 - d_o / d_e)


def krippendorff_alpha_from_sums(
    units: Sequence[tuple[int, Decimal | float, Decimal | float]],
) -> float | None:
    """:func:`krippendorff_alpha_interval` from each unit's (m, Σv, Σv²) instead of its values.

    Within a unit Σ_{i≠j}(v_i − v_j)² = 2(m·Σv² − (Σv)²), and the expected disagreement needs
    only the sums over every pairable value, so alpha follows from three aggregates per unit —
    what a database returns in one grouped query. Same result, ``None`` in the same cases."""
    pairable = [(m, Fraction(t), Fraction(q)) for m, t, q in units if m >= 2]
    n = sum(m for m, _t, _q in pairable)
    if n < 2:
        return None
    total = sum((t for _m, t, _q in pairable), Fraction(0))
    squares = sum((q for _m, _t, q in pairable), Fraction(0))
    expected_sum = 2 * (n * squares - total * total)
    if expected_sum == 0:
        return None
    observed = sum((2 * (m * q - t * t) / (m - 1) for m, t, q in pairable), Fraction(0))
    return float(1 - (observed / n) / (expected_sum / (n * (n - 1))))


def _units_by_group(
    plan: Plan, reviewer_scores: Mapping[CellKey, Sequence[Decimal]]
) -> dict[str, list[Sequence[Decimal]]]:
    group_of = {case.key: case.group for case in plan.cases}
    units: dict[str, list[Sequence[Decimal]]] = {group: [] for group in plan.groups}
    for (case_key, _candidate), scores in reviewer_scores.items():
        if case_key not in group_of:
            raise ValueError(f"Reviewer scores given for unknown case {case_key!r}.")
        units[group_of[case_key]].append(scores)
    return units


@remembered
def agreement_by_group(
    plan: Plan, reviewer_scores: Mapping[CellKey, Sequence[Decimal]]
) -> dict[str, float | None]:
    """Interval alpha per group over its cells (all candidates), ``None`` where undefined.

    Agreement is about reviewers, not weights: cases with weight 0 count like any other.
    """
    return {
        group: krippendorff_alpha_interval(units)
        for group, units in _units_by_group(plan, reviewer_scores).items()
    }


@remembered
def agreement_overall(
    plan: Plan, reviewer_scores: Mapping[CellKey, Sequence[Decimal]]
) -> float | None:
    """Interval alpha over every cell of the plan, ``None`` when undefined."""
    units = _units_by_group(plan, reviewer_scores)
    return krippendorff_alpha_interval([unit for group in plan.groups for unit in units[group]])
