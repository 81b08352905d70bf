"""One cell's value (a consensus, else the mean of the reviewers' scores) and whether its
reviewers disagree."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from .base import SCALE_MAX, SCALE_MIN, ZERO, check_score


def cell_value(
    reviewer_scores: Sequence[Decimal], consensus: Decimal | None = None
) -> Decimal | None:
    """The score that counts for one cell.

    A recorded consensus wins outright; otherwise the arithmetic mean of the reviewers' scores
    (unrounded); ``None`` when there is neither — the cell is missing, not zero.
    """
    for value in reviewer_scores:
        check_score(value, "Reviewer score")
    if consensus is not None:
        check_score(consensus, "Consensus score")
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
