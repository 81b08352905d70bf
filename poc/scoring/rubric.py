"""The rubric: the allowed scores (0–5 in whole or half points) and where a measured value
lands on it (the bands around a metric's threshold). The words for the bands: poc/rubric.py."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .base import SCALE_MAX, SCALE_MIN, ZERO

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
