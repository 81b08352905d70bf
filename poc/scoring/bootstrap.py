"""Uncertainty, not only weights: a bootstrap over reviewers and cells that says how often the
leader stays leader when the same evaluation is re-drawn from its own scores.

Pure: plain values in, a frozen result out; nothing from Django."""

from __future__ import annotations

import random
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import repeat
from operator import add, mul, truediv

from .base import (
    SHARE_QUANTUM,
    CellKey,
    Plan,
    check_score,
    distinct,
    effective_weights,
    group_stats,
    leader_of,
    overall_raw,
    quantize,
)
from .memo import remembered

RESAMPLES = 1000
SEED = 20261204
MIN_SHARE = Decimal("0.8")
"""Below this bootstrap share the leader is not named (see poc.thin)."""

# Scores are summed as fixed-point integers packed side by side in one Python integer (one
# 64-bit field per candidate and per numerator / denominator), so that a resample costs a few
# integer additions instead of a loop over every cell of every candidate.
_SCALE = 2**40
_FIELD = 8  # bytes per field
_MARGIN = 1e-9  # totals closer than this tie (fixed point is exact to about 1e-12)


@dataclass(frozen=True)
class Bootstrap:
    """How often the leader stays leader over ``resamples`` bootstrap resamples.

    ``leader`` is the candidate leading on the scores as they are (``None`` on a tie or when
    nobody has a score: then there is no leader to keep and ``share`` is ``None``). ``share``
    is in 0–1 (0.001, half up); a resample in which the leader ties with others counts as a
    share of one over the number tied. ``reviewers`` is how many reviewers were resampled.
    """

    leader: str | None
    share: Decimal | None
    resamples: int
    seed: int
    reviewers: int

    @property
    def names_leader(self) -> bool:
        """False when the leader keeps its place in fewer than ``MIN_SHARE`` of resamples."""
        return self.share is None or self.share >= MIN_SHARE


@remembered
def leader_bootstrap(
    plan: Plan,
    cell_scores: Mapping[CellKey, Decimal | None],
    reviewer_marks: Mapping[CellKey, Mapping[str, Decimal]],
    candidates: Sequence[str],
    group_weights: Mapping[str, Decimal] | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Bootstrap:
    """The share of bootstrap resamples in which the current leader stays leader.

    Each resample, drawn from ``random.Random(seed)`` so that the same scores always give the
    same share:

    1. **Reviewers**: R reviewers are drawn with replacement from the R who scored these
       candidates. A cell with reviewer marks (``reviewer_marks[cell]``: reviewer → score, for
       cells whose value is the mean of their reviewers' scores) is worth the mean of the
       drawn reviewers' scores, counted as often as drawn; a cell none of the drawn reviewers
       scored is missing. A cell without marks keeps its value (a consensus stays as agreed).
    2. **Cells**: within each weighted group its n cases are drawn n times with replacement;
       a case drawn twice counts twice.

    Then each candidate's total is computed as :func:`overall` does — per group the
    case-weighted mean of the scored drawn cells, missing cells excluded, then the
    group-weighted mean of the groups with a score — and the leader of the resample is
    compared with the current one. Totals are summed in fixed point (2⁻⁴⁰ of a point), so
    two totals closer than ``1e-9`` count as tied.
    """
    if resamples <= 0:
        raise ValueError("resamples must be > 0.")
    weights = effective_weights(plan, group_weights)
    unique = distinct(candidates)
    current = leader_of(
        {c: overall_raw(group_stats(plan, cell_scores, c), weights)[0] for c in unique}
    )
    marks = {key: value for key, value in reviewer_marks.items() if key[1] in unique and value}
    for (case, candidate), by_reviewer in marks.items():
        for score in by_reviewer.values():  # the packed sums below assume the 0–5 scale
            check_score(score, f"Reviewer score of case {case!r} for {candidate!r}")
    reviewers = sorted({reviewer for value in marks.values() for reviewer in value})
    if len(current) != 1:
        return Bootstrap(None, None, resamples, seed, len(reviewers))
    leader = current[0]
    cases = _weighted_cases(plan, weights)
    layout = _Layout(unique, [w for _g, w, _c in cases])
    draws = _Draws(cell_scores, marks, reviewers, unique, cases, layout)
    pickers = [_Picker(len(group_cases)) for _g, _w, group_cases in cases]
    rng = random.Random(seed)
    count = len(reviewers)
    kept = 0.0
    for _ in range(resamples):
        drawn = [0] * count
        for _r in range(count):
            drawn[int(rng.random() * count)] += 1
        packed = draws.packed(tuple(drawn))
        total = 0
        for row, picker in zip(packed, pickers, strict=True):
            total += sum(map(row.__getitem__, picker.pick(rng)))
        kept += layout.kept(total, leader)
    share = quantize(Decimal(kept) / resamples, SHARE_QUANTUM)
    return Bootstrap(leader, share, resamples, seed, count)


class _Picker:
    """Draws n indices in 0…n−1 with replacement, uniformly: random bytes mapped through a
    table, the bytes that would favour some indices (those ≥ the largest multiple of n) left
    out, so that a draw costs a few calls into C rather than one per index."""

    def __init__(self, n: int):
        self.n = n
        self.small = n <= 256
        if self.small:
            limit = 256 - 256 % n
            self.table = bytes(b % n if b < limit else 0 for b in range(256))
            self.rejected = bytes(range(limit, 256))
            self.ask = n + n // 4 + 8

    def pick(self, rng: random.Random):
        if not self.small:
            return [int(rng.random() * self.n) for _ in range(self.n)]
        picked = rng.randbytes(self.ask).translate(self.table, self.rejected)
        while len(picked) < self.n:
            picked += rng.randbytes(self.ask).translate(self.table, self.rejected)
        return picked[: self.n]


def _weighted_cases(plan: Plan, weights: Mapping[str, Decimal]):
    """[(group, group weight, [(case key, case weight scaled to max 1)])] for weighted groups
    with weighted cases."""
    out = []
    for group in plan.groups:
        if weights[group] <= 0:
            continue
        cases = [(c.key, c.weight) for c in plan.cases if c.group == group and c.weight > 0]
        if cases:
            top = max(w for _k, w in cases)
            out.append((group, float(weights[group]), [(k, float(w / top)) for k, w in cases]))
    return out


class _Layout:
    """Where each candidate's numerator and denominator sit in a packed integer: group by
    group the numerators of every candidate, then, after all of them, the denominators in the
    same order."""

    def __init__(self, candidates: list[str], group_weights: list[float]):
        self.candidates = candidates
        self.weights = group_weights
        self.half = len(candidates) * len(group_weights)
        self.format = f"<{2 * self.half}Q"
        self.size = 2 * self.half * _FIELD
        self.index = {c: i for i, c in enumerate(candidates)}

    def shift(self, group_index: int, candidate: str, denominator: bool) -> int:
        slot = group_index * len(self.candidates) + self.index[candidate]
        slot += self.half if denominator else 0
        return slot * _FIELD * 8

    def kept(self, total: int, leader: str) -> float:
        """1 when `leader` leads alone in this resample, 1/k on a k-way tie, else 0."""
        values = struct.unpack(self.format, total.to_bytes(self.size, "little"))
        nums, dens = values[: self.half], values[self.half :]
        n = len(self.candidates)
        me = self.index[leader]
        if all(dens):
            # The usual case: every candidate has a score in every group, so all share the
            # same denominator Σ W_g and the weighted sums of group means decide.
            means = list(map(truediv, nums, dens))
            scores = [0.0] * n
            for g, weight in enumerate(self.weights):
                part = means[g * n : (g + 1) * n]
                scores = list(map(add, scores, map(mul, repeat(weight), part)))
            margin = _MARGIN * sum(self.weights)
        else:
            num, den = [0.0] * n, [0.0] * n
            for g, weight in enumerate(self.weights):
                for c in range(n):
                    if dens[g * n + c]:
                        num[c] += weight * nums[g * n + c] / dens[g * n + c]
                        den[c] += weight
            if not den[me]:
                return 0.0
            scores = [a / b if b else -1.0 for a, b in zip(num, den, strict=True)]
            margin = _MARGIN
        mine = scores[me]
        if max(scores) > mine + margin:
            return 0.0
        return 1.0 / sum(1 for s in scores if s >= mine - margin)


class _Draws:
    """Each case's packed integer per reviewer draw, computed once per distinct draw.

    A case's packed integer is linear in the reviewer draw for the cells every reviewer
    scored (their mean is Σ t_r·s_r / R when reviewer r is drawn t_r times, Σ t_r = R): those
    are kept as one integer per reviewer, and only cells some reviewers left unscored are
    recomputed per draw."""

    def __init__(self, cell_scores, marks, reviewers, candidates, cases, layout: _Layout):
        position = {r: i for i, r in enumerate(reviewers)}
        count = len(reviewers)
        self.kept: dict[tuple[int, ...], list[list[int]]] = {}
        self.rows = []  # per group, per case: (fixed, per-reviewer, partial cells)
        for index, (_g, _w, group_cases) in enumerate(cases):
            row = []
            for case, weight in group_cases:
                fixed, linear, partial = 0, [0] * count, []
                for candidate in candidates:
                    key = (case, candidate)
                    at_num = layout.shift(index, candidate, False)
                    at_den = layout.shift(index, candidate, True)
                    cell = marks.get(key)
                    if cell is None:
                        value = cell_scores.get(key)
                        if value is not None:
                            fixed += round(weight * float(value) * _SCALE) << at_num
                            fixed += round(weight * _SCALE) << at_den
                    elif len(cell) == count:
                        fixed += round(weight * _SCALE) << at_den
                        for reviewer, score in cell.items():
                            part = round(weight * float(score) * _SCALE / count)
                            linear[position[reviewer]] += part << at_num
                    else:
                        scores = [(position[r], float(s)) for r, s in cell.items()]
                        partial.append((at_num, at_den, weight, scores))
                row.append((fixed, linear, partial))
            self.rows.append(row)

    def packed(self, drawn: tuple[int, ...]) -> list[list[int]]:
        if drawn in self.kept:
            return self.kept[drawn]
        out = []
        for row in self.rows:
            packed_row = []
            for fixed, linear, partial in row:
                total = fixed + sum(t * part for t, part in zip(drawn, linear, strict=True) if t)
                for at_num, at_den, weight, scores in partial:
                    num = sum(drawn[r] * s for r, s in scores)
                    den = sum(drawn[r] for r, _s in scores)
                    if den:
                        total += round(weight * num / den * _SCALE) << at_num
                        total += round(weight * _SCALE) << at_den
                packed_row.append(total)
            out.append(packed_row)
        self.kept[drawn] = out
        return out
