"""The documented example of importing measured POC results (docs/guide/reviewer.md, "Importing
measured POC results") works as written, on the demo."""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from evaluations.demo import DEMO_TITLE
from evaluations.models import Evaluation
from poc.imports import services as imports
from tests.factories import declare_none

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "poc" / "examples" / "measurements.csv"


def documented_example() -> str:
    text = (ROOT / "docs" / "guide" / "reviewer.md").read_text(encoding="utf-8")
    return text.split("**Example files** for the demo evaluation", 1)[1].split("\n#", 1)[0]


def test_the_documented_import_example_works_as_written():
    call_command("demo", language="en", stdout=open("/dev/null", "w"))  # noqa: SIM115
    evaluation = Evaluation.objects.get(title=DEMO_TITLE)
    techlead = get_user_model().objects.get(username="techlead")
    steps = documented_example()
    assert "`techlead`" in steps

    def import_example():
        return imports.run(
            user=techlead,
            evaluation=evaluation,
            name=EXAMPLE.name,
            content=EXAMPLE.read_bytes(),
            apply=True,
        )

    # The owner has not declared conflicts of interest in the demo: every row is refused…
    refused = import_example()
    assert refused.errors and not refused.applied
    assert all("declare" in e.message.lower() for e in refused.errors), refused.errors
    # …so the documentation says to declare first, on the page it names.
    assert "Conflicts of interest" in steps and "declare" in steps
    declare_none(evaluation, techlead)
    applied = import_example()
    assert not applied.errors and applied.applied and len(applied.changes) == 6
