"""Optimistic concurrency: every editable row carries a version; a stale save is refused."""

from django.db import models
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from .exceptions import Conflict, StaleEdit
from .querysets import SignallingModel


class VersionedModel(SignallingModel):
    version = models.PositiveIntegerField(_lazy("version"), default=1, editable=False)

    class Meta:
        abstract = True


def lock_and_check(model, *, pk, expected_version: int | None, queryset=None):
    """Fetch the row FOR UPDATE and refuse when the caller's version is not the saved one.

    `expected_version=None` means the caller did not say which version it edited (internal
    callers only); 0 means the editor saw no saved row yet, so any saved row is newer.
    """
    qs = queryset if queryset is not None else model.objects.all()
    obj = qs.select_for_update().get(pk=pk)
    if expected_version is not None and int(expected_version) != obj.version:
        raise StaleEdit(
            _(
                "Someone else saved this since you opened it (you edited version %(yours)s, "
                "the saved one is version %(saved)s). Review the current value below and "
                "apply your change again."
            )
            % {"yours": expected_version or _("none"), "saved": obj.version},
            current=obj,
        )
    return obj


def bump(obj) -> None:
    obj.version = (obj.version or 0) + 1


def lock_or_new(model, *, expected_version: int | None, **lookup):
    """The saved row matching `lookup`, locked and version-checked (lock_and_check), or a new
    unsaved one with version 0 when there is none. Callers bump() before saving either way.

    An editor who saw a saved row (expected_version > 0) that is gone meanwhile is refused.
    """
    pk = model.objects.filter(**lookup).values_list("pk", flat=True).first()
    if pk is None:
        if expected_version not in (None, 0):
            raise Conflict(_("This no longer exists; reload the page."))
        return model(**lookup, version=0)
    return lock_and_check(model, pk=pk, expected_version=expected_version)
