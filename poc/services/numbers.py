"""Numbers typed into the plan's and the scores' fields: parsed, or refused with the field they
came from."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError

from common.numbers import parse_decimal


def field_decimal(value, field: str) -> Decimal | None:
    """`value` as a Decimal (None when blank); a refusal is keyed by `field`."""
    if value in (None, ""):
        return None
    try:
        return parse_decimal(value)
    except ValidationError as exc:
        raise ValidationError({field: exc.messages}) from None
