"""The scoring core's shared pieces: the scale and rounding constants, the plain data (plan,
cases, group and overall results) and the helpers every calculation uses (weights in effect,
per-group statistics, the leader of raw scores). Pure: nothing from Django."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

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
class GroupStat:
    """A candidate's unrounded result in one group (see :func:`group_stats`)."""

    raw_score: Decimal | None
    scored_weight: Decimal
    total_weight: Decimal

    @property
    def completeness(self) -> Decimal:
        return self.scored_weight / self.total_weight if self.total_weight > 0 else ZERO


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def quantize(value: Decimal, quantum: Decimal) -> Decimal:
    """``value`` rounded half up to ``quantum`` (a figure meant for people)."""
    return value.quantize(quantum, rounding=ROUND_HALF_UP)


def quantize_or_none(value: Decimal | None, quantum: Decimal) -> Decimal | None:
    return None if value is None else quantize(value, quantum)


def check_score(value: Decimal, what: str) -> None:
    """Refuse (ValueError) a score outside the 0–5 scale; ``what`` names it in the message."""
    if not SCALE_MIN <= value <= SCALE_MAX:
        raise ValueError(f"{what} must be between {SCALE_MIN} and {SCALE_MAX}, got {value}.")


def _check_group_weights(plan: Plan, weights: Mapping[str, Decimal]) -> None:
    known = set(plan.groups)
    for group, weight in weights.items():
        if group not in known:
            raise ValueError(f"Weight given for unknown group {group!r}.")
        if weight < 0:
            raise ValueError(f"Group {group!r}: weight must be ≥ 0, got {weight}.")


def effective_weights(
    plan: Plan, group_weights: Mapping[str, Decimal] | None
) -> dict[str, Decimal]:
    """The plan's group weights, or ``group_weights`` replacing them; a missing group is 0."""
    weights = plan.group_weights if group_weights is None else group_weights
    _check_group_weights(plan, weights)
    return {group: Decimal(weights.get(group, ZERO)) for group in plan.groups}


def distinct(candidates: Sequence[str]) -> list[str]:
    """The candidates in the order given, each once."""
    return list(dict.fromkeys(candidates))


def group_stats(
    plan: Plan, cell_scores: Mapping[CellKey, Decimal | None], candidate: str
) -> dict[str, GroupStat]:
    """Per group: weighted mean over scored cases, scored case weight and total case weight."""
    weighted_sum = dict.fromkeys(plan.groups, ZERO)
    scored = dict.fromkeys(plan.groups, ZERO)
    total = dict.fromkeys(plan.groups, ZERO)
    for case in plan.cases:
        total[case.group] += case.weight
        value = cell_scores.get((case.key, candidate))
        if value is None:
            continue
        check_score(value, f"Score of case {case.key!r} for {candidate!r}")
        scored[case.group] += case.weight
        weighted_sum[case.group] += case.weight * value
    return {
        group: GroupStat(
            raw_score=weighted_sum[group] / scored[group] if scored[group] > 0 else None,
            scored_weight=scored[group],
            total_weight=total[group],
        )
        for group in plan.groups
    }


def overall_raw(
    stats: Mapping[str, GroupStat], weights: Mapping[str, Decimal]
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


def leader_of(raw_scores: Mapping[str, Decimal | None]) -> tuple[str, ...]:
    """The keys with the highest raw score, sorted (several within ``TIE_TOLERANCE``); ``()``
    when none has a score."""
    scored = {key: value for key, value in raw_scores.items() if value is not None}
    if not scored:
        return ()
    best = max(scored.values())
    return tuple(sorted(key for key, value in scored.items() if value >= best - TIE_TOLERANCE))
