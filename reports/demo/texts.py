"""The demo's own texts, one YAML file per language (en.yaml, zh-hans.yaml) with the same keys."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml

from .data import LANGUAGES

FOLDER = Path(__file__).resolve().parent


def path_of(language: str) -> Path:
    if language not in LANGUAGES:
        raise ValueError(f"The demo has no {language!r} texts; it has {', '.join(LANGUAGES)}.")
    return FOLDER / f"{language}.yaml"


@cache
def texts(language: str) -> dict:
    """The texts of `language`'s demo (read once; treat the result as read-only)."""
    with path_of(language).open(encoding="utf-8") as f:
        return yaml.safe_load(f)


def shape(value) -> object:
    """The structure of the texts without the words: the same for every language."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return type(value).__name__


def strings(value, path: str = "") -> list[tuple[str, str]]:
    """Every text (key path, text) in the texts, in file order."""
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in strings(item, f"{path}/{key}")]
    if isinstance(value, list):
        return [pair for i, item in enumerate(value) for pair in strings(item, f"{path}/{i}")]
    return [(path, value)] if isinstance(value, str) else []


DEMO_TITLES = {language: texts(language)["title"] for language in LANGUAGES}
