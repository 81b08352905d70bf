"""Checks on the compiled translation catalogs (build output, not in git)."""

from __future__ import annotations

import gettext

from django.conf import settings
from django.utils.translation import to_locale


def missing_translations() -> list[str]:
    """Languages offered whose compiled catalog (django.mo) cannot be found.

    The catalogs are build output (`manage.py compilemessages`); without them a Chinese report
    silently comes out with English headings, so workers and scripts check before rendering."""
    missing = []
    for code, _name in settings.LANGUAGES:
        if code.startswith("en"):
            continue  # the source language needs no catalog
        locale = to_locale(code)
        if not any(gettext.find("django", str(p), [locale]) for p in settings.LOCALE_PATHS):
            missing.append(code)
    return missing
