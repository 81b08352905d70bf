"""Stored row status (answers progress and the number of risk reminders) for list rows and the
status strip, so that a page listing many evaluations reads one row per evaluation instead of
recomputing every reminder from every score and matrix cell.

A stored status is only as good as what keeps it current, so:

* every save, delete and many-to-many change of a model whose rows belong to an evaluation
  (`dependencies`) moves that evaluation's stamp in the same transaction, so the new data and
  the new stamp become visible together; bulk writes (update, bulk_create, bulk_update) move it
  too for a model whose manager is common.querysets.SignallingQuerySet's (memberships are);
  other writes that send no signals call `changed` themselves;
* a change to shared reference data (catalog, questions, area and test libraries: models with
  no path to an evaluation) moves every stamp, as does `migrate` (new code may count otherwise);
* a digest records the stamp it read *before* reading the data it counts, and counts only while
  the stamp has not moved since: a reader racing a writer stores a digest that is already out of
  date, never one that looks current but is not;
* a digest older than settings.ROW_STATUS_MAX_AGE is computed again anyway, a backstop for writes
  made outside the application (an operator's SQL).

Writers already lock the evaluation row before they change its data, so moving the stamp
within the same transaction adds no new wait.

Digests are per viewer: blind scoring hides other reviewers' scores, so two members of the same
evaluation may see a different number of reminders. The test suite checks, after every test
that uses the database, that each current digest equals a fresh count (tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ObjectDoesNotExist
from django.db import DatabaseError, connection, connections, transaction
from django.db.models import F
from django.db.models.constants import LOOKUP_SEP
from django.db.models.signals import m2m_changed, post_delete, post_migrate, post_save
from django.utils import timezone
from django.utils.translation import get_language

from common.querysets import rows_written

from .models import Evaluation, Membership, StatusDigest, StatusStamp
from .models.digests import new_epoch

log = logging.getLogger(__name__)

# The apps whose data reminders and progress read. A model of these apps either belongs to an
# evaluation (a foreign-key path leads to Evaluation) or is shared reference data. A model of
# another app whose rows belong to an evaluation and show on its kept tabs says so itself with
# `evaluation_data = True` (sign-off's approvals, on the History tab); the other apps' rows
# (report runs, for one) move no stamp.
DATA_APPS = ("catalog", "evaluations", "poc", "responsibility")
# Rows that belong to an evaluation but that no count reads, and that change often.
IGNORED = {"evaluations.StatusDigest", "evaluations.StatusStamp"}

EVERYTHING = object()  # a change to shared data: every evaluation's status may move


@dataclass(frozen=True)
class RowStatus:
    answered: int
    total: int
    reminders: int
    # The reminders' fields (evaluations.reminders.Reminder) in the active language, when the
    # caller asked for them; None when only the counts were computed.
    items: tuple | None = None


# --- which rows move which stamp -------------------------------------------------------------


def _is_history(model) -> bool:
    return hasattr(model, "instance_type")  # simple-history's historical models


def is_data(model) -> bool:
    """Whether writes to `model` may move a stamp: a model of a data app, or one that says its
    rows are evaluation data."""
    return model._meta.app_label in DATA_APPS or getattr(model, "evaluation_data", False) is True


def _path_to_evaluation(model) -> list | None:
    """The shortest chain of foreign keys from `model` to Evaluation, staying within the data
    apps, through required keys where there is such a chain (a matrix cell's row, not its
    party, which may be shared); None when there is none (shared data)."""
    return _shortest_path(model, nullable=False) or _shortest_path(model, nullable=True)


def _shortest_path(model, *, nullable: bool) -> list | None:
    if model is Evaluation:
        return []
    seen = {model}
    queue = [(model, [])]
    while queue:
        current, path = queue.pop(0)
        for field in current._meta.concrete_fields:
            target = field.related_model if field.is_relation else None
            if target is None or target in seen or not is_data(target):
                continue
            if field.null and not nullable:
                continue
            if target is Evaluation:
                return [*path, field]
            seen.add(target)
            queue.append((target, [*path, field]))
    return None


def dependencies() -> dict:
    """{model: path to Evaluation, or EVERYTHING} for every model whose changes move a stamp."""
    found = {}
    for model in apps.get_models():
        if not is_data(model) or _is_history(model):
            continue
        if model._meta.label in IGNORED:
            continue
        path = _path_to_evaluation(model)
        found[model] = EVERYTHING if path is None else path
    return found


# --- moving stamps ---------------------------------------------------------------------------


def _savepoints() -> tuple:
    """The savepoints open now. An atomic block without a savepoint (`savepoint=False`, as
    bulk writes open) shows as None: it rolls back with the block around it, so it is no
    depth of its own."""
    return tuple(s for s in connection.savepoint_ids if s is not None)


class _Pending:
    """What the current transaction has already moved, so that a cascade of a thousand deleted
    cells moves its evaluation's stamp once. Tied to the transaction (Django replaces its list
    of commit hooks at every commit and rollback) and to the savepoints open when it was made (a
    savepoint rolled back takes its moves with it)."""

    def __init__(self, hooks, savepoints):
        self.hooks = hooks
        self.savepoints = savepoints
        self.moved: set = set()
        self.owners: dict = {}  # (model, pk) → evaluation id, read once per transaction

    @classmethod
    def current(cls) -> _Pending | None:
        if not connection.in_atomic_block:
            return None
        savepoints = _savepoints()
        pending = getattr(connection, "_row_status_pending", None)
        same = pending is not None and pending.hooks is connection.run_on_commit
        if not (same and pending.savepoints == savepoints):
            pending = cls(connection.run_on_commit, savepoints)
            connection._row_status_pending = pending
        return pending


def _note_move() -> None:
    """Remember that the current transaction, at this savepoint depth, has written."""
    if not connection.in_atomic_block:
        return
    hooks = connection.run_on_commit
    moves = [m for m in getattr(connection, "_row_status_moves", ()) if m[0] is hooks]
    moves.append((hooks, _savepoints()))
    connection._row_status_moves = moves


def wrote_here() -> bool:
    """Whether the current transaction has written evaluation data inside the current atomic
    block (a request that saved something, in production the whole request). Such a request
    counts the status strip but does not store it: it would hold the stored row's lock while
    other writers of the evaluation wait for its own locks."""
    if not connection.in_atomic_block:
        return False
    hooks, current = connection.run_on_commit, _savepoints()
    return any(
        ref is hooks and chain[: len(current)] == current
        for ref, chain in getattr(connection, "_row_status_moves", ())
    )


def _move(ids) -> None:
    _note_move()
    stamps = StatusStamp.objects.all()
    if ids is not EVERYTHING:
        stamps = stamps.filter(evaluation_id__in=ids)
    stamps.update(seq=F("seq") + 1, epoch=new_epoch())


def changed(evaluation_ids: Iterable[int] | object) -> None:
    """Move the stamps of these evaluations (or EVERYTHING): their stored status is out of date.
    For writes that send no signals (bulk_create, QuerySet.update)."""
    pending = _Pending.current()
    if evaluation_ids is EVERYTHING:
        if pending is None or EVERYTHING not in pending.moved:
            _move(EVERYTHING)
        if pending is not None:
            pending.moved.add(EVERYTHING)
        return
    ids = {i for i in evaluation_ids if i is not None}
    if pending is not None:
        if EVERYTHING in pending.moved:
            return
        ids -= pending.moved
        pending.moved |= ids
    if ids:
        _move(ids)


def _owner(instance, path, pending) -> int | None:
    """The id of the evaluation `instance` belongs to, following `path`. A related row that is
    already gone belongs to no evaluation (its own deletion moved the stamp)."""
    if not path:
        return instance.pk
    field = path[0]
    value = getattr(instance, field.attname)
    if value is None:  # e.g. a party of the shared library, not of one evaluation
        return EVERYTHING
    if len(path) == 1:
        return value
    key = (field.related_model, value)
    if pending is not None and key in pending.owners:
        return pending.owners[key]
    try:
        parent = getattr(instance, field.name)
    except ObjectDoesNotExist:
        return None
    owner = _owner(parent, path[1:], pending)
    if pending is not None:
        pending.owners[key] = owner
    return owner


def _on_change(sender, instance, **kwargs) -> None:
    if sender is Evaluation and kwargs.get("created"):
        # Made with the evaluation, so two first readers never wait on each other making it.
        StatusStamp.objects.create(evaluation=instance)
        return
    path = DEPENDENCIES.get(type(instance))
    if path is None:
        return
    owner = EVERYTHING if path is EVERYTHING else _owner(instance, path, _Pending.current())
    changed(owner if owner is EVERYTHING else [owner])


def _on_bulk(sender, pks, objs, fields, **kwargs) -> None:
    """A QuerySet write that sent no model signal (common.querysets.SignallingQuerySet)."""
    path = DEPENDENCIES.get(sender)
    if path is None:
        return
    if path is EVERYTHING or (path and {path[0].name, path[0].attname} & set(fields)):
        changed(EVERYTHING)  # moved to another evaluation: the one it left moves too
    elif objs:
        pending = _Pending.current()
        owners = {_owner(obj, path, pending) for obj in objs}
        changed(EVERYTHING if EVERYTHING in owners else owners)
    elif not path:
        changed(pks)
    else:
        lookup = LOOKUP_SEP.join(field.name for field in path)
        changed(set(sender._base_manager.filter(pk__in=pks).values_list(lookup, flat=True)))


def _on_m2m(sender, instance, action, **kwargs) -> None:
    if action in ("post_add", "post_remove", "post_clear"):
        _on_change(sender, instance)


def _on_person(sender, instance, created=False, update_fields=None, **kwargs) -> None:
    """A person's name and account show on the pages of the evaluations they belong to or
    created (a sign-in through the company's OpenID provider saves the names it brings): those
    move. A sign-in that only records its time moves nothing."""
    if created or (update_fields and set(update_fields) <= {"last_login"}):
        return
    ids = set(Membership.objects.filter(user=instance).values_list("evaluation_id", flat=True))
    ids |= set(Evaluation.objects.filter(created_by=instance).values_list("pk", flat=True))
    changed(ids)


def _on_migrate(sender, **kwargs) -> None:
    """New code may count differently: after `migrate`, every status is computed again."""
    if sender.label != "evaluations":
        return
    using = kwargs.get("using", "default")
    if StatusStamp._meta.db_table in connections[using].introspection.table_names():
        StatusStamp.objects.using(using).update(seq=F("seq") + 1, epoch=new_epoch())


DEPENDENCIES: dict = {}


def connect() -> None:
    """Called once from EvaluationsConfig.ready(), when every model is loaded."""
    DEPENDENCIES.update(dependencies())
    for model in DEPENDENCIES:
        post_save.connect(_on_change, sender=model, dispatch_uid=f"row-status-{model._meta.label}")
        post_delete.connect(
            _on_change, sender=model, dispatch_uid=f"row-status-del-{model._meta.label}"
        )
    m2m_changed.connect(_on_m2m, dispatch_uid="row-status-m2m")
    rows_written.connect(_on_bulk, dispatch_uid="row-status-bulk")
    post_save.connect(_on_person, sender=get_user_model(), dispatch_uid="row-status-person")
    post_migrate.connect(_on_migrate, dispatch_uid="row-status-migrate")


# --- reading ---------------------------------------------------------------------------------


def _stamp_values(ids: list[int]) -> dict[int, tuple[int, str]]:
    """The current stamps (seq, epoch) of these evaluations, made for the ones that have none."""
    current = StatusStamp.objects.filter(evaluation_id__in=ids)
    found = {pk: (seq, epoch) for pk, seq, epoch in current.values_list("pk", "seq", "epoch")}
    missing = [pk for pk in ids if pk not in found]
    if missing:  # and no digest may count from a stamp that was not there
        sqlite = connection.vendor == "sqlite"  # a reader may lack the lock: made later then
        try:
            with transaction.atomic() if sqlite else contextlib.nullcontext():
                StatusDigest.objects.filter(evaluation_id__in=missing).delete()
                StatusStamp.objects.bulk_create(
                    [StatusStamp(evaluation_id=pk) for pk in missing], ignore_conflicts=True
                )
        except DatabaseError:
            if not sqlite:
                raise
            log.info("Stamps not made for %s evaluations", len(missing))
        made = StatusStamp.objects.filter(evaluation_id__in=missing)
        found.update(
            {pk: (seq, epoch) for pk, seq, epoch in made.values_list("pk", "seq", "epoch")}
        )
    return found


def _stamps(ids: list[int]) -> dict[int, int]:
    return {pk: seq for pk, (seq, _epoch) in _stamp_values(ids).items()}


def stamp_of(evaluation_id: int) -> int:
    """The evaluation's current stamp (made if it has none yet); read it before the data."""
    return _stamps([evaluation_id]).get(evaluation_id, 0)


def page_stamp(evaluation_id: int) -> str:
    """What a kept page is filed under: the stamp and the epoch its last move drew (made if it
    has none yet); read it before the data."""
    seq, epoch = _stamp_values([evaluation_id]).get(evaluation_id, (0, ""))
    return f"{seq}.{epoch}"


def _claim(ids: list[int], viewer) -> list[int]:
    """The evaluations whose stored status for `viewer` this transaction may write now: on
    PostgreSQL, those whose advisory lock it gets without waiting (held to the end of the
    request), so a request never waits for another one storing the same rows, and never holds
    a row another one waits for. SQLite runs one writing transaction at a time anyway."""
    if connection.vendor != "postgresql" or not ids:
        return ids
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT e FROM unnest(%s::bigint[]) AS e WHERE pg_try_advisory_xact_lock("
            "hashtextextended(concat('shortlist-row-status:', e, ':', %s::bigint), 0))",
            [ids, viewer.pk],
        )
        return [row[0] for row in cursor.fetchall()]


def _store(viewer, computed: dict[int, RowStatus], stamps: dict[int, int]) -> None:
    now = timezone.now()
    claimed = set(_claim(sorted(pk for pk in computed if pk in stamps), viewer))
    rows = [
        StatusDigest(
            evaluation_id=pk,
            viewer=viewer,
            seq=stamps[pk],
            answered=status.answered,
            total=status.total,
            reminders=status.reminders,
            items={} if status.items is None else {get_language(): list(status.items)},
            computed_at=now,
            day=timezone.localdate(now),
        )
        for pk, status in sorted(computed.items())
        if pk in claimed
    ]
    if not rows:
        return
    try:
        with transaction.atomic():
            StatusDigest.objects.bulk_create(
                rows,
                update_conflicts=True,
                unique_fields=["evaluation", "viewer"],
                update_fields=[
                    "seq",
                    "answered",
                    "total",
                    "reminders",
                    "items",
                    "computed_at",
                    "day",
                ],
            )
    except DatabaseError:  # e.g. the evaluation was deleted meanwhile: counted next time
        log.warning("Row status not stored for %s evaluations", len(rows), exc_info=True)


def statuses(
    evaluation_ids: list[int],
    viewer,
    compute: Callable[[list[int]], dict[int, RowStatus]],
    *,
    items: bool = False,
) -> dict[int, RowStatus]:
    """The viewer's row status of each evaluation: stored ones that are current, and
    `compute(ids)` for the rest (stored for next time). With `items`, a stored status counts
    as current only with its reminders in the active language, and `compute` must give them.
    A viewer who is not signed in (no pk) gets computed ones only."""
    if not evaluation_ids:
        return {}
    if getattr(viewer, "pk", None) is None:
        return compute(evaluation_ids)
    oldest = timezone.now() - timedelta(seconds=settings.ROW_STATUS_MAX_AGE)
    fields = ["evaluation_id", "answered", "total", "reminders"]
    current = StatusDigest.objects.filter(
        evaluation_id__in=evaluation_ids,
        viewer=viewer,
        seq=F("evaluation__status_stamp__seq"),
        computed_at__gte=oldest,
        day=timezone.localdate(),  # what is stale (catalog freshness) depends on the day
    ).values_list(*fields, *(["items"] if items else []))
    if items:
        language = get_language()
        current = [(*row[:4], tuple(row[4][language])) for row in current if language in row[4]]
    found = {pk: RowStatus(*counts) for pk, *counts in current}
    missing = [pk for pk in evaluation_ids if pk not in found]
    if missing and wrote_here():
        found.update(compute(missing))
    elif missing:
        stamps = _stamps(missing)  # read before the data the count reads
        computed = compute(missing)
        _store(viewer, computed, stamps)
        found.update(computed)
        pending = _Pending.current()
        if pending is not None:  # a later change in this transaction must move the stamp again
            pending.moved.clear()
    return found
