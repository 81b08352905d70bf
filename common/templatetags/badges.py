"""`{% level_badge claim %}`: a catalog claim's support level as a small badge (symbol, label,
version and note in its tooltip; "Unknown" without a claim). A tag rather than an included
template because pages show it dozens of times (constraints, stack profiles, comparisons)."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.translation import gettext

register = template.Library()

SYMBOLS = {"native": "●", "add-on": "✚", "partial": "◐", "none": "○"}


@register.filter  # for the Jinja2 rows (common/jinja.py): claim|level_badge
@register.simple_tag
def level_badge(claim) -> str:
    if not claim:
        return format_html(
            '<span class="lvl lvl-unknown" data-level="unknown"><span class="sym" '
            'aria-hidden="true">?</span> {}</span>',
            gettext("Unknown"),
        )
    level, label = claim.level, claim.get_level_display()
    title = label
    if claim.as_of_version:
        title += f" · {claim.as_of_version}"
    if claim.note:
        title += f" — {claim.note}"
    verified = ""
    if getattr(claim, "verified_in_poc", False):
        verified = format_html(
            ' <span class="verified" title="{}">✔</span>', gettext("Verified in a POC")
        )
    return format_html(
        '<span class="lvl lvl-{}" title="{}" data-level="{}"><span class="sym" '
        'aria-hidden="true">{}</span> {}{}</span>',
        level,
        title,
        level,
        SYMBOLS.get(level, "?"),
        label,
        verified,
    )


@register.filter
def alarm(count, kind: str) -> str:
    """The badge class of a count of problems: the problem's colour (`chk-gap`, a red alarm)
    when there is at least one, a quiet one when there are none. `{{ n|alarm:"gap" }}`."""
    return f"chk-{kind}" if count else "chk-none"
