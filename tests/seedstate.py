"""The seeded content, captured once per run and put back after every flush.

A test that commits (live server, workers) ends with a flush of every table. Running the seed
loaders again takes seconds (the catalog loader alone compares and saves thousands of rows with
their history); inserting the rows they left, captured once after the session's own seed, takes
a fraction of that. The loaders stay the one source of the content: the capture is whatever
they wrote, and a run without a capture (or a database that still holds rows) seeds as before.
"""

from dataclasses import dataclass, field

from django.apps import apps
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction

from common.seeding import LOADERS, seed_all

# Made again by the flush's post_migrate signal with new ids: never captured, nor rows that
# point at them; the role groups' permissions are given again by their loader after a restore.
REMADE_BY_MIGRATE = (ContentType, Permission)
AFTER_RESTORE = ("roles",)


@dataclass
class Table:
    model: type
    names: list[str]
    rows: list[tuple]


@dataclass
class SeededState:
    tables: list[Table] = field(default_factory=list)

    def capture(self) -> None:
        self.tables = []
        for model in apps.get_models(include_auto_created=True):
            if not _capturable(model):
                continue
            names = [f.attname for f in model._meta.concrete_fields]
            rows = list(model._base_manager.order_by("pk").values_list(*names))
            if rows:
                self.tables.append(Table(model, names, rows))

    def is_present(self) -> bool:
        """The first captured table has rows: the content is there (a seed or a restore)."""
        return bool(self.tables) and self.tables[0].model._base_manager.exists()

    def restore(self) -> None:
        """Put the captured rows back into an emptied database; seed as usual when there is no
        capture or the database was not emptied (a test that failed before its flush)."""
        if not self.tables or self.is_present():
            seed_all()
            return
        with transaction.atomic():  # foreign keys are checked at commit, whatever the order
            for table in self.tables:
                model, names = table.model, table.names
                objects = [model(**dict(zip(names, row, strict=True))) for row in table.rows]
                model._base_manager.bulk_create(objects, batch_size=500)
            _sequences_past_restored_ids([t.model for t in self.tables])
        for name, loader in LOADERS:
            if name in AFTER_RESTORE:
                loader()


def _capturable(model) -> bool:
    meta = model._meta
    if not meta.managed or meta.proxy or model in REMADE_BY_MIGRATE:
        return False
    return not any(
        f.is_relation and f.related_model in REMADE_BY_MIGRATE for f in meta.concrete_fields
    )


def _sequences_past_restored_ids(models) -> None:
    """PostgreSQL: no id sequence below a restored row's id (a flush that resets sequences
    would otherwise hand them out again). SQLite moves its own counters on insert."""
    if connection.vendor != "postgresql":
        return
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        for model in models:
            pk = model._meta.pk
            if pk.get_internal_type() not in ("AutoField", "BigAutoField", "SmallAutoField"):
                continue
            table, column = qn(model._meta.db_table), qn(pk.column)
            cursor.execute(
                f"SELECT setval(seq, GREATEST((SELECT MAX({column}) FROM {table}),"
                " pg_sequence_last_value(seq))) FROM (SELECT"
                " pg_get_serial_sequence(%s, %s)::regclass AS seq) AS found WHERE seq IS NOT NULL",
                [table, pk.column],
            )


STATE = SeededState()
