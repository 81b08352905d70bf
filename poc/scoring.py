"""POC scoring: pure functions on plain values.

Everything here works on ``Decimal`` weights and scores and imports nothing from Django, so the
maths can be read, tested and reused without a database. Services turn scorecards into the plain
values below; views and reports only display what these functions return.

Vocabulary
----------
* A **plan** is the one POC test set applied to every candidate: ordered groups, a weight per
  group and cases (each in one group, with its own weight).
* A **cell** is one (case, candidate) pair. Its score is on the 0–5 scale, or ``None`` when
  nobody has scored it yet. A missing score is *excluded* from every average, never counted as
  zero: a candidate must not lose points because a reviewer has not got round to a case. That is
  why every total comes with a **completeness** figure, and completeness must be shown next to
  the score it belongs to (a 4.5 over 20 % of the weight is not a 4.5 over 100 %).
* A **scenario profile** is a set of group weights that *replaces* the plan's group weights
  (a training-heavy profile weights batch training up, for example). Comparing candidates under
  each profile is "scenario fit", not a leaderboard.

Rounding
--------
Internally nothing is rounded (``raw_score`` fields keep full ``Decimal`` precision and
rankings use them). Figures meant for people are quantized explicitly with ``ROUND_HALF_UP``:
scores to 0.01, percentages to 0.1 (so shares in 0–1 to 0.001) and weight changes to 0.01.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

SCALE_MIN = Decimal(0)
SCALE_MAX = Decimal(5)

SCORE_QUANTUM = Decimal("0.01")
PERCENT_QUANTUM = Decimal("0.1")
SHARE_QUANTUM = Decimal("0.001")  # a share in 0–1 shown as a percentage to 0.1
CHANGE_QUANTUM = Decimal("0.01")

# Two raw scores closer than this are a tie. Decimal division rounds at the 28th digit, so two
# mathematically equal weighted means can differ in the last place; without a tolerance such
# noise would invent a leader.
TIE_TOLERANCE = Decimal("1e-12")

ZERO = Decimal(0)
ONE = Decimal(1)

CellKey = tuple[str, str]
"""(case key, candidate key)."""


# --------------------------------------------------------------------------------------------
# Plain data
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One POC case: its key, the group it belongs to and its weight within that group."""

    key: str
    group: str
    weight: Decimal

    def __post_init__(self) -> None:
        if self.weight < 0:
            raise ValueError(f"Case {self.key!r}: weight must be ≥ 0, got {self.weight}.")


@dataclass(frozen=True)
class Plan:
    """The POC test set: ordered groups, their weights and the cases.

    A group missing from ``group_weights`` has weight 0. Weights are relative: only their
    ratios matter, so 30/70 and 0.3/0.7 give the same results. Any sequences are accepted and
    stored as tuples (and the weights as a copied dict).
    """

    groups: Sequence[str]
    group_weights: Mapping[str, Decimal]
    cases: Sequence[Case]

    def __post_init__(self) -> None:
        object.__setattr__(self, "groups", tuple(self.groups))
        object.__setattr__(self, "cases", tuple(self.cases))
        object.__setattr__(self, "group_weights", dict(self.group_weights))
        if len(set(self.groups)) != len(self.groups):
            raise ValueError("Plan groups must be unique.")
        keys = [case.key for case in self.cases]
        if len(set(keys)) != len(keys):
            raise ValueError("Plan case keys must be unique.")
        known = set(self.groups)
        for case in self.cases:
            if case.group not in known:
                raise ValueError(f"Case {case.key!r} is in unknown group {case.group!r}.")
        _check_group_weights(self, self.group_weights)


@dataclass(frozen=True)
class GroupTotal:
    """A candidate's result in one group.

    ``score`` is the case-weighted mean of the *scored* cases (0.01, half up) and
    ``raw_score`` the same unrounded; both are ``None`` when no case with a positive weight has
    a score. ``completeness`` = ``scored_weight / total_weight`` in 0–1 (0.001, half up; 0 when
    the group has no case weight). ``group_weight`` is the group weight in effect.
    """

    group: str
    score: Decimal | None
    raw_score: Decimal | None
    scored_weight: Decimal
    total_weight: Decimal
    completeness: Decimal
    group_weight: Decimal


@dataclass(frozen=True)
class Overall:
    """A candidate's overall result under one set of group weights.

    ``score`` (0.01) and ``percent`` (= score / 5 × 100, 0.1) are rounded half up from
    ``raw_score``; all three are ``None`` when no weighted group has a score. ``completeness``
    (0–1, 0.001) must be displayed next to the score.
    """

    score: Decimal | None
    raw_score: Decimal | None
    percent: Decimal | None
    completeness: Decimal


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
class _GroupStat:
    raw_score: Decimal | None
    scored_weight: Decimal
    total_weight: Decimal

    @property
    def completeness(self) -> Decimal:
        return self.scored_weight / self.total_weight if self.total_weight > 0 else ZERO


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _quantize(value: Decimal, quantum: Decimal) -> Decimal:
    return value.quantize(quantum, rounding=ROUND_HALF_UP)


def _quantize_or_none(value: Decimal | None, quantum: Decimal) -> Decimal | None:
    return None if value is None else _quantize(value, quantum)


def _check_score(value: Decimal, what: str) -> None:
    if not SCALE_MIN <= value <= SCALE_MAX:
        raise ValueError(f"{what} must be between {SCALE_MIN} and {SCALE_MAX}, got {value}.")


def _check_group_weights(plan: Plan, weights: Mapping[str, Decimal]) -> None:
    known = set(plan.groups)
    for group, weight in weights.items():
        if group not in known:
            raise ValueError(f"Weight given for unknown group {group!r}.")
        if weight < 0:
            raise ValueError(f"Group {group!r}: weight must be ≥ 0, got {weight}.")


def _effective_weights(
    plan: Plan, group_weights: Mapping[str, Decimal] | None
) -> dict[str, Decimal]:
    """The plan's group weights, or ``group_weights`` replacing them; a missing group is 0."""
    weights = plan.group_weights if group_weights is None else group_weights
    _check_group_weights(plan, weights)
    return {group: Decimal(weights.get(group, ZERO)) for group in plan.groups}


def _unique(candidates: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(candidates))


def _group_stats(
    plan: Plan, cell_scores: Mapping[CellKey, Decimal | None], candidate: str
) -> dict[str, _GroupStat]:
    """Per group: weighted mean over scored cases, scored case weight and total case weight."""
    weighted_sum = dict.fromkeys(plan.groups, ZERO)
    scored = dict.fromkeys(plan.groups, ZERO)
    total = dict.fromkeys(plan.groups, ZERO)
    for case in plan.cases:
        total[case.group] += case.weight
        value = cell_scores.get((case.key, candidate))
        if value is None:
            continue
        _check_score(value, f"Score of case {case.key!r} for {candidate!r}")
        scored[case.group] += case.weight
        weighted_sum[case.group] += case.weight * value
    return {
        group: _GroupStat(
            raw_score=weighted_sum[group] / scored[group] if scored[group] > 0 else None,
            scored_weight=scored[group],
            total_weight=total[group],
        )
        for group in plan.groups
    }


def _overall_raw(
    stats: Mapping[str, _GroupStat], weights: Mapping[str, Decimal]
) -> tuple[Decimal | None, Decimal]:
    """(unrounded overall score or None, unrounded completeness) — see :func:`overall`."""
    score_num = score_den = completeness_num = completeness_den = ZERO
    for group, stat in stats.items():
        weight = weights[group]
        if stat.raw_score is not None and weight > 0:
            score_num += weight * stat.raw_score
            score_den += weight
        if stat.total_weight > 0:
            completeness_num += weight * stat.completeness
            completeness_den += weight
    score = score_num / score_den if score_den > 0 else None
    completeness = completeness_num / completeness_den if completeness_den > 0 else ZERO
    return score, completeness


def _leader_of(raw_scores: Mapping[str, Decimal | None]) -> tuple[str, ...]:
    scored = {key: value for key, value in raw_scores.items() if value is not None}
    if not scored:
        return ()
    best = max(scored.values())
    return tuple(sorted(key for key, value in scored.items() if value >= best - TIE_TOLERANCE))


# --------------------------------------------------------------------------------------------
# Cells
# --------------------------------------------------------------------------------------------


def cell_value(
    reviewer_scores: Sequence[Decimal], consensus: Decimal | None = None
) -> Decimal | None:
    """The score that counts for one cell.

    A recorded consensus wins outright; otherwise the arithmetic mean of the reviewers' scores
    (unrounded); ``None`` when there is neither — the cell is missing, not zero.
    """
    for value in reviewer_scores:
        _check_score(value, "Reviewer score")
    if consensus is not None:
        _check_score(consensus, "Consensus score")
        return Decimal(consensus)
    if not reviewer_scores:
        return None
    return sum(reviewer_scores, ZERO) / len(reviewer_scores)


def disagreement(reviewer_scores: Sequence[Decimal], threshold: Decimal = Decimal("0.3")) -> bool:
    """Whether reviewers disagree enough on one cell to call for a consensus discussion.

    True when at least two scores exist and their range reaches ``threshold`` of the scale:
    ``max − min ≥ threshold × (SCALE_MAX − SCALE_MIN)``, i.e. ≥ 1.5 points on 0–5 by default.
    """
    if len(reviewer_scores) < 2:
        return False
    spread = max(reviewer_scores) - min(reviewer_scores)
    return spread >= threshold * (SCALE_MAX - SCALE_MIN)


# --------------------------------------------------------------------------------------------
# The rubric: allowed values and measured values
# --------------------------------------------------------------------------------------------

RUBRIC_STEP = Decimal("0.5")
"""Scores are 0–5 in whole or half points: 0, 0.5, 1, …, 5."""

MEETS = Decimal(3)
"""The rubric's 3: "meets the acceptance criteria"."""

LOWER = "lower"
HIGHER = "higher"
DIRECTIONS = (LOWER, HIGHER)

GOOD_MARGIN = Decimal("0.10")
EXCELLENT_MARGIN = Decimal("0.25")
"""Default bands, as a share of |threshold|: 10 % better than the threshold scores 4, 25 %
better 5; up to 10 % worse 2, up to 25 % worse 1, worse still 0."""


def rubric_problem(value: Decimal | None) -> str | None:
    """Why ``value`` is not an allowed rubric score: ``"range"`` (outside 0–5), ``"step"`` (not
    a whole or half point) or ``None`` when it is allowed (or absent)."""
    if value is None:
        return None
    if not value.is_finite() or not SCALE_MIN <= value <= SCALE_MAX:
        return "range"
    if (value - SCALE_MIN) % RUBRIC_STEP:
        return "step"
    return None


@dataclass(frozen=True)
class Bands:
    """Where a measured value lands on the rubric, for one metric.

    ``steps`` holds (limit, score) from the best band down: a value at least as good as
    ``limit`` (≤ for lower-is-better, ≥ for higher-is-better) scores ``score``; a value worse
    than every limit scores 0. Meeting the threshold exactly is 3 ("meets the acceptance
    criteria"). ``default`` tells whether the 4/5 limits are the documented default margins.
    """

    direction: str
    threshold: Decimal
    steps: tuple[tuple[Decimal, Decimal], ...]
    default: bool

    def score(self, value: Decimal) -> Decimal:
        for limit, score in self.steps:
            if self.at_least_as_good(value, limit):
                return score
        return ZERO

    def at_least_as_good(self, value: Decimal, limit: Decimal) -> bool:
        return value <= limit if self.direction == LOWER else value >= limit


def _better(direction: str, a: Decimal, b: Decimal) -> bool:
    """Whether ``a`` is strictly better than ``b``."""
    return a < b if direction == LOWER else a > b


def measured_bands(
    direction: str,
    threshold: Decimal,
    good: Decimal | None = None,
    excellent: Decimal | None = None,
) -> Bands:
    """The bands for a metric (see :class:`Bands`), with m = |threshold|.

    * 5: at least as good as ``excellent`` (default: threshold ∓ 25 % of m);
    * 4: at least as good as ``good`` (default: threshold ∓ 10 % of m);
    * 3: meets the threshold;
    * 2: worse by at most 10 % of m; 1: worse by at most 25 % of m; 0: worse still.

    Lower-is-better subtracts to improve, higher-is-better adds. A threshold of 0 has no scale
    for percentages, so without explicit ``good``/``excellent`` it has only "meets" (3) and
    "misses" (0). Explicit limits must lie beyond the threshold in the metric's direction,
    ``excellent`` beyond ``good``; a ``ValueError`` says which is wrong. ``direction`` must be
    ``"lower"`` or ``"higher"`` — anything else is an error, not silently "higher".
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"Direction must be one of {DIRECTIONS}, got {direction!r}.")
    if not threshold.is_finite():
        raise ValueError("The threshold must be a finite number.")
    sign = -1 if direction == LOWER else 1
    margin = abs(threshold)
    default = good is None and excellent is None
    if good is not None and not _better(direction, good, threshold):
        raise ValueError("good: the value for 4 must be better than the threshold.")
    floor = threshold if good is None else good
    if excellent is not None and not _better(direction, excellent, floor):
        raise ValueError("excellent: the value for 5 must be better than the value for 4.")
    if good is None and margin:
        good = threshold + sign * GOOD_MARGIN * margin
        if excellent is not None and not _better(direction, excellent, good):
            good = None
    if excellent is None and margin:
        excellent = threshold + sign * EXCELLENT_MARGIN * margin
        if good is not None and not _better(direction, excellent, good):
            excellent = None
    steps: list[tuple[Decimal, Decimal]] = []
    if excellent is not None:
        steps.append((excellent, Decimal(5)))
    if good is not None:
        steps.append((good, Decimal(4)))
    steps.append((threshold, MEETS))
    if margin:
        steps.append((threshold - sign * GOOD_MARGIN * margin, Decimal(2)))
        steps.append((threshold - sign * EXCELLENT_MARGIN * margin, Decimal(1)))
    return Bands(direction=direction, threshold=threshold, steps=tuple(steps), default=default)


def measured_to_score(
    direction: str,
    threshold: Decimal,
    value: Decimal,
    good: Decimal | None = None,
    excellent: Decimal | None = None,
) -> Decimal:
    """A measured value on the rubric: meeting the threshold is 3 (see :func:`measured_bands`)."""
    if not value.is_finite():
        raise ValueError("The measured value must be a finite number.")
    return measured_bands(direction, threshold, good, excellent).score(value)


# --------------------------------------------------------------------------------------------
# Totals
# --------------------------------------------------------------------------------------------


def group_totals(
    plan: Plan,
    cell_scores: Mapping[CellKey, Decimal | None],
    candidate: str,
    group_weights: Mapping[str, Decimal] | None = None,
) -> dict[str, GroupTotal]:
    """A candidate's score and completeness in each group, in plan order.

    For group g with cases i, case weights w_i and cell scores s_i (S = cases with a score)::

        score_g        = Σ_{i∈S} w_i·s_i / Σ_{i∈S} w_i        (None if Σ_{i∈S} w_i = 0)
        completeness_g = Σ_{i∈S} w_i / Σ_i w_i                 (0 if Σ_i w_i = 0)

    Missing scores are left out of both sums of the mean — they are not zeros — so the score
    says how well the candidate did on what has been tested, and completeness says how much of
    the group that is. Cases with weight 0 never move the score. ``group_weights`` (default: the
    plan's) only fills ``GroupTotal.group_weight``; group scores do not depend on group weights.
    """
    weights = _effective_weights(plan, group_weights)
    stats = _group_stats(plan, cell_scores, candidate)
    return {
        group: GroupTotal(
            group=group,
            score=_quantize_or_none(stat.raw_score, SCORE_QUANTUM),
            raw_score=stat.raw_score,
            scored_weight=stat.scored_weight,
            total_weight=stat.total_weight,
            completeness=_quantize(stat.completeness, SHARE_QUANTUM),
            group_weight=weights[group],
        )
        for group, stat in stats.items()
    }


def _make_overall(raw_score: Decimal | None, completeness: Decimal) -> Overall:
    percent = None if raw_score is None else raw_score / (SCALE_MAX - SCALE_MIN) * 100
    return Overall(
        score=_quantize_or_none(raw_score, SCORE_QUANTUM),
        raw_score=raw_score,
        percent=_quantize_or_none(percent, PERCENT_QUANTUM),
        completeness=_quantize(completeness, SHARE_QUANTUM),
    )


def overall(
    plan: Plan,
    cell_scores: Mapping[CellKey, Decimal | None],
    candidate: str,
    group_weights: Mapping[str, Decimal] | None = None,
) -> Overall:
    """A candidate's overall score and completeness under the given group weights.

    With group weights W_g (default: the plan's) and group results from :func:`group_totals`::

        score        = Σ_g W_g·score_g / Σ_g W_g        over groups with a score and W_g > 0
        completeness = Σ_g W_g·completeness_g / Σ_g W_g  over groups with case weight > 0
        percent      = score / 5 × 100

    ``score`` is ``None`` when no weighted group has a score; completeness is 0 when no group
    carries weight. Missing scores are excluded, not counted as zero (a group with no score at
    all drops out of the mean), so a high score can rest on few cases: always show completeness
    next to the score. Groups with weight 0 contribute nothing to either figure.
    """
    weights = _effective_weights(plan, group_weights)
    return _make_overall(*_overall_raw(_group_stats(plan, cell_scores, candidate), weights))


def scenario_fit(
    plan: Plan,
    cell_scores: Mapping[CellKey, Decimal | None],
    candidates: Sequence[str],
    profiles: Mapping[str, Mapping[str, Decimal]],
) -> dict[str, dict[str, Overall]]:
    """``{profile: {candidate: Overall}}``: each profile's group weights replace the plan's.

    A group that a profile does not mention gets weight 0 under that profile.
    """
    unique = _unique(candidates)
    stats = {candidate: _group_stats(plan, cell_scores, candidate) for candidate in unique}
    result: dict[str, dict[str, Overall]] = {}
    for name, profile in profiles.items():
        weights = _effective_weights(plan, profile)
        result[name] = {
            candidate: _make_overall(*_overall_raw(stats[candidate], weights))
            for candidate in unique
        }
    return result


def leader(overalls: Mapping[str, Overall]) -> tuple[str, ...]:
    """The candidates with the highest overall score, sorted; several on a tie.

    Candidates without a score are ignored; ``()`` when nobody has one. Ranking uses the
    unrounded score (differences below ``TIE_TOLERANCE`` count as ties), so two candidates both
    shown as 4.00 can still have a leader — :func:`weight_sensitivity` tells how fragile it is.
    """
    return _leader_of({key: value.raw_score for key, value in overalls.items()})


def ranks(overalls: Mapping[str, Overall]) -> list[tuple[str, int | None]]:
    """Standard competition ranking ("1, 2, 2, 4") of the given candidates, best first.

    Meant for candidates of one solution type: candidates of different types are not ranked
    against each other (the caller ranks within each type). Ranking uses the unrounded score;
    scores closer than ``TIE_TOLERANCE`` share a rank. Candidates without a score come last
    with rank ``None``. Exact ties and unscored candidates keep the order they were given in.
    """
    scored = [(key, o.raw_score) for key, o in overalls.items() if o.raw_score is not None]
    scored.sort(key=lambda item: -item[1])  # stable: given order kept on exact ties
    ranked: list[tuple[str, int | None]] = []
    previous: Decimal | None = None
    rank = 0
    for position, (key, raw) in enumerate(scored, start=1):
        if previous is None or previous - raw > TIE_TOLERANCE:
            rank = position
            previous = raw
        ranked.append((key, rank))
    ranked.extend((key, None) for key, o in overalls.items() if o.raw_score is None)
    return ranked


# --------------------------------------------------------------------------------------------
# Decision robustness
# --------------------------------------------------------------------------------------------


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
    weights = _effective_weights(plan, group_weights)
    unique = _unique(candidates)
    stats = {candidate: _group_stats(plan, cell_scores, candidate) for candidate in unique}
    total = sum(weights.values(), ZERO)
    current = _leader_of({c: _overall_raw(stats[c], weights)[0] for c in unique})

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


def _line(stats: Mapping[str, _GroupStat], weights: Mapping[str, Decimal], group: str) -> _Line:
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
        return _leader_of({c: line.at(w) for c, line in lines.items()})

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
        change=_quantize(raw_change, CHANGE_QUANTUM),
        new_weight=_quantize(new_weight, SCORE_QUANTUM),
        new_leader=new_leader,
        raw_change=raw_change,
    )


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
        """The run's leaders among `candidates` (several on a tie), as _leader_of decides."""
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
        unique = _unique(candidates)
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
            candidate: _quantize(
                Decimal(count.numerator) / Decimal(count.denominator * self.runs), SHARE_QUANTUM
            )
            for candidate, count in counts.items()
        }


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
    effective = _effective_weights(plan, group_weights)
    weights = tuple(effective[g] for g in plan.groups)
    float_weights = [float(w) for w in weights]
    # A weight too small or too large for a float could decide differently in floats.
    floats_safe = all(
        w == 0 or 1e-300 < f < 1e300 for f, w in zip(float_weights, weights, strict=True)
    )
    index = {g: i for i, g in enumerate(plan.groups)}
    # Per run only the overall score changes, and only through the group weights: keep each
    # candidate's scored groups (in plan order), whose score _overall_raw weighs.
    scored = {
        candidate: tuple(
            (index[group], stat.raw_score)
            for group, stat in _group_stats(plan, cell_scores, candidate).items()
            if stat.raw_score is not None
        )
        for candidate in _unique(candidates)
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


# --------------------------------------------------------------------------------------------
# Enough data to name a leader?
# --------------------------------------------------------------------------------------------

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
    weights = _effective_weights(plan, group_weights)
    thin = []
    unique = _unique(candidates)
    for candidate in unique:
        stats = _group_stats(plan, cell_scores, candidate)
        completeness = _overall_raw(stats, weights)[1]
        empty = tuple(
            group
            for group, stat in stats.items()
            if weights[group] > 0 and stat.total_weight > 0 and stat.scored_weight == 0
        )
        if completeness < minimum or empty:
            thin.append((candidate, _quantize(completeness, SHARE_QUANTUM), empty))
    return Sufficiency(enough=bool(unique) and not thin, minimum=minimum, thin=tuple(thin))


# --------------------------------------------------------------------------------------------
# Reviewer agreement
# --------------------------------------------------------------------------------------------


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


def agreement_overall(
    plan: Plan, reviewer_scores: Mapping[CellKey, Sequence[Decimal]]
) -> float | None:
    """Interval alpha over every cell of the plan, ``None`` when undefined."""
    units = _units_by_group(plan, reviewer_scores)
    return krippendorff_alpha_interval([unit for group in plan.groups for unit in units[group]])
