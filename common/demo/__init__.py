"""The demo evaluations `manage.py demo` loads, one per language: the same evaluation, scores
and decision, with everything its users typed in that language.

Each app that writes part of the demo registers one step here from its AppConfig.ready
(`demo_step`), as the apps register their seed loaders with common.seeding; the command runs
the steps low to high on one DemoState per language: common's demo users, then the evaluation
and its shortlist (evaluations), costs, answers and matrices (responsibility), the POC and the
decision (poc).

An app's demo files are in its demo/ folder (DemoFiles): data.yaml, what every language shares
(slugs, answers, costs, scores…), and one texts file per language (en.yaml, zh-hans.yaml) with
the same keys, keyed like the data."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from django.utils import translation

from common.seeding import load_yaml

# The languages the demo exists in, in the order `manage.py demo` loads them.
LANGUAGES = ("en", "zh-hans")
LANGUAGE_NAMES = {"en": "English", "zh-hans": "Simplified Chinese"}


@dataclass
class DemoState:
    """What the steps of one language's demo share: each step reads what the lower ones left."""

    language: str
    users: dict[str, Any] = field(default_factory=dict)  # username -> the demo user
    created: list[str] = field(default_factory=list)  # the usernames this run created
    evaluation: Any = None
    # The suggestions the owner accepted, by solution slug.
    candidates: dict[str, Any] = field(default_factory=dict)
    # Every shortlisted candidate (the stack too), in the order they are scored.
    shortlisted: list = field(default_factory=list)
    # The cloud candidate, added to be priced and then ruled out.
    cloud: Any = None


@dataclass(frozen=True)
class DemoStep:
    """One app's part of the demo."""

    order: int  # the steps run low to high
    load: Callable[[DemoState], None]  # writes its part (inside the command's transaction)
    files: DemoFiles | None = None  # its data and texts
    # The key of a language's demo evaluation when it is already loaded (else None).
    existing: Callable[[str], int | None] | None = None
    # Its part of the line the command ends with ("6 shortlisted and 1 eliminated candidate(s)").
    summary: Callable[[DemoState], str] | None = None


STEPS: list[DemoStep] = []
# (order, check): each check names the seeded content its step builds on and cannot find.
CHECKS: list[tuple[int, Callable[[], list[str]]]] = []


def demo_step(
    order: int,
    load: Callable[[DemoState], None],
    *,
    files: DemoFiles | None = None,
    existing: Callable[[str], int | None] | None = None,
    summary: Callable[[DemoState], str] | None = None,
) -> None:
    if all(step.load is not load for step in STEPS):
        STEPS.append(DemoStep(order, load, files, existing, summary))


def demo_check(order: int, missing: Callable[[], list[str]]) -> None:
    """Register what a step needs seeded (`manage.py seed`): the checks run low to high before
    any language loads, and every name they return goes into one message."""
    if all(check is not missing for _order, check in CHECKS):
        CHECKS.append((order, missing))


def demo_steps() -> list[DemoStep]:
    return sorted(STEPS, key=lambda step: step.order)


def demo_missing() -> list[str]:
    """The seeded content the demo builds on and cannot find (empty: it can load)."""
    checks = sorted(CHECKS, key=lambda check: check[0])
    return [name for _order, missing in checks for name in missing()]


def demo_existing(language: str) -> int | None:
    """The key of `language`'s demo evaluation if it is loaded, else None."""
    for step in demo_steps():
        found = step.existing(language) if step.existing is not None else None
        if found is not None:
            return found
    return None


def demo_load(language: str) -> DemoState:
    """Load `language`'s demo, every step in turn, in that language (call inside a
    transaction)."""
    state = DemoState(language)
    with translation.override(language):
        for step in demo_steps():
            step.load(state)
    return state


def demo_summary(state: DemoState) -> list[str]:
    """What the steps loaded, a phrase each."""
    return [step.summary(state) for step in demo_steps() if step.summary is not None]


def demo_texts(language: str) -> dict[str, dict]:
    """Every step's texts in `language`, by the app whose demo/ folder holds them."""
    return {
        step.files.app: step.files.texts(language)
        for step in demo_steps()
        if step.files is not None and step.files.has_texts
    }


# --- the files --------------------------------------------------------------------------------


class DemoFiles:
    """An app's demo files: data.yaml and, if the app wrote any texts, one file per language."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.app = folder.parent.name

    @property
    def data(self) -> dict:
        """What every language shares (read once; treat the result as read-only)."""
        return read_yaml(self.folder / "data.yaml")

    @property
    def has_texts(self) -> bool:
        return all((self.folder / f"{language}.yaml").exists() for language in LANGUAGES)

    def texts(self, language: str) -> dict:
        """The texts of `language`'s demo (read once; treat the result as read-only)."""
        if language not in LANGUAGES:
            raise ValueError(f"The demo has no {language!r} texts; it has {', '.join(LANGUAGES)}.")
        return read_yaml(self.folder / f"{language}.yaml")


@cache
def read_yaml(path: Path):
    return load_yaml(path.read_text(encoding="utf-8"))


def exact(value) -> Decimal:
    """A number of the demo's data (YAML reads 0.7 as a float) as the Decimal it spells."""
    return Decimal(str(value))


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
