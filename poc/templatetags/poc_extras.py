from decimal import Decimal
from functools import lru_cache

from django import template
from django.template.defaultfilters import floatformat
from django.utils.html import format_html, format_html_join
from django.utils.translation import get_language, gettext

from common.people import person_name
from poc.models import Outcome

register = template.Library()


@register.filter  # for the Jinja2 rows (common/jinja.py): m.outcome|outcome_options
@register.simple_tag
def outcome_options(selected) -> str:
    """The outcome <option>s of a score, `selected` marked. Every cell of the scorecard has the
    same few, so each (language, choice) is built once rather than looped over per cell."""
    return _outcome_options(get_language(), selected or "")


@lru_cache(maxsize=64)
def _outcome_options(language: str, selected: str) -> str:
    options = (
        (value, " selected" if value == selected else "", label) for value, label in Outcome.choices
    )
    return format_html_join("", '<option value="{}"{}>{}</option>', options)


@register.filter  # for the Jinja2 rows (common/jinja.py): c.visible|reviewer_scores
@register.simple_tag
def reviewer_scores(scores) -> str:
    """Other reviewers' scores in a scorecard cell: "name: score" each, the notes as a tooltip.
    Built here rather than looped over in the template: it is the heaviest part of a cell the
    owner sees, and a group shows a hundred cells or more."""
    language = get_language()
    return format_html_join(
        " · ",
        '<span title="{}">{}: {}</span>',
        ((s.notes, person_name(s.reviewer), score_text(language, s.score)) for s in scores),
    )


@lru_cache(maxsize=256)
def score_text(language: str, score) -> str:
    """A score as floatformat:-1 writes it in `language` (a scorecard shows a few distinct scores
    hundreds of times)."""
    return floatformat(score, -1)


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


@register.filter  # for the Jinja2 rows (common/jinja.py): f|verification_badge
@register.simple_tag
def verification_badge(f, with_cases=True) -> str:
    """One POC finding (verification.CapabilityFinding): verified or contradicted, with the
    cases behind it in its tooltip (not `with_cases`: without them, for a reader who is not a
    member of the evaluation). A tag: the shortlist shows one per capability and candidate."""
    if f.verified:
        css, text = "met", gettext("verified in this evaluation's POC")
    else:
        css, text = "violates", gettext("contradicted by the POC")
    return format_html(
        '<span class="verdict verdict-{}" data-finding="{}" title="{}">{}</span>',
        css,
        f.finding.status,
        "; ".join(case.shown_title for case in f.cases) if with_cases else "",
        text,
    )
