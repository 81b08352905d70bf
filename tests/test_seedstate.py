"""The seeded content put back after a flush (tests/seedstate.py) is what the loaders make."""

import pytest
from django.core.management import call_command
from django.db import models

from catalog.models import CapabilityClaim, HistoricalCapabilityClaim, Solution, Source
from common.seeding import seed_all
from tests.seedstate import STATE


def _stable(names, model) -> list[str]:
    """The captured columns, without the ones a save stamps with the time."""
    moving = {
        f.attname
        for f in model._meta.concrete_fields
        if isinstance(f, models.DateField) and (f.auto_now or f.auto_now_add)
    }
    return [n for n in names if n not in moving]


@pytest.mark.django_db(transaction=True)
def test_a_flush_then_a_restore_gives_back_every_seeded_row():
    assert STATE.tables, "the session's seed was captured"
    claim = CapabilityClaim.objects.order_by("pk").first()
    claim.note_en = "Changed by a test that commits"
    claim.save()
    call_command("flush", interactive=False, verbosity=0)
    assert not Solution.objects.exists() and not STATE.is_present()

    STATE.restore()

    for table in STATE.tables:
        names = _stable(table.names, table.model)
        keep = [table.names.index(n) for n in names]
        rows = list(table.model._base_manager.order_by("pk").values_list(*names))
        assert rows == [tuple(row[i] for i in keep) for row in table.rows], table.model
    assert CapabilityClaim.objects.get(pk=claim.pk).note_en != "Changed by a test that commits"

    # The loaders find nothing to change: no history record, no claim saved again.
    records = HistoricalCapabilityClaim.objects.count()
    seed_all()
    assert HistoricalCapabilityClaim.objects.count() == records

    # New rows take ids past the restored ones.
    made = Source.objects.create(key="TEST-after", title="After", url="https://example.test/")
    assert made.pk > Source.objects.exclude(pk=made.pk).order_by("-pk").first().pk


@pytest.mark.django_db(transaction=True)
def test_a_restore_into_a_database_that_still_holds_rows_seeds_as_usual():
    """A test that failed before its flush leaves the rows: the restore must not insert twice."""
    count = Solution.objects.count()
    STATE.restore()
    assert Solution.objects.count() == count
