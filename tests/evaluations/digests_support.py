"""What the stored row status tests share: a fresh count, the list row's stored status as a
request reads it, an evaluation's stamp, and a status stored, read and then made out of date."""

from django.db import transaction

from evaluations.digests import RowStatus, statuses
from evaluations.models import StatusStamp
from evaluations.rows import evaluation_list_queryset, evaluation_rows, status_of
from evaluations.selectors import evaluation_data
from tests.factories import make_evaluation


def fresh(evaluation, viewer) -> RowStatus:
    return status_of(evaluation_data(evaluation, viewer=viewer))


def row(viewer, evaluation) -> RowStatus:
    """The list row's status, read as a request reads it (its own atomic block: a block that
    has written counts without storing, see digests.wrote_here)."""
    with transaction.atomic():
        qs = evaluation_list_queryset(viewer).filter(pk=evaluation.pk)
        return evaluation_rows(viewer, qs)[0].status


def seq(evaluation) -> int:
    return StatusStamp.objects.get(evaluation=evaluation).seq


def stored_then_read_again(owner, make_out_of_date) -> list:
    """A status stored for a new evaluation, read (not counted), then `make_out_of_date()`
    and read again: the ids counted at each read."""
    evaluation = make_evaluation(owner)
    row(owner, evaluation)
    calls = []

    def compute(ids):
        calls.append(ids)
        return {evaluation.pk: fresh(evaluation, owner)}

    statuses([evaluation.pk], owner, compute)
    assert calls == []  # current and young: read, not counted
    make_out_of_date()
    statuses([evaluation.pk], owner, compute)
    return [ids == [evaluation.pk] for ids in calls]
