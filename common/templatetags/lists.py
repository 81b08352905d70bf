"""`{{ names|listing }}`: a list joined with the separator of the active language ("a, b" in
English, "a、b" in Chinese)."""

from django import template
from django.utils.translation import pgettext

register = template.Library()


def list_separator() -> str:
    return pgettext("list separator", ", ")


@register.filter
def listing(values) -> str:
    return list_separator().join(str(v) for v in values or ())
