"""`{{ iso|when }}` and `{{ iso|day }}`: a snapshot's ISO 8601 timestamp or date printed in the
active language, in the configured time zone ("Dec. 1, 2026, 9:41 a.m." in English,
"2026年12月1日 09:41" in Chinese). Anything that is not ISO 8601 is printed as it is."""

from __future__ import annotations

import datetime

from django import template
from django.utils import formats, timezone

register = template.Library()


@register.filter
def when(value) -> str:
    if not value:
        return ""
    try:
        moment = datetime.datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    if timezone.is_aware(moment):
        moment = timezone.localtime(moment)
    return formats.date_format(moment, "DATETIME_FORMAT")


@register.filter
def day(value) -> str:
    if not value:
        return ""
    try:
        date = datetime.date.fromisoformat(str(value)[:10])
    except ValueError:
        return str(value)
    return formats.date_format(date, "DATE_FORMAT")
