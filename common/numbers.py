"""Numbers typed by people are read in one place: plain ASCII decimals only ("12", "-0.5",
"3.25"). Python's Decimal also takes "NaN", "Infinity", "1e3", "1_000" and other scripts'
digits ("١٢٣"); none of those is what a person typing a weight or an FTE means, so they are
refused with a message instead of being stored or crashing a comparison."""

from __future__ import annotations

import re
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

PLAIN_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")
PLAIN_INTEGER = re.compile(r"[+-]?\d+")


def parse_decimal(value) -> Decimal:
    """A finite Decimal from an int, a Decimal or a plain decimal string; ValidationError
    (code "invalid") otherwise."""
    if isinstance(value, bool):
        raise ValidationError(_("Enter a number."), code="invalid")
    if isinstance(value, Decimal | int):
        number = Decimal(value)
    elif isinstance(value, float):
        number = Decimal(str(value))
    else:
        text = str(value).strip()
        if not (text.isascii() and PLAIN_DECIMAL.fullmatch(text)):
            raise ValidationError(
                _("Enter a plain number such as 12 or 0.5 (digits 0–9 and one point)."),
                code="invalid",
            )
        number = Decimal(text)
    if not number.is_finite():
        raise ValidationError(_("Enter a finite number."), code="invalid")
    return number


def parse_integer(value) -> int:
    """An int from an int or a plain ASCII whole number ("12", "-3"); ValidationError (code
    "invalid") otherwise. Python's int() would also read "1_000" and "١٢٣"."""
    if isinstance(value, bool):
        raise ValidationError(_("Enter a whole number."), code="invalid")
    if isinstance(value, int):
        return value
    if isinstance(value, float | Decimal):
        number = Decimal(str(value))
        if number.is_finite() and number == number.to_integral_value():
            return int(number)
        raise ValidationError(_("Enter a whole number."), code="invalid")
    text = str(value).strip()
    if not (text.isascii() and PLAIN_INTEGER.fullmatch(text)):
        raise ValidationError(
            _("Enter a whole number such as 12 (digits 0–9 only)."), code="invalid"
        )
    return int(text)


def amount_units(language: str | None = None):
    """How a chart shortens large amounts in `language` (the active one by default): 万 and 亿
    in Chinese, k, M and B otherwise (common.charts)."""
    from django.utils.translation import get_language

    from .charts import CHINESE_UNITS, WESTERN_UNITS

    return CHINESE_UNITS if (language or get_language() or "").startswith("zh") else WESTERN_UNITS
