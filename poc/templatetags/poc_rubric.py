"""Template helpers for the rubric bands (poc.rubric) and the thin-data and bootstrap notes
(poc.thin)."""

from django import template

from poc import rubric, thin

register = template.Library()


@register.filter
def bands_text(case) -> str:
    return rubric.bands_text(case)


@register.filter
def measured_text(case, measured) -> str:
    return rubric.measured_text(case, measured)


@register.simple_tag
def thin_note(sufficiency, names, card) -> str:
    """The sentence shown instead of robustness and win shares when the scores are thin."""
    group_names = {b.plan_group.group.key: b.plan_group.group.name for b in card.groups}
    return thin.thin_note(sufficiency, names, group_names)


@register.filter
def named_leaders(type_results) -> tuple:
    """The leaders of a TypeResults to highlight: none when the bootstrap share is too low."""
    return thin.named_leaders(type_results.leaders, type_results.bootstrap)


@register.filter
def bootstrap_share(bootstrap) -> str:
    return thin.bootstrap_share(bootstrap)


@register.simple_tag
def bootstrap_note(bootstrap, names) -> str:
    """The sentence shown instead of a leader when the bootstrap share is below 80 %."""
    return thin.bootstrap_note(bootstrap, names)
