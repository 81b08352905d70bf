"""`shorten`: a text cut to a length at a word boundary (common.text), for prose; hashes and
codes keep `truncatechars`."""

from django import template

from common.people import person_name
from common.text import shorten as shorten_text

register = template.Library()


@register.filter
def shorten(value, limit):
    return shorten_text(value, int(limit))


@register.filter
def person(user):
    """A person's name as every page shows it (common.people.person_name)."""
    return person_name(user)
