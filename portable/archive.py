"""One evaluation as one zip archive, and back into another instance.

The archive holds:

- `evaluation.json`: every row of the evaluation (`PARTS`, in creation order), with
  `"schema_version": 1`;
- `files/<sha256><suffix>`: the evidence files, measurement import files and report PDFs,
  named by their content (a file two rows share is stored once);
- `manifest.json`: the SHA-256 and size of every other file in the archive.

References inside `evaluation.json` never carry database ids:

- a row of the same evaluation: its position (from 0) in its part's list, rows being listed in
  the order they were created (an integer);
- a catalog or library entry (solutions, scenarios, questions, areas, test groups, constraints,
  shared parties, ...): its natural key (`NATURAL_KEYS`, a string);
- a person: their username (a string); `people` gives each one's e-mail for the importer.

Not carried: the rows' change history (django-simple-history); the import starts it with one
record per row. Report snapshots are carried as they were sealed (their SHA-256 must still
match), so they keep the ids of the instance that printed them.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import os
import re
import zipfile
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from pathlib import PurePosixPath

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import DatabaseError, models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.models import Capability, Scenario, ShortlistRule, Solution, SolutionType
from evaluations.models import (
    Approval,
    Candidate,
    CandidateLayer,
    Constraint,
    ConstraintWaiver,
    ContextAnswer,
    ContextQuestion,
    Decision,
    Evaluation,
    FiveQuestion,
    MemberRole,
    Membership,
    QuestionAnswer,
    StatusChange,
)
from poc.models import (
    ConflictDeclaration,
    Consensus,
    Evidence,
    MeasurementImport,
    PlanCase,
    PlanGroup,
    Score,
    TestBed,
    TestCase,
    TestGroup,
)
from reports.models import ReportRun
from responsibility.models import Area, AreaRow, Cell, CostInput, CostSettings, Party

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 1
DOCUMENT = "evaluation.json"
MANIFEST = "manifest.json"
FILES = "files/"
CHUNK = 1024 * 1024
SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Part:
    """One model of an evaluation and the lookup from its rows to the evaluation."""

    model: type[models.Model]
    to_evaluation: str

    @property
    def label(self) -> str:
        return self.model._meta.label_lower


# Every model whose rows belong to one evaluation, in an order where each row refers only to
# rows of parts before it (and to catalog entries and people). tests/portable checks that no
# model pointing at one of these is left out.
PARTS: tuple[Part, ...] = (
    Part(Evaluation, "pk"),
    Part(Membership, "evaluation"),
    Part(ContextAnswer, "evaluation"),
    Part(Party, "evaluation"),  # the evaluation's own parties; shared ones are catalog
    Part(Candidate, "evaluation"),
    Part(CandidateLayer, "candidate__evaluation"),
    Part(QuestionAnswer, "candidate__evaluation"),
    Part(ConstraintWaiver, "candidate__evaluation"),
    Part(Decision, "evaluation"),
    Part(StatusChange, "evaluation"),
    Part(AreaRow, "candidate__evaluation"),
    Part(Cell, "row__candidate__evaluation"),
    Part(CostSettings, "evaluation"),
    Part(CostInput, "candidate__evaluation"),
    Part(PlanGroup, "evaluation"),
    Part(PlanCase, "evaluation"),
    Part(Score, "case__evaluation"),
    Part(Evidence, "score__case__evaluation"),
    Part(Consensus, "case__evaluation"),
    Part(ConflictDeclaration, "evaluation"),
    Part(TestBed, "candidate__evaluation"),
    Part(MeasurementImport, "evaluation"),
    Part(ReportRun, "evaluation"),
    Part(Approval, "evaluation"),
)
PART_OF = {part.model: part for part in PARTS}

# Catalog and library entries an evaluation refers to, by the field that names them in every
# instance. Parties are both: the evaluation's own are rows, the shared ones catalog.
NATURAL_KEYS: dict[type[models.Model], str] = {
    SolutionType: "slug",
    Scenario: "slug",
    Solution: "slug",
    Capability: "slug",
    ShortlistRule: "key",
    ContextQuestion: "key",
    FiveQuestion: "key",
    Constraint: "key",
    Area: "key",
    TestGroup: "key",
    TestCase: "key",
    Party: "key",
}
CATALOG_SCOPE: dict[type[models.Model], dict] = {Party: {"evaluation__isnull": True}}

# JSON fields holding ids of the evaluation's rows: {(model, field): {json key: model}}.
JSON_REFERENCES = {
    (MeasurementImport, "rows"): {"case": PlanCase, "candidate": Candidate, "score": Score},
}


class ArchiveRefused(ValidationError):
    """An archive this instance will not import (or an evaluation it cannot export); the
    message says why and what to do."""


def max_bytes() -> int:
    return settings.PORTABLE_MAX_BYTES


def _size_text(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


def _user_model():
    return get_user_model()


# Facts about one instance's copy, not about the evaluation: an archive never carries them (the
# import sets them for the copy it makes).
LOCAL_FIELDS = {"evaluations.evaluation": {"imported_from", "imported_at"}}


def _fields(model):
    """The concrete fields an archive row carries: all but the primary key and the local ones."""
    local = LOCAL_FIELDS.get(model._meta.label_lower, set())
    return [f for f in model._meta.concrete_fields if not f.primary_key and f.name not in local]


def _m2m(model):
    return list(model._meta.many_to_many)


def _plain(value):
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


# --- export ----------------------------------------------------------------------------------


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
            members = _user_model().objects.filter(
                evaluation_memberships__evaluation=self.evaluation
            )
            self.people = {user.pk: user for user in members}
        if pk not in self.people:  # e.g. who waived a rule and has left the evaluation since
            self.people[pk] = _user_model().objects.get(pk=pk)
        return self.people[pk].get_username()

    def catalog_key(self, model, pk: int) -> str:
        if model not in self.keys:
            qs = model.objects.filter(**CATALOG_SCOPE.get(model, {}))
            self.keys[model] = dict(qs.values_list("pk", NATURAL_KEYS[model]))
        return self.keys[model][pk]

    def ref(self, model, pk: int):
        if model is _user_model():
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
        for field in _fields(model):
            if field.is_relation:
                target = getattr(obj, field.attname)
                row[field.name] = None if target is None else self.ref(field.related_model, target)
            elif isinstance(field, models.FileField):
                stored = getattr(obj, field.attname)
                row[field.name] = self.file(stored.name, obj) if stored else ""
            elif isinstance(field, models.JSONField):
                row[field.name] = self.json_value(model, field, field.value_from_object(obj))
            else:
                row[field.name] = _plain(field.value_from_object(obj))
        for field in _m2m(model):
            refs = [self.ref(field.related_model, o.pk) for o in getattr(obj, field.name).all()]
            row[field.name] = sorted(refs, key=lambda r: (isinstance(r, str), r))
        return row

    def document(self) -> dict:
        objects = {}
        for part in PARTS:
            qs = self.querysets[part.model].prefetch_related(*(f.name for f in _m2m(part.model)))
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


# --- reading and checking an archive ---------------------------------------------------------


def _safe_name(name: str) -> bool:
    """A plain relative path: no absolute path, drive, backslash, `..`, `.` or empty part."""
    if not name or name.startswith("/") or "\\" in name or ":" in name or "\x00" in name:
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))


def _archive_size(source) -> int:
    if isinstance(source, str | os.PathLike):
        return os.path.getsize(source)
    position = source.tell()
    source.seek(0, os.SEEK_END)
    size = source.tell()
    source.seek(position)
    return size


def _read_json(archive: zipfile.ZipFile, name: str):
    try:
        with archive.open(name) as stream:
            return json.load(stream)
    except (ValueError, UnicodeDecodeError):
        raise ArchiveRefused(_("%(name)s is not valid JSON.") % {"name": name}) from None


def _names(items) -> str:
    return ", ".join(sorted(items))


def _valid_entry(entry) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("path"), str)
        and isinstance(entry.get("sha256"), str)
        and bool(SHA256.match(entry["sha256"]))
        and type(entry.get("size")) is int
        and entry["size"] >= 0
    )


def _check_contents(archive: zipfile.ZipFile, entries: list[dict]) -> None:
    """Every file's bytes against the manifest, streamed (a longer file stops at its size)."""
    for entry in entries:
        digest, size = hashlib.sha256(), 0
        with archive.open(entry["path"]) as stream:
            for chunk in iter(lambda: stream.read(CHUNK), b""):
                digest.update(chunk)
                size += len(chunk)
                if size > entry["size"]:
                    break
        if size != entry["size"] or digest.hexdigest() != entry["sha256"]:
            raise ArchiveRefused(
                _(
                    "%(path)s does not match the archive's manifest (its SHA-256 or size "
                    "differs): the archive was changed or damaged after it was exported."
                )
                % {"path": entry["path"]}
            )


def read_archive(source) -> tuple[zipfile.ZipFile, dict, set[str]]:
    """Open and check an archive: size limit, safe names, every file listed in the manifest and
    matching its SHA-256 and size, a schema version this instance reads. Returns the open zip,
    evaluation.json's content and the archive's file paths. Raises ArchiveRefused."""
    limit = max_bytes()
    size = _archive_size(source)
    if size > limit:
        raise ArchiveRefused(
            _("The archive is %(size)s; this instance imports archives up to %(limit)s.")
            % {"size": _size_text(size), "limit": _size_text(limit)}
        )
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError):
        raise ArchiveRefused(_("This is not a zip archive exported by Shortlist.")) from None
    try:
        return archive, *_check(archive, limit)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError, EOFError):
        archive.close()
        raise ArchiveRefused(_("The archive is damaged and cannot be read.")) from None
    except ArchiveRefused:
        archive.close()
        raise


def _check(archive: zipfile.ZipFile, limit: int) -> tuple[dict, set[str]]:
    infos = archive.infolist()
    names = [info.filename for info in infos]
    unsafe = [n for n in names if not _safe_name(n)]
    if unsafe:
        raise ArchiveRefused(
            _("The archive holds files with unsafe names: %(names)s.") % {"names": _names(unsafe)}
        )
    if len(set(names)) != len(names):
        raise ArchiveRefused(_("The archive holds two files of the same name."))
    if sum(info.file_size for info in infos) > limit:
        raise ArchiveRefused(
            _("Unpacked, the archive is over %(limit)s, the most this instance imports.")
            % {"limit": _size_text(limit)}
        )
    if MANIFEST not in names:
        raise ArchiveRefused(
            _("The archive has no manifest.json: it was not exported by Shortlist.")
        )
    manifest = _read_json(archive, MANIFEST)
    entries = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(entries, list) or not all(_valid_entry(e) for e in entries):
        raise ArchiveRefused(_("manifest.json does not list the archive's files as expected."))
    listed = [e["path"] for e in entries]
    if len(set(listed)) != len(listed):
        raise ArchiveRefused(_("manifest.json lists a file twice."))
    present = set(names) - {MANIFEST}
    extra, missing = present - set(listed), set(listed) - present
    if extra:
        raise ArchiveRefused(
            _("The archive holds files its manifest does not list: %(names)s.")
            % {"names": _names(extra)}
        )
    if missing:
        raise ArchiveRefused(
            _("Files the manifest lists are missing from the archive: %(names)s.")
            % {"names": _names(missing)}
        )
    if DOCUMENT not in present:
        raise ArchiveRefused(_("The archive has no evaluation.json."))
    _check_contents(archive, entries)
    document = _read_json(archive, DOCUMENT)
    version = document.get("schema_version") if isinstance(document, dict) else None
    if version != SCHEMA_VERSION:
        raise ArchiveRefused(
            _(
                "The archive's schema version is %(version)s; this instance reads version "
                "%(supported)s. Import it into an instance of the version that exported it."
            )
            % {"version": json.dumps(version), "supported": SCHEMA_VERSION}
        )
    return document, present


# --- import ----------------------------------------------------------------------------------


class _Malformed(Exception):
    """evaluation.json does not have the shape this version writes."""


def _rows(document: dict) -> dict[type, list[dict]]:
    objects = document.get("objects")
    if not isinstance(objects, dict):
        raise _Malformed("objects")
    unknown = set(objects) - {p.label for p in PARTS}
    if unknown:
        raise _Malformed(_names(unknown))
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
        relations = [f for f in _fields(model) if f.is_relation] + _m2m(model)
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
    User = _user_model()
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
        if model is _user_model():
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
        for field in _fields(model):
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
            if model is Evaluation:  # this copy's own mark (LOCAL_FIELDS)
                for obj in built:
                    obj.imported_from, obj.imported_at = name, timezone.now()
            objs = model.objects.bulk_create(built)
            self.pks[model] = [obj.pk for obj in objs]
            for field in _m2m(model):
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
                for f in _fields(model)
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
