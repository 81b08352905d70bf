"""`shorten`: a text cut to a length at a word boundary (common.text), for prose; hashes and
codes keep `truncatechars`."""

from django import template

from common.text import shorten as shorten_text

register = template.Library()


@register.filter
def shorten(value, limit):
    return shorten_text(value, int(limit))
