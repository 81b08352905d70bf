"""The support terms a candidate can commit to (pure: no database). Each term is a number in a
unit, bounded, or a short text; `better` says which way a number is better where that is not a
matter of taste (a shorter response time is better; a faster upgrade cadence is not always),
and the comparison marks the best value of a row only for those."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.utils.translation import gettext_lazy as _

LOWER, HIGHER = "lower", "higher"
HOURS, DAYS, WEEKS, MONTHS = "hours", "days", "weeks", "months"


@dataclass(frozen=True)
class Term:
    key: str
    label: str  # a lazy translation
    unit: str = ""  # HOURS, DAYS, WEEKS, MONTHS; "" for a text term
    better: str = ""  # LOWER, HIGHER or "" (no best value marked)
    low: Decimal = Decimal("0")  # the smallest value allowed
    high: Decimal = Decimal("0")
    positive: bool = True  # False: 0 is allowed (no on-site days)

    @property
    def is_number(self) -> bool:
        return bool(self.unit)

    @property
    def unit_name(self) -> str:
        """The unit as a reader sees it after a number ("" for a text term)."""
        names = {HOURS: _("hours"), DAYS: _("days"), WEEKS: _("weeks"), MONTHS: _("months")}
        return str(names.get(self.unit, ""))


def _hours(key, label, high):
    return Term(key, label, HOURS, LOWER, Decimal("0.1"), Decimal(high))


TERMS = (
    _hours("p1_response", _("P1 (critical) response"), 168),
    _hours("p1_restore", _("P1 (critical) restore"), 720),
    _hours("p2_response", _("P2 (major) response"), 336),
    _hours("p2_restore", _("P2 (major) restore"), 1440),
    _hours("p3_response", _("P3 (minor) response"), 720),
    _hours("p3_restore", _("P3 (minor) restore"), 2160),
    # A shorter cadence brings fixes sooner and upgrades more often: not better either way.
    Term("upgrade_cadence", _("Upgrade cadence"), MONTHS, "", Decimal("0.5"), Decimal("60")),
    Term(
        "version_window",
        _("Supported-version window"),
        MONTHS,
        HIGHER,
        Decimal("1"),
        Decimal("120"),
    ),
    Term("security_patch", _("Security-patch time"), DAYS, LOWER, Decimal("0.1"), Decimal("365")),
    Term(
        "onsite_days", _("On-site days per year"), DAYS, HIGHER, Decimal("0"), Decimal("365"), False
    ),
    Term("training_days", _("Training days"), DAYS, HIGHER, Decimal("0"), Decimal("365"), False),
    Term(
        "accelerator_adaptation",
        _("Domestic-accelerator adaptation lead time"),
        WEEKS,
        LOWER,
        Decimal("0.1"),
        Decimal("104"),
    ),
    Term("custom_development", _("Custom-development limits")),
    Term("support_hours", _("Support hours")),
    Term("support_language", _("Support language")),
)
BY_KEY = {t.key: t for t in TERMS}
CHOICES = [(t.key, t.label) for t in TERMS]


def best(term: Term, amounts: list[Decimal | None]) -> Decimal | None:
    """The best of a row's values where `term` says which way is better and at least two
    candidates gave one (one value alone is not better than anything); None otherwise."""
    given = [a for a in amounts if a is not None]
    if not term.better or len(given) < 2:
        return None
    top = min(given) if term.better == LOWER else max(given)
    if all(a == top for a in given):  # everyone committed the same: nobody is better
        return None
    return top
