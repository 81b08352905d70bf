"""Seeded content: each app registers a loader here (in its AppConfig.ready), and
`manage.py seed` runs them all in registration order (INSTALLED_APPS order)."""

from collections.abc import Callable

import yaml
from django.utils.translation import gettext as _

from common.parsing import InputRefused

# libyaml's parser when PyYAML was built with it (the wheels are): the catalog parses in a
# tenth of the time. Same safe constructor, so the same values either way.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

LOADERS: list[tuple[str, Callable[[], dict[str, int]]]] = []


def register(name: str, loader: Callable[[], dict[str, int]]) -> None:
    if all(existing != name for existing, _fn in LOADERS):
        LOADERS.append((name, loader))


def seed_all() -> dict[str, int]:
    counts: dict[str, int] = {}
    for _name, loader in LOADERS:
        counts.update(loader())
    return counts


def texts(field: str, value: dict | None) -> dict[str, str]:
    """A seed file's {en: .., zh: ..} as modeltranslation's `<field>_en` / `<field>_zh_hans`."""
    value = value or {}
    return {f"{field}_en": value.get("en", ""), f"{field}_zh_hans": value.get("zh", "")}


def load_yaml(text: str):
    """yaml.safe_load, with libyaml's parser where it is available. Nesting too deep for the
    pure-Python loader (which recurses per level) raises InputRefused, not RecursionError."""
    try:
        return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader
    except RecursionError:
        raise InputRefused(
            _("The data is nested too deeply; Shortlist never writes or reads data that deep.")
        ) from None
