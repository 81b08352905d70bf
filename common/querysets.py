"""Bulk writes that still tell whoever listens.

`QuerySet.update`, `bulk_create` and `bulk_update` send no model signals, so anything that a
save triggers through `post_save` (evaluations.digests moving an evaluation's stamp, which the
kept pages and stored row status are filed under) would be skipped by writing in bulk. A model
whose manager is `SignallingQuerySet.as_manager()` sends `rows_written` after each of these,
inside the same transaction as the write.
"""

from __future__ import annotations

from django.db import models, transaction
from django.dispatch import Signal

# sender: the model; pks: the primary keys written; objs: the instances (bulk writes) or ();
# fields: the names of the fields written.
rows_written = Signal()


class SignallingQuerySet(models.QuerySet):
    def update(self, **kwargs) -> int:
        with transaction.atomic(using=self.db, savepoint=False):
            pks = list(self.values_list("pk", flat=True))
            count = super().update(**kwargs)
            if pks:
                rows_written.send(sender=self.model, pks=pks, objs=(), fields=tuple(kwargs))
        return count

    update.alters_data = True

    def bulk_create(self, objs, *args, **kwargs):
        with transaction.atomic(using=self.db, savepoint=False):
            created = super().bulk_create(objs, *args, **kwargs)
            if created:
                rows_written.send(
                    sender=self.model,
                    pks=[o.pk for o in created],
                    objs=tuple(created),
                    fields=(),
                )
        return created

    bulk_create.alters_data = True

    def bulk_update(self, objs, fields, *args, **kwargs) -> int:
        objs = list(objs)
        with transaction.atomic(using=self.db, savepoint=False):
            count = super().bulk_update(objs, fields, *args, **kwargs)
            if objs:
                rows_written.send(
                    sender=self.model,
                    pks=[o.pk for o in objs],
                    objs=tuple(objs),
                    fields=tuple(fields),
                )
        return count

    bulk_update.alters_data = True


class SignallingModel(models.Model):
    """A model whose default manager signals its bulk writes (SignallingQuerySet). Every model
    whose rows a stored status or a kept page reads extends it (evaluations.digests checks)."""

    objects = SignallingQuerySet.as_manager()

    class Meta:
        abstract = True
