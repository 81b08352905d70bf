from decimal import Decimal

from django import template

register = template.Library()


@register.filter
def get_item(mapping, key):
    return mapping.get(key) if mapping else None


@register.filter
def percent(value) -> str:
    if value is None:
        return "—"
    return f"{(Decimal(value) * 100).quantize(Decimal('0.1'))}%"


@register.filter
def names(keys, mapping) -> str:
    return ", ".join(mapping.get(k, k) for k in keys or ())


@register.filter
def group_name(key, card) -> str:
    for block in card.groups:
        if block.plan_group.group.key == key:
            return block.plan_group.group.name
    return key


@register.filter
def alpha(value) -> str:
    return "n/a" if value is None else f"{value:.2f}"
