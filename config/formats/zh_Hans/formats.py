"""Simplified Chinese formats: Django's, plus digit grouping by thousands as in English, so
reports print 15,447,500.00 (with the `g` of floatformat) in both languages."""

from django.conf.locale.zh_Hans.formats import *  # noqa: F403

THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
