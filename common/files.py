"""Stored files that no row refers to any more, and removing them.

Evidence and report PDFs are written to storage inside database transactions; when one rolls
back (a failed request, a killed worker), the row is gone but the file stays. The sweep finds
such files by listing the storage folders of every model's FileField and comparing them with the
names all those rows hold.
A grace period leaves alone files young enough to belong to a transaction still in flight.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.apps import apps
from django.core.files.storage import default_storage
from django.db import models
from django.utils import timezone


def _file_fields():
    for model in apps.get_models():
        for field in model._meta.concrete_fields:
            if isinstance(field, models.FileField) and isinstance(field.upload_to, str):
                yield model, field


def _folder(upload_to: str) -> str:
    """The fixed folder of an upload_to: "evidence/%Y/%m/" → "evidence"; "" when there is none
    (such a field is not swept: its files could sit next to anything)."""
    prefix = upload_to.split("%", 1)[0]
    return prefix.rsplit("/", 1)[0].strip("/") if "/" in prefix else ""


def _walk(storage, folder: str):
    try:
        dirs, files = storage.listdir(folder)
    except FileNotFoundError:
        return
    for name in files:
        yield f"{folder}/{name}" if folder else name
    for sub in dirs:
        yield from _walk(storage, f"{folder}/{sub}" if folder else sub)


def orphan_files(*, older_than: timedelta, now: datetime | None = None) -> list[str]:
    """Names of stored files under the FileFields' folders that no row refers to and that were
    last modified more than `older_than` ago."""
    now = now or timezone.now()
    referenced: set[str] = set()
    folders: set[str] = set()
    for model, field in _file_fields():
        if folder := _folder(field.upload_to):
            folders.add(folder)
        referenced.update(
            model._default_manager.exclude(**{field.name: ""})
            .exclude(**{f"{field.name}__isnull": True})
            .values_list(field.name, flat=True)
        )
    storage = default_storage
    orphans = []
    for folder in sorted(folders):
        for name in _walk(storage, folder):
            if name in referenced:
                continue
            if storage.get_modified_time(name) < now - older_than:
                orphans.append(name)
    return sorted(orphans)


def sweep_orphan_files(*, older_than: timedelta, dry_run: bool = False) -> list[str]:
    """Delete (or, with dry_run, only list) the files `orphan_files` finds."""
    orphans = orphan_files(older_than=older_than)
    if not dry_run:
        for name in orphans:
            default_storage.delete(name)
    return orphans
