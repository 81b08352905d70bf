"""Enough data to name a leader? The guard in front of robustness and win shares: every
candidate complete enough, and scored in every weighted group."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from .base import (
    SHARE_QUANTUM,
    CellKey,
    Plan,
    distinct,
    effective_weights,
    group_stats,
    overall_raw,
    quantize,
)

MIN_COMPLETENESS = Decimal("0.6")
"""Below this weighted completeness, robustness and win shares name no leader."""


@dataclass(frozen=True)
class Sufficiency:
    """Whether the scores are complete enough for robustness and win shares to name a leader.

    ``enough`` is True when there are candidates, each has an overall completeness of at least
    ``MIN_COMPLETENESS`` (60 % of the weighted cells, under the weights in effect) and none
    lacks every score in a group that carries weight. Otherwise ``thin`` lists, per candidate
    short of data, its completeness (0–1, 0.001) and the weighted groups it has no score in.
    """

    enough: bool
    minimum: Decimal
    thin: tuple[tuple[str, Decimal, tuple[str, ...]], ...]


def sufficiency(
    plan: Plan,
    cell_scores: Mapping[CellKey, Decimal | None],
    candidates: Sequence[str],
    group_weights: Mapping[str, Decimal] | None = None,
    minimum: Decimal = MIN_COMPLETENESS,
) -> Sufficiency:
    """See :class:`Sufficiency`: the guard in front of :func:`weight_sensitivity` and
    :func:`monte_carlo_wins` for anything shown to people."""
    weights = effective_weights(plan, group_weights)
    thin = []
    unique = distinct(candidates)
    for candidate in unique:
        stats = group_stats(plan, cell_scores, candidate)
        completeness = overall_raw(stats, weights)[1]
        empty = tuple(
            group
            for group, stat in stats.items()
            if weights[group] > 0 and stat.total_weight > 0 and stat.scored_weight == 0
        )
        if completeness < minimum or empty:
            thin.append((candidate, quantize(completeness, SHARE_QUANTUM), empty))
    return Sufficiency(enough=bool(unique) and not thin, minimum=minimum, thin=tuple(thin))
