"""Plain values for a report's snapshot, shared by every app that builds a part of it.

A snapshot holds only JSON values with one spelling each, so the same data gives the same bytes
(and the same SHA-256): Decimals become fixed-point strings, scores and percentages are rounded
half up to a fixed quantum, dates and times are ISO strings (times in the configured time zone,
to the second), people are their display names.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal

from django.utils import timezone

from .people import person_name

SCORE_QUANTUM = Decimal("0.01")
PERCENT_QUANTUM = Decimal("0.1")


def decimal_text(value) -> str | None:
    """A Decimal as a fixed-point string ("1200.50"), never in exponent notation."""
    if value is None:
        return None
    return format(Decimal(value), "f")


def score_text(value) -> str | None:
    """A 0–5 score rounded for people (cell means are unrounded)."""
    if value is None:
        return None
    return decimal_text(Decimal(value).quantize(SCORE_QUANTUM, rounding=ROUND_HALF_UP))


def percent_text(share) -> str | None:
    """A share in 0–1 as a percentage with one decimal: 0.75 → "75.0"."""
    if share is None:
        return None
    return decimal_text((Decimal(share) * 100).quantize(PERCENT_QUANTUM, rounding=ROUND_HALF_UP))


def iso_date(value: date | None) -> str | None:
    return value.isoformat() if value else None


def iso_datetime(value: datetime | None) -> str | None:
    """A moment in the configured time zone, to the second."""
    if value is None:
        return None
    if timezone.is_aware(value):
        value = timezone.localtime(value)
    return value.replace(microsecond=0).isoformat()


def person(user) -> str | None:
    """A user's display name (common.people.person_name); None for nobody."""
    if user is None:
        return None
    return person_name(user)
