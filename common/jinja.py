"""Jinja2 for the rows a page repeats dozens or hundreds of times (the plan's cases, the
scorecard's cells, the shortlist's candidates): the same HTML as Django's template engine in a
fraction of the time. A Django template hands a block to it with `{% jinja "x.jinja" %}`
(common/templatetags/jinja_rows.py) and keeps everything else.

The environment speaks Django: `{% trans %}` goes through Django's translations (the msgids are
the template engine's, so one catalogue serves both), `url()` and `static()` are Django's, and
every filter of the template engine's installed libraries (the project's and Django's own) is
there under its name, unless Jinja2 has one of that name already."""

from __future__ import annotations

import functools

from django.template import defaultfilters
from django.template.backends.django import get_installed_libraries
from django.template.library import import_library
from django.templatetags.static import static
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import translation
from jinja2 import Environment


def url(name: str, *args) -> str:
    """Django's reverse(), remembered: a scorecard asks for the same few URL patterns hundreds of
    times with different ids. Keyed by everything reverse() reads besides its arguments (the
    script prefix and the URLconf of the request)."""
    return _reversed(get_script_prefix(), get_urlconf(), name, args)


@functools.lru_cache(maxsize=8192)
def _reversed(prefix: str, urlconf, name: str, args: tuple) -> str:
    return reverse(name, args=args or None)


def _adapted(function):
    """A Django filter as Jinja2 calls it: with autoescape on where the filter asks for it."""
    if getattr(function, "needs_autoescape", False):
        return functools.partial(function, autoescape=True)
    return function


def django_filters() -> dict:
    filters = dict(defaultfilters.register.filters)
    for path in sorted(get_installed_libraries().values()):
        if path.startswith("django."):
            continue
        filters.update(import_library(path).filters)
    return {name: _adapted(f) for name, f in filters.items()}


def environment(**options) -> Environment:
    extensions = [*options.pop("extensions", ()), "jinja2.ext.i18n"]
    env = Environment(extensions=extensions, **options)
    env.install_gettext_callables(
        translation.gettext,
        translation.ngettext,
        newstyle=True,
        pgettext=translation.pgettext,
        npgettext=translation.npgettext,
    )
    env.globals.update(url=url, static=static)
    for name, function in django_filters().items():
        env.filters.setdefault(name, function)
    return env
