"""One evaluation as one zip archive, and back into another instance: the import, and the
module every caller uses (pages, API, commands). The format is described in portable.parts,
writing it in portable.export, checking an upload in portable.reading."""

from __future__ import annotations

import logging
import os
from collections import defaultdict
from pathlib import PurePosixPath

from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import DatabaseError, models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from evaluations.models import Evaluation, MemberRole, Membership

from .export import evaluation_export
from .parts import (
    CATALOG_SCOPE,
    FILES,
    JSON_REFERENCES,
    NATURAL_KEYS,
    PART_OF,
    PARTS,
    ArchiveRefused,
    m2m_fields,
    names_text,
    row_fields,
    user_model,
)
from .reading import read_archive

__all__ = [
    "PARTS",
    "ArchiveRefused",
    "evaluation_export",
    "evaluation_import",
    "read_archive",
]

logger = logging.getLogger(__name__)


class _Malformed(Exception):
    """evaluation.json does not have the shape this version writes."""


def _rows(document: dict) -> dict[type, list[dict]]:
    objects = document.get("objects")
    if not isinstance(objects, dict):
        raise _Malformed("objects")
    unknown = set(objects) - {p.label for p in PARTS}
    if unknown:
        raise _Malformed(names_text(unknown))
    out = {}
    for part in PARTS:
        rows = objects.get(part.label, [])
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise _Malformed(part.label)
        out[part.model] = rows
    if len(out[Evaluation]) != 1:
        raise _Malformed(Evaluation._meta.label_lower)
    return out


def _references(rows: dict[type, list[dict]]):
    """(target model, value) of every reference to a person or catalog entry in the rows."""
    for model, model_rows in rows.items():
        relations = [f for f in row_fields(model) if f.is_relation] + m2m_fields(model)
        for row in model_rows:
            for field in relations:
                value = row.get(field.name)
                values = value if field.many_to_many and isinstance(value, list) else [value]
                for v in values:
                    if isinstance(v, str):
                        yield field.related_model, v


def _map_people(document: dict, rows) -> dict[str, int]:
    """Archive username -> local user id: the same username, else the same e-mail address
    (case-insensitive). Refuses people found under neither, or found twice."""
    User = user_model()
    emails = {}
    for person in document.get("people") or []:
        if isinstance(person, dict) and isinstance(person.get("username"), str):
            emails[person["username"]] = str(person.get("email") or "")
    named = {v for model, v in _references(rows) if model is User} | set(emails)
    found, unknown, ambiguous = {}, [], []
    for username in sorted(named):
        user = User.objects.filter(**{User.USERNAME_FIELD: username}).first()
        if user is None and emails.get(username):
            matches = list(User.objects.filter(email__iexact=emails[username])[:2])
            if len(matches) > 1:
                ambiguous.append(f"{username} <{emails[username]}>")
                continue
            user = matches[0] if matches else None
        if user is None:
            shown = f"{username} <{emails[username]}>" if emails.get(username) else username
            unknown.append(shown)
        else:
            found[username] = user.pk
    if unknown:
        raise ArchiveRefused(
            _(
                "These people of the archive have no account here (by username or e-mail): "
                "%(people)s. Create their accounts first, then import again."
            )
            % {"people": ", ".join(unknown)}
        )
    if ambiguous:
        raise ArchiveRefused(
            _("Several accounts here have the e-mail address of: %(people)s.")
            % {"people": ", ".join(ambiguous)}
        )
    doubles = sorted(u for u, pk in found.items() if list(found.values()).count(pk) > 1)
    if doubles:
        raise ArchiveRefused(
            _("These people of the archive are one account here: %(people)s.")
            % {"people": ", ".join(doubles)}
        )
    return found


def _map_catalog(rows) -> dict[type, dict[str, int]]:
    """Natural key -> local id of every catalog entry the rows name; refuses missing ones."""
    wanted = defaultdict(set)
    for model, value in _references(rows):
        if model in NATURAL_KEYS:
            wanted[model].add(value)
    found, missing = {}, []
    for model, keys in wanted.items():
        qs = model.objects.filter(**CATALOG_SCOPE.get(model, {}))
        found[model] = dict(
            qs.filter(**{f"{NATURAL_KEYS[model]}__in": keys}).values_list(NATURAL_KEYS[model], "pk")
        )
        missing += [f"{model._meta.verbose_name} “{k}”" for k in sorted(keys - set(found[model]))]
    if missing:
        raise ArchiveRefused(
            _(
                "These catalog entries of the archive are not in this instance's catalog: "
                "%(entries)s. Add them (or load the same catalog), then import again."
            )
            % {"entries": ", ".join(sorted(missing))}
        )
    return found


class _Importer:
    def __init__(self, archive, document, paths, people, catalog):
        self.archive = archive
        self.paths = paths
        self.people = people
        self.catalog = catalog
        self.rows = _rows(document)
        self.pks: dict[type, list[int]] = {}
        self.stored: dict[str, str] = {}  # archive path -> stored name
        self.written: list[str] = []

    def ref(self, model, value):
        if value is None:
            return None
        if model is user_model():
            if not isinstance(value, str) or value not in self.people:
                raise _Malformed(str(value))
            return self.people[value]
        if type(value) is int and model in PART_OF:
            pks = self.pks.get(model)
            if pks is None or not 0 <= value < len(pks):
                raise _Malformed(f"{model._meta.label_lower}[{value}]")
            return pks[value]
        if isinstance(value, str) and model in NATURAL_KEYS:
            return self.catalog[model][value]
        raise _Malformed(f"{model._meta.label_lower}: {value!r}")

    def file(self, field, obj, path) -> str:
        if not isinstance(path, str) or path not in self.paths or not path.startswith(FILES):
            raise _Malformed(str(path))
        if path not in self.stored:
            with self.archive.open(path) as stream:
                name = field.generate_filename(obj, PurePosixPath(path).name)
                name = default_storage.save(name, File(stream, name=name))
            self.written.append(name)
            self.stored[path] = name
        return self.stored[path]

    def json_value(self, model, field, value):
        refs = JSON_REFERENCES.get((model, field.name))
        if not refs or not isinstance(value, list):
            return value
        out = []
        for item in value:
            if not isinstance(item, dict):
                raise _Malformed(field.name)
            item = dict(item)
            for key, target in refs.items():
                if item.get(key) is not None:
                    item[key] = self.ref(target, item[key])
            out.append(item)
        return out

    def build(self, model, row: dict):
        obj = model()
        relations = []
        for field in row_fields(model):
            if field.name not in row:
                continue  # a field this archive predates keeps its default
            value = row[field.name]
            if field.is_relation:
                setattr(obj, field.attname, self.ref(field.related_model, value))
                relations.append(field.name)
            elif isinstance(field, models.FileField):
                setattr(obj, field.attname, self.file(field, obj, value) if value else "")
            elif isinstance(field, models.JSONField):
                setattr(obj, field.attname, self.json_value(model, field, value))
            else:
                setattr(obj, field.attname, field.to_python(value))
        # Field rules (lengths, choices, ranges, formats) hold for imported rows as for typed
        # ones; "required" does not: services leave some required fields empty on purpose (a
        # library case's texts stay in the library), and the database has the last word.
        try:
            obj.clean_fields(exclude=relations)
        except ValidationError as exc:
            errors = [
                f"{name}: {' '.join(e.messages)}"
                for name, field_errors in exc.error_dict.items()
                for e in field_errors
                if e.code != "blank"
            ]
            if errors:
                where = f"{model._meta.verbose_name} {self.rows[model].index(row) + 1}"
                raise ValidationError(f"{where}: {'; '.join(errors)}") from None
        return obj

    def create(self, user, name: str = "") -> Evaluation:
        reason = _("Imported from an archive")
        for part in PARTS:
            model, rows = part.model, self.rows[part.model]
            built = [self.build(model, row) for row in rows]
            if model is Evaluation:  # this copy's own mark (parts.LOCAL_FIELDS)
                for obj in built:
                    obj.imported_from, obj.imported_at = name, timezone.now()
            objs = model.objects.bulk_create(built)
            self.pks[model] = [obj.pk for obj in objs]
            for field in m2m_fields(model):
                through = field.remote_field.through
                links = [
                    through(
                        **{
                            f"{field.m2m_field_name()}_id": obj.pk,
                            f"{field.m2m_reverse_field_name()}_id": self.ref(
                                field.related_model, value
                            ),
                        }
                    )
                    for obj, row in zip(objs, rows, strict=True)
                    for value in row.get(field.name) or []
                ]
                through.objects.bulk_create(links)
            stamped = [
                f
                for f in row_fields(model)
                if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)
            ]
            for obj, row in zip(objs, rows, strict=True):
                values = {f.name: f.to_python(row[f.name]) for f in stamped if f.name in row}
                if values:  # save() sets these to now: write the archive's times after it
                    model.objects.filter(pk=obj.pk).update(**values)
            if hasattr(model, "history"):
                model.history.bulk_history_create(
                    list(model.objects.filter(pk__in=self.pks[model]).order_by("pk")),
                    default_user=user,
                    default_change_reason=reason,
                )
        evaluation = Evaluation.objects.get(pk=self.pks[Evaluation][0])
        if user is not None and not evaluation.memberships.filter(user=user).exists():
            Membership.objects.create(evaluation=evaluation, user=user, role=MemberRole.OWNER)
        return evaluation


def evaluation_import(*, source, user=None, name: str = "") -> Evaluation:
    """Create the evaluation an archive holds, in one transaction, and return it.

    `source`: a path or a seekable binary file. `user`, when given, is who imports: made the
    evaluation's owner unless the archive already names them as a member. `name`: the
    archive's file name, kept on the evaluation with the time of the import (by default the
    path's or the file's own name). Raises ArchiveRefused, and then nothing is created: no
    row, no stored file."""
    if not name:
        path = source if isinstance(source, str | os.PathLike) else getattr(source, "name", "")
        name = os.path.basename(str(path or ""))
    name = name[: Evaluation._meta.get_field("imported_from").max_length]
    archive, document, paths = read_archive(source)
    written: list[str] = []
    try:
        with archive:
            rows = _rows(document)
            people = _map_people(document, rows)
            catalog = _map_catalog(rows)
            importer = _Importer(archive, document, paths, people, catalog)
            written = importer.written
            with transaction.atomic():
                evaluation = importer.create(user, name)
    except _Malformed as exc:
        _remove(written)
        raise ArchiveRefused(
            _("evaluation.json does not have the shape this version writes (at %(where)s).")
            % {"where": str(exc)[:200]}
        ) from None
    except ValidationError as exc:
        _remove(written)
        if isinstance(exc, ArchiveRefused):
            raise
        raise ArchiveRefused(
            _("The archive's data does not fit this instance: %(errors)s")
            % {"errors": "; ".join(exc.messages)[:1000]}
        ) from None
    except (DatabaseError, ValueError, TypeError, KeyError, AttributeError) as exc:
        _remove(written)
        logger.warning("evaluation import refused: %s", exc)
        raise ArchiveRefused(
            _("The archive's data does not fit this instance: %(error)s")
            % {"error": str(exc)[:500]}
        ) from None
    except BaseException:
        _remove(written)
        raise
    logger.info("evaluation %s imported from an archive", evaluation.pk)
    return evaluation


def _remove(names: list[str]) -> None:
    for name in names:
        default_storage.delete(name)
