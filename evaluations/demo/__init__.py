"""evaluations' part of the demo (common.demo): the evaluation, its members, context and
shortlist (step.py), from data.yaml and the texts en.yaml / zh-hans.yaml.

The names here are what the higher apps' demo steps and the tests know the demo by: its titles,
and the key a demo table gives each candidate."""

from __future__ import annotations

from pathlib import Path

from common.demo import LANGUAGES, DemoFiles, DemoState

FILES = DemoFiles(Path(__file__).resolve().parent)

DEMO_TITLES = {language: FILES.texts(language)["title"] for language in LANGUAGES}
# The English demo, as it has always been called.
DEMO_TITLE = DEMO_TITLES["en"]
DEMO_ORGANISATION = FILES.texts("en")["organisation"]

# The key of the combined candidate (the stack) in every app's demo tables.
STACK_KEY = FILES.data["stack"]["key"]


def demo_key(candidate) -> str:
    """The demo's tables are keyed by solution slug, and by STACK_KEY for the stack."""
    return STACK_KEY if candidate.is_stack else candidate.solution.slug


def demo_owner(state: DemoState):
    """The demo user who creates the evaluation and acts for it (the tech lead)."""
    return state.users[FILES.data["owner"]]
