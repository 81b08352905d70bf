"""Decision robustness, one group weight at a time: the smallest change of a single group's
weight that changes the leader, solved exactly."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, localcontext

from .base import (
    CHANGE_QUANTUM,
    ONE,
    SCORE_QUANTUM,
    ZERO,
    CellKey,
    GroupStat,
    Plan,
    distinct,
    effective_weights,
    group_stats,
    leader_of,
    overall_raw,
    quantize,
)
from .memo import remembered


@dataclass(frozen=True)
class WeightFlip:
    """The smallest change of one group's weight that changes the leader.

    ``change`` is signed and expressed as a fraction of the current total group weight
    (0.01, half up): −0.17 means "lower this group's weight by 17 % of the total weight".
    ``new_weight`` is the group weight at that point (0.01) in the plan's own units, and
    ``new_leader`` who leads just beyond it.
    """

    group: str
    change: Decimal
    new_weight: Decimal
    new_leader: tuple[str, ...]
    raw_change: Decimal = field(repr=False, compare=False)


@dataclass(frozen=True)
class Sensitivity:
    """How robust the current leader is to a change of one group weight at a time.

    ``by_group`` has every plan group; ``None`` means the leader does not change within the
    searched range. ``min_change``, ``group`` and ``new_leader`` describe the smallest flip over
    all groups, or are all ``None`` when there is none.
    """

    leader: tuple[str, ...]
    total_weight: Decimal
    by_group: dict[str, WeightFlip | None]
    min_change: Decimal | None
    group: str | None
    new_leader: tuple[str, ...] | None


@dataclass(frozen=True)
class _Line:
    """A candidate's overall score as a function of one group weight w: (A + a·w) / (B + b·w).

    A, B are the weighted score sum and weight sum over the *other* scored groups; a is the
    candidate's score in the varied group and b = 1 if it has one (else a = b = 0).
    """

    A: Decimal
    B: Decimal
    a: Decimal
    b: Decimal

    def at(self, w: Decimal) -> Decimal | None:
        den = self.B + self.b * w
        return (self.A + self.a * w) / den if den > 0 else None


def _crossings(p: _Line, q: _Line) -> list[Decimal]:
    """Weights w where p(w) = q(w).

    These are the roots of (A_p + a_p·w)(B_q + b_q·w) − (A_q + a_q·w)(B_p + b_p·w) = 0, i.e.
    α·w² + β·w + γ = 0 with α = a_p·b_q − a_q·b_p, β = A_p·b_q + a_p·B_q − A_q·b_p − a_q·B_p and
    γ = A_p·B_q − A_q·B_p. It is linear when both candidates have (or both lack) a score in the
    varied group, quadratic otherwise. Roots where a side is undefined (w ≤ 0 with B = 0) are
    harmless: the caller evaluates the leader at every root rather than trusting it.
    """
    alpha = p.a * q.b - q.a * p.b
    beta = p.A * q.b + p.a * q.B - q.A * p.b - q.a * p.B
    gamma = p.A * q.B - q.A * p.B
    if alpha == 0:
        return [] if beta == 0 else [-gamma / beta]
    discriminant = beta * beta - 4 * alpha * gamma
    if discriminant < 0:
        return []
    root = discriminant.sqrt()
    return [(-beta - root) / (2 * alpha), (-beta + root) / (2 * alpha)]


def _first_flip(
    start: Decimal,
    end: Decimal,
    critical: Sequence[Decimal],
    leader_at: Callable[[Decimal], tuple[str, ...]],
) -> tuple[Decimal, tuple[str, ...]] | None:
    """Walk from ``start`` to ``end`` and return (weight, new leader) at the first change.

    ``critical`` holds every weight where two candidates' scores can be equal; between two
    consecutive critical weights the leader is constant, so checking each critical weight and
    one point inside each interval is exact.
    """
    current = leader_at(start)
    ascending = end > start
    inside = sorted(
        {w for w in critical if (start < w < end if ascending else end < w < start)},
        reverse=not ascending,
    )
    bounds = [start, *inside, end]
    for i in range(1, len(bounds)):
        middle = leader_at((bounds[i - 1] + bounds[i]) / 2)
        if middle != current:
            # Only possible right after ``start`` (a tie that separates, or a candidate scored
            # only in this group appearing as its weight leaves 0): the change is infinitesimal.
            return bounds[i - 1], middle
        at_bound = leader_at(bounds[i])
        if at_bound != current:
            if i + 1 < len(bounds):
                beyond = leader_at((bounds[i] + bounds[i + 1]) / 2)
                if beyond != current:
                    return bounds[i], beyond
            return bounds[i], at_bound
    return None


@remembered
def weight_sensitivity(
    plan: Plan,
    cell_scores: Mapping[CellKey, Decimal | None],
    candidates: Sequence[str],
    group_weights: Mapping[str, Decimal] | None = None,
    max_change: Decimal = Decimal("1"),
) -> Sensitivity:
    """The smallest change of a single group weight that changes the leader.

    Let T be the current total group weight. For each group h, its weight w_h is moved up to
    ``max_change × T`` up and down (never below 0) while the other weights stay put, and the
    first weight at which the leader tuple changes is reported as the signed change
    ``(w − w_h) / T`` — a fraction of the total, so groups are comparable.

    Solved exactly, not scanned: with the other weights fixed, each candidate's overall score
    is (A + a·w) / (B + b·w) (see ``_Line``), so two candidates can only swap places where
    these ratios are equal, i.e. at the real roots of a polynomial of degree ≤ 2 (``_crossings``).
    The leader is constant between consecutive roots, so evaluating the leader at every root
    inside the range and once inside every interval finds the first change exactly (the
    computation runs at 50 significant digits). A change "at" a crossing means the other
    candidate draws level there and leads beyond it; ``new_leader`` is who leads just beyond it
    (or the tie, when the curves only touch). When the current leader is a tie, any weight
    that separates the tied candidates changes the leader, so the change is 0.00.

    The smallest flip over all groups is the one with the smallest absolute change; on equal
    changes the earlier group in plan order wins and, within a group, the increase.
    """
    if max_change < 0:
        raise ValueError("max_change must be ≥ 0.")
    weights = effective_weights(plan, group_weights)
    unique = distinct(candidates)
    stats = {candidate: group_stats(plan, cell_scores, candidate) for candidate in unique}
    total = sum(weights.values(), ZERO)
    current = leader_of({c: overall_raw(stats[c], weights)[0] for c in unique})

    by_group: dict[str, WeightFlip | None] = {}
    with localcontext() as ctx:
        ctx.prec = max(ctx.prec, 50)
        for group in plan.groups:
            lines = {c: _line(stats[c], weights, group) for c in unique}
            by_group[group] = _group_flip(group, weights[group], total, max_change, lines)

    flips = [flip for flip in by_group.values() if flip is not None]
    best = min(flips, key=lambda flip: abs(flip.raw_change), default=None)
    return Sensitivity(
        leader=current,
        total_weight=total,
        by_group=by_group,
        min_change=None if best is None else best.change,
        group=None if best is None else best.group,
        new_leader=None if best is None else best.new_leader,
    )


def _line(stats: Mapping[str, GroupStat], weights: Mapping[str, Decimal], group: str) -> _Line:
    A = B = ZERO
    for other, stat in stats.items():
        if other != group and stat.raw_score is not None:
            A += weights[other] * stat.raw_score
            B += weights[other]
    varied = stats[group].raw_score
    if varied is None:
        return _Line(A=A, B=B, a=ZERO, b=ZERO)
    return _Line(A=A, B=B, a=varied, b=ONE)


def _group_flip(
    group: str,
    weight: Decimal,
    total: Decimal,
    max_change: Decimal,
    lines: Mapping[str, _Line],
) -> WeightFlip | None:
    if total <= 0:
        return None

    def leader_at(w: Decimal) -> tuple[str, ...]:
        return leader_of({c: line.at(w) for c, line in lines.items()})

    keys = list(lines)
    critical = [
        root
        for i, p in enumerate(keys)
        for q in keys[i + 1 :]
        for root in _crossings(lines[p], lines[q])
    ]
    reach = max_change * total
    found: list[tuple[Decimal, tuple[str, ...]]] = []
    for end in (weight + reach, max(ZERO, weight - reach)):
        if end == weight:
            continue
        flip = _first_flip(weight, end, critical, leader_at)
        # Nobody leading (every candidate scored only in this group, whose weight reached 0)
        # is not a new leader: there is nothing to name.
        if flip is not None and flip[1]:
            found.append(flip)
    if not found:
        return None
    new_weight, new_leader = min(found, key=lambda item: abs(item[0] - weight))
    raw_change = (new_weight - weight) / total
    return WeightFlip(
        group=group,
        change=quantize(raw_change, CHANGE_QUANTUM),
        new_weight=quantize(new_weight, SCORE_QUANTUM),
        new_leader=new_leader,
        raw_change=raw_change,
    )
