"""Totals: a candidate's score and completeness per group and overall, scenario fit under
each profile's weights, the leader and the ranking."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from .base import (
    PERCENT_QUANTUM,
    SCALE_MAX,
    SCALE_MIN,
    SCORE_QUANTUM,
    SHARE_QUANTUM,
    TIE_TOLERANCE,
    CellKey,
    GroupTotal,
    Overall,
    Plan,
    distinct,
    effective_weights,
    group_stats,
    leader_of,
    overall_raw,
    quantize,
    quantize_or_none,
)


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
    weights = effective_weights(plan, group_weights)
    stats = group_stats(plan, cell_scores, candidate)
    return {
        group: GroupTotal(
            group=group,
            score=quantize_or_none(stat.raw_score, SCORE_QUANTUM),
            raw_score=stat.raw_score,
            scored_weight=stat.scored_weight,
            total_weight=stat.total_weight,
            completeness=quantize(stat.completeness, SHARE_QUANTUM),
            group_weight=weights[group],
        )
        for group, stat in stats.items()
    }


def _make_overall(raw_score: Decimal | None, completeness: Decimal) -> Overall:
    percent = None if raw_score is None else raw_score / (SCALE_MAX - SCALE_MIN) * 100
    return Overall(
        score=quantize_or_none(raw_score, SCORE_QUANTUM),
        raw_score=raw_score,
        percent=quantize_or_none(percent, PERCENT_QUANTUM),
        completeness=quantize(completeness, SHARE_QUANTUM),
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
    weights = effective_weights(plan, group_weights)
    return _make_overall(*overall_raw(group_stats(plan, cell_scores, candidate), weights))


def scenario_fit(
    plan: Plan,
    cell_scores: Mapping[CellKey, Decimal | None],
    candidates: Sequence[str],
    profiles: Mapping[str, Mapping[str, Decimal]],
) -> dict[str, dict[str, Overall]]:
    """``{profile: {candidate: Overall}}``: each profile's group weights replace the plan's.

    A group that a profile does not mention gets weight 0 under that profile.
    """
    unique = distinct(candidates)
    stats = {candidate: group_stats(plan, cell_scores, candidate) for candidate in unique}
    result: dict[str, dict[str, Overall]] = {}
    for name, profile in profiles.items():
        weights = effective_weights(plan, profile)
        result[name] = {
            candidate: _make_overall(*overall_raw(stats[candidate], weights))
            for candidate in unique
        }
    return result


def leader(overalls: Mapping[str, Overall]) -> tuple[str, ...]:
    """The candidates with the highest overall score, sorted; several on a tie.

    Candidates without a score are ignored; ``()`` when nobody has one. Ranking uses the
    unrounded score (differences below ``TIE_TOLERANCE`` count as ties), so two candidates both
    shown as 4.00 can still have a leader — :func:`weight_sensitivity` tells how fragile it is.
    """
    return leader_of({key: value.raw_score for key, value in overalls.items()})


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
