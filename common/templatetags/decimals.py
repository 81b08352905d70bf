"""`{{ value|decimal }}`: a Decimal (or its text, as a report snapshot keeps it) as people write
it, in the active language: at most two decimal places, no trailing zeros ("7.3", "6.25", "12").
`{{ value|decimal:1 }}` keeps at most one. Anything that is not a number is printed as it is."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django import template
from django.utils import formats

register = template.Library()


@register.filter
def decimal(value, places: int = 2) -> str:
    if value is None or value == "":
        return ""
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    if not number.is_finite():
        return str(value)
    number = number.quantize(Decimal(1).scaleb(-int(places)), rounding=ROUND_HALF_UP)
    text = f"{number:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    shown = len(text.partition(".")[2])
    return formats.number_format(Decimal(text), decimal_pos=shown)
