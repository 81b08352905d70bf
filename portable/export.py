"""Writing one evaluation as an archive (the format: portable.parts)."""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from pathlib import PurePosixPath

from django.core.files.storage import default_storage
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext as _

from evaluations.models import Evaluation

from .parts import (
    CATALOG_SCOPE,
    CHUNK,
    DOCUMENT,
    FILES,
    JSON_REFERENCES,
    MANIFEST,
    NATURAL_KEYS,
    PARTS,
    SCHEMA_VERSION,
    ArchiveRefused,
    m2m_fields,
    plain,
    row_fields,
    user_model,
)


class _Exporter:
    def __init__(self, evaluation: Evaluation):
        self.evaluation = evaluation
        self.querysets = {}
        self.index: dict[type, dict[int, int]] = {}
        for part in PARTS:
            qs = part.model.objects.filter(**{part.to_evaluation: evaluation.pk}).order_by("pk")
            self.querysets[part.model] = qs
            self.index[part.model] = {pk: i for i, pk in enumerate(qs.values_list("pk", flat=True))}
        self.keys: dict[type, dict[int, str]] = {}
        self.people: dict[int, object] = {}
        self.files: dict[str, tuple[str, str, int]] = {}  # stored name -> (path, sha, size)

    def person(self, pk: int) -> str:
        if not self.people:  # the members in one query, however many there are
            members = user_model().objects.filter(
                evaluation_memberships__evaluation=self.evaluation
            )
            self.people = {user.pk: user for user in members}
        if pk not in self.people:  # e.g. who waived a rule and has left the evaluation since
            self.people[pk] = user_model().objects.get(pk=pk)
        return self.people[pk].get_username()

    def catalog_key(self, model, pk: int) -> str:
        if model not in self.keys:
            qs = model.objects.filter(**CATALOG_SCOPE.get(model, {}))
            self.keys[model] = dict(qs.values_list("pk", NATURAL_KEYS[model]))
        return self.keys[model][pk]

    def ref(self, model, pk: int):
        if model is user_model():
            return self.person(pk)
        if model in self.index and pk in self.index[model]:
            return self.index[model][pk]
        if model in NATURAL_KEYS:
            return self.catalog_key(model, pk)
        raise ArchiveRefused(
            _("A %(model)s outside this evaluation is referred to; it cannot be exported.")
            % {"model": model._meta.verbose_name}
        )

    def file(self, name: str, row) -> str:
        if name not in self.files:
            try:
                digest, size = hashlib.sha256(), 0
                with default_storage.open(name, "rb") as stored:
                    for chunk in iter(lambda: stored.read(CHUNK), b""):
                        digest.update(chunk)
                        size += len(chunk)
            except OSError:
                raise ArchiveRefused(
                    _("The stored file of “%(row)s” is missing; the archive would be incomplete.")
                    % {"row": row}
                ) from None
            suffix = PurePosixPath(name).suffix.lower()
            suffix = suffix if re.fullmatch(r"\.[a-z0-9]{1,8}", suffix) else ""
            path = f"{FILES}{digest.hexdigest()}{suffix}"
            self.files[name] = (path, digest.hexdigest(), size)
        return self.files[name][0]

    def json_value(self, model, field, value):
        refs = JSON_REFERENCES.get((model, field.name))
        if not refs or not isinstance(value, list):
            return value
        out = []
        for item in value:
            item = dict(item)
            for key, target in refs.items():
                if isinstance(item.get(key), int):
                    item[key] = self.index[target].get(item[key])
            out.append(item)
        return out

    def row(self, model, obj) -> dict:
        row = {}
        for field in row_fields(model):
            if field.is_relation:
                target = getattr(obj, field.attname)
                row[field.name] = None if target is None else self.ref(field.related_model, target)
            elif isinstance(field, models.FileField):
                stored = getattr(obj, field.attname)
                row[field.name] = self.file(stored.name, obj) if stored else ""
            elif isinstance(field, models.JSONField):
                row[field.name] = self.json_value(model, field, field.value_from_object(obj))
            else:
                row[field.name] = plain(field.value_from_object(obj))
        for field in m2m_fields(model):
            refs = [self.ref(field.related_model, o.pk) for o in getattr(obj, field.name).all()]
            row[field.name] = sorted(refs, key=lambda r: (isinstance(r, str), r))
        return row

    def document(self) -> dict:
        objects = {}
        for part in PARTS:
            qs = self.querysets[part.model].prefetch_related(
                *(f.name for f in m2m_fields(part.model))
            )
            objects[part.label] = [self.row(part.model, obj) for obj in qs]
        people = sorted(self.people.values(), key=lambda u: u.get_username())
        return {
            "schema_version": SCHEMA_VERSION,
            "people": [{"username": u.get_username(), "email": u.email} for u in people],
            "objects": objects,
        }


def evaluation_export(evaluation: Evaluation, destination) -> dict:
    """Write `evaluation` as an archive to `destination` (a path or a writable binary file) and
    return its manifest. Files are streamed from storage, never read whole into memory."""
    exporter = _Exporter(evaluation)
    document = json.dumps(exporter.document(), ensure_ascii=False, indent=1).encode()
    entries = [
        {"path": DOCUMENT, "sha256": hashlib.sha256(document).hexdigest(), "size": len(document)}
    ]
    with zipfile.ZipFile(destination, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(DOCUMENT, document)
        written = set()
        for name, (path, sha, size) in sorted(exporter.files.items(), key=lambda i: i[1]):
            if path in written:
                continue
            written.add(path)
            with default_storage.open(name, "rb") as stored, archive.open(path, "w") as out:
                for chunk in iter(lambda: stored.read(CHUNK), b""):
                    out.write(chunk)
            entries.append({"path": path, "sha256": sha, "size": size})
        manifest = {
            "format": "shortlist-evaluation",
            "exported_at": timezone.now().isoformat(),
            "evaluation": evaluation.title,
            "files": sorted(entries, key=lambda e: e["path"]),
        }
        archive.writestr(MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=1))
    return manifest
