"""Applying a bundle: all or nothing, with history records naming the importer."""

from __future__ import annotations

import tempfile
from contextvars import ContextVar
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.db.models.signals import post_save, pre_save
from django.utils.translation import gettext as _
from modeltranslation.translator import translator

from ..models import (
    AcceleratorSupport,
    CapabilityClaim,
    ShortlistRule,
    Solution,
)
from ..services import catalog_load_seed
from .common import CATALOG_NAME, HISTORY_REASON, BundleRefused, BundleStale
from .diff import bundle_diff
from .models import CatalogImport
from .read import Bundle

# Set while a bundle is applied in this thread: (user, reason). The loader saves every row it
# reads; these receivers name the importing user on the history records and skip the records
# of rows the import leaves as they were.
_importing: ContextVar[tuple | None] = ContextVar("catalog_bundle_importing", default=None)
HISTORY_MODELS = (Solution, CapabilityClaim, AcceleratorSupport, ShortlistRule)


def _compared_fields(model) -> list[str]:
    """The stored values a save may change: not the id, not the per-language copy of a
    translated field, not a field no one edits (a claim's edit version moves on every save)."""
    translated = translator.get_options_for_model(model).fields
    return [
        f.attname
        for f in model._meta.concrete_fields
        if not f.primary_key and f.editable and f.name not in translated
    ]


def _unchanged(instance) -> bool:
    names = _compared_fields(type(instance))
    stored = type(instance)._base_manager.filter(pk=instance.pk).values(*names).first()
    return stored is not None and all(stored[n] == getattr(instance, n) for n in names)


def _before_save(sender, instance, raw=False, **kwargs):
    importing = _importing.get()
    if importing is None or raw or sender not in HISTORY_MODELS:
        return
    instance._history_user, instance._change_reason = importing
    if instance.pk and _unchanged(instance):
        instance.skip_history_when_saving = True
        instance._bundle_skipped = True


def _after_save(sender, instance, **kwargs):
    # simple_history's receiver has run (it was connected first): later changes of the same
    # instance's sources or solutions are recorded again.
    if getattr(instance, "_bundle_skipped", False):
        del instance.skip_history_when_saving
        del instance._bundle_skipped


for _model in HISTORY_MODELS:
    pre_save.connect(_before_save, sender=_model, dispatch_uid=f"bundle-pre-{_model.__name__}")
    post_save.connect(_after_save, sender=_model, dispatch_uid=f"bundle-post-{_model.__name__}")


def bundle_apply(bundle: Bundle, *, user=None, expected_state: str | None = None) -> CatalogImport:
    """Apply a bundle all or nothing, through the seed loader, and record the import.

    Rows are matched by slug or key; new ones are created, changed ones updated, rows only in
    this installation kept. History records of changed rows name `user`. Applying the same
    bundle again changes nothing and is recorded again. `expected_state` (a preview's
    `Diff.state`) refuses with BundleStale when the catalog changed since that preview."""
    with transaction.atomic():
        diff = bundle_diff(bundle)
        if expected_state is not None and diff.state != expected_state:
            raise BundleStale(
                _(
                    "The catalog changed after you previewed this bundle; nothing was applied. "
                    "Review what it would change now, then apply it again."
                )
            )
        token = _importing.set((user, f"{HISTORY_REASON} {bundle.sha256[:12]}"))
        try:
            with tempfile.TemporaryDirectory(prefix="catalog-bundle-") as folder:
                path = Path(folder) / CATALOG_NAME
                path.write_bytes(bundle.yaml_bytes)
                counts = catalog_load_seed(path=path)
        except ValidationError as exc:
            raise BundleRefused(
                [_("The bundle was refused; nothing was changed."), *exc.messages]
            ) from exc
        except (KeyError, TypeError, ValueError, DatabaseError) as exc:
            raise BundleRefused(
                [_("The bundle was refused; nothing was changed."), repr(exc)]
            ) from exc
        finally:
            _importing.reset(token)
        return CatalogImport.objects.create(
            imported_by=user,
            sha256=bundle.sha256,
            format_version=bundle.manifest["format_version"],
            exported_at=bundle.exported_at,
            exported_by=bundle.exported_by,
            counts=counts,
            changes=diff.counts(),
        )
