"""Decision robustness under random re-weightings: how often each candidate leads when every
group weight is drawn afresh (Monte Carlo win shares), computed in floats where that is exact
enough and in Decimal where it is not."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from .base import (
    ONE,
    SHARE_QUANTUM,
    TIE_TOLERANCE,
    ZERO,
    CellKey,
    Plan,
    distinct,
    effective_weights,
    group_stats,
    quantize,
)
from .memo import remembered


def monte_carlo_wins(
    plan: Plan,
    cell_scores: Mapping[CellKey, Decimal | None],
    candidates: Sequence[str],
    group_weights: Mapping[str, Decimal] | None = None,
    runs: int = 2000,
    spread: Decimal = Decimal("0.5"),
    seed: int = 20261130,
) -> dict[str, Decimal]:
    """Share of random re-weightings (0–1, 0.001 half up) in which each candidate leads.

    In each run every group weight W_g is multiplied by an independent factor drawn uniformly
    from [1 − spread, 1 + spread] (``random.Random(seed).uniform``, one draw per plan group in
    plan order, so the same seed gives the same result), the overall scores are recomputed and
    the leader gets the win; a tie splits the win equally among the tied leaders. Shares
    therefore sum to 1 up to rounding, or to less when some runs have no scored candidate.
    """
    trials = weight_trials(plan, cell_scores, candidates, group_weights, runs, spread, seed)
    return trials.wins(candidates)


# Float scores are within 1e-13 of the exact ones (scores are on 0–5, a weighted mean of a few
# terms), so a candidate more than this behind the float leader is behind the exact one by more
# than TIE_TOLERANCE: only closer runs need the exact arithmetic.
FLOAT_MARGIN = 1e-9


@dataclass(frozen=True)
class WeightTrials:
    """The random re-weightings of :func:`monte_carlo_wins`, drawn once for a set of candidates.

    A candidate's score in a run depends on the drawn weights and its own cells only, so the
    win shares of any subset of the candidates, each run's leader taken within the subset, are
    exactly what :func:`monte_carlo_wins` gives for that subset alone (:meth:`wins`).

    Each run's scores are first computed in floats (``approx``); a run whose float leader is
    ahead of everyone else by more than ``FLOAT_MARGIN`` has that leader in the exact Decimal
    arithmetic too, so only the other runs are recomputed exactly (:meth:`exact`). The shares
    are therefore those of the exact arithmetic, at a fraction of its cost."""

    runs: int
    weights: tuple[Decimal, ...]  # the group weights in effect, in plan order
    factors: tuple[tuple[float, ...], ...]  # per run, the factor drawn for each group
    scored: dict[str, tuple[tuple[int, Decimal], ...]]  # candidate → (group index, score)
    approx: tuple[dict[str, float | None], ...]  # per run, each candidate's float score
    floats_safe: bool = True  # False: some weight has no float counterpart; always exact
    shares: dict = field(default_factory=dict, compare=False, repr=False)  # see wins()

    def exact(self, run: int, candidate: str) -> Decimal | None:
        """The candidate's overall score in a run, exactly as :func:`overall` computes it."""
        num = den = ZERO
        for index, score in self.scored[candidate]:
            weight = self.weights[index] * Decimal(self.factors[run][index])
            if weight > 0:
                num += weight * score
                den += weight
        return num / den if den > 0 else None

    def winners(self, run: int, candidates: Sequence[str]) -> list[str]:
        """The run's leaders among `candidates` (several on a tie), as leader_of decides."""
        approx = self.approx[run]
        scored = [(approx[c], c) for c in candidates if approx[c] is not None]
        if not scored:
            return []
        best = max(value for value, _c in scored)
        close = [c for value, c in scored if value >= best - FLOAT_MARGIN]
        if len(close) == 1 and self.floats_safe:
            return close
        exact = [(self.exact(run, c), c) for _value, c in scored]
        best_exact = max(value for value, _c in exact)
        return [c for value, c in exact if value >= best_exact - TIE_TOLERANCE]

    def wins(self, candidates: Sequence[str]) -> dict[str, Decimal]:
        """The share of runs each of `candidates` leads among them (kept per set of candidates:
        the trials themselves are kept by their inputs, see memo.remembered)."""
        unique = tuple(distinct(candidates))
        if unique not in self.shares:
            self.shares[unique] = self.count_wins(unique)
        return dict(self.shares[unique])

    def count_wins(self, unique: tuple[str, ...]) -> dict[str, Decimal]:
        outright = dict.fromkeys(unique, 0)  # runs led alone: most of them, counted as ints
        shared = {candidate: Fraction(0) for candidate in unique}
        for run in range(self.runs):
            winners = self.winners(run, unique)
            if len(winners) == 1:
                outright[winners[0]] += 1
            else:
                for winner in winners:
                    shared[winner] += Fraction(1, len(winners))
        counts = {candidate: outright[candidate] + shared[candidate] for candidate in unique}
        return {
            candidate: quantize(
                Decimal(count.numerator) / Decimal(count.denominator * self.runs), SHARE_QUANTUM
            )
            for candidate, count in counts.items()
        }


@remembered
def weight_trials(
    plan: Plan,
    cell_scores: Mapping[CellKey, Decimal | None],
    candidates: Sequence[str],
    group_weights: Mapping[str, Decimal] | None = None,
    runs: int = 2000,
    spread: Decimal = Decimal("0.5"),
    seed: int = 20261130,
) -> WeightTrials:
    """The runs of :func:`monte_carlo_wins` (same draws, same arithmetic) for `candidates`."""
    if runs <= 0:
        raise ValueError("runs must be > 0.")
    if not ZERO <= spread <= ONE:
        raise ValueError("spread must be between 0 and 1.")
    effective = effective_weights(plan, group_weights)
    weights = tuple(effective[g] for g in plan.groups)
    float_weights = [float(w) for w in weights]
    # A weight too small or too large for a float could decide differently in floats.
    floats_safe = all(
        w == 0 or 1e-300 < f < 1e300 for f, w in zip(float_weights, weights, strict=True)
    )
    index = {g: i for i, g in enumerate(plan.groups)}
    # Per run only the overall score changes, and only through the group weights: keep each
    # candidate's scored groups (in plan order), whose score overall_raw weighs.
    scored = {
        candidate: tuple(
            (index[group], stat.raw_score)
            for group, stat in group_stats(plan, cell_scores, candidate).items()
            if stat.raw_score is not None
        )
        for candidate in distinct(candidates)
    }
    float_scored = {c: [(i, float(score)) for i, score in groups] for c, groups in scored.items()}
    rng = random.Random(seed)
    low, high = float(ONE - spread), float(ONE + spread)
    factors, approx = [], []
    for _ in range(runs):
        drawn = tuple(rng.uniform(low, high) for _g in plan.groups)
        factors.append(drawn)
        drawn_weights = [w * f for w, f in zip(float_weights, drawn, strict=True)]
        run: dict[str, float | None] = {}
        for candidate, groups in float_scored.items():
            num = den = 0.0
            for i, score in groups:
                weight = drawn_weights[i]
                if weight > 0:
                    num += weight * score
                    den += weight
            run[candidate] = num / den if den > 0 else None
        approx.append(run)
    return WeightTrials(
        runs=runs,
        weights=weights,
        factors=tuple(factors),
        scored=scored,
        approx=tuple(approx),
        floats_safe=floats_safe,
    )
