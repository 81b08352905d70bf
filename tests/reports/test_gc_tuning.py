"""The garbage collector around a report render: tuned while it runs, restored after."""

import gc

import pytest

from reports.gc_tuning import RENDER_THRESHOLDS, gc_tuned
from reports.models import ReportRun, RunStatus
from reports.services import report_request
from reports.tasks import render_report
from tests.factories import add_candidates, answer_all


@pytest.fixture
def odd_collector():
    """A collector in a state no default has, so that restoring it is told apart from
    resetting it; the interpreter's own state is put back after the test."""
    before = (gc.isenabled(), gc.get_threshold())
    gc.set_threshold(555, 7, 3)
    yield
    gc.set_threshold(*before[1])
    gc.enable() if before[0] else gc.disable()
    gc.unfreeze()


def state():
    return gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_tuned_inside_and_restored_after_even_on_error(odd_collector, enabled):
    gc.enable() if enabled else gc.disable()
    before = state()
    assert before[2] == 0
    with gc_tuned():
        assert gc.get_threshold() == RENDER_THRESHOLDS and gc.get_freeze_count() > 0
        assert gc.isenabled() is enabled  # a disabled collector is not switched on
    assert state() == before
    with pytest.raises(RuntimeError, match="WeasyPrint gave up"), gc_tuned():
        raise RuntimeError("WeasyPrint gave up")
    assert state() == before


def test_overlapping_renders_share_one_tuning(odd_collector):
    before = state()
    with gc_tuned():
        with gc_tuned():
            pass
        assert gc.get_threshold() == RENDER_THRESHOLDS  # the first is still rendering
    assert state() == before


def test_a_freeze_of_the_process_itself_is_kept(odd_collector):
    gc.freeze()  # as a server might after preloading
    frozen = gc.get_freeze_count()
    with gc_tuned():
        assert gc.get_threshold() == RENDER_THRESHOLDS
    # Kept, neither undone nor frozen again. The count can only fall by what was freed
    # meanwhile: a frozen object whose last reference goes leaves the permanent generation.
    after = gc.get_freeze_count()
    assert frozen * 0.9 < after <= frozen and gc.get_threshold() == (555, 7, 3)


def test_the_setting_turns_it_off(odd_collector, settings):
    settings.REPORT_GC_TUNING = False
    before = state()
    with gc_tuned():
        assert state() == before
    assert state() == before


@pytest.mark.django_db
def test_the_task_renders_under_the_tuning_and_restores_the_collector(
    odd_collector, evaluation, owner
):
    for candidate in add_candidates(evaluation, owner, "slurm", "volcano"):
        answer_all(candidate, owner)
    seen = []

    def watch(phase, info):
        if phase == "start":
            seen.append((info["generation"], gc.get_threshold(), gc.get_freeze_count()))

    before = state()
    gc.callbacks.append(watch)
    try:
        run = ReportRun.objects.get(
            pk=report_request(user=owner, evaluation=evaluation, language="en")[0].pk
        )
        if run.status == RunStatus.QUEUED:  # a worker would take it: run the task here
            render_report.apply(args=[run.pk]).get()
    finally:
        gc.callbacks.remove(watch)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE and run.pages >= 1
    assert state() == before
    during = [(g, frozen) for g, thresholds, frozen in seen if thresholds == RENDER_THRESHOLDS]
    # The layout ran under the tuning: young collections only, with what was there before
    # frozen; then one full collection, before the rest is unfrozen.
    *layout, closing = during
    assert layout and all(g == 0 and frozen > 0 for g, frozen in layout)
    assert closing[0] == 2 and closing[1] > 0
