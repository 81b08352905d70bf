"""Opening an uploaded archive and checking it whole before anything is imported: size limits,
safe names, the manifest against every file, each member read within the limit of its role,
JSON parsed within bounds (common.parsing), the schema version."""

from __future__ import annotations

import hashlib
import json
import os
import zipfile

from django.conf import settings
from django.utils.translation import gettext as _

from common.parsing import InputRefused, json_loads, read_member

from .parts import (
    CHUNK,
    DOCUMENT,
    MANIFEST,
    MANIFEST_MAX_BYTES,
    SCHEMA_VERSION,
    SHA256,
    ArchiveRefused,
    max_bytes,
    names_text,
    size_text,
)


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


def member_limit(name: str) -> int:
    """The most a member of the archive may unpack to, by its role: the manifest is small,
    evaluation.json is parsed in memory, files are streamed and keep the archive's limit."""
    if name == MANIFEST:
        return MANIFEST_MAX_BYTES
    if name == DOCUMENT:
        return min(settings.PORTABLE_DOCUMENT_MAX_BYTES, max_bytes())
    return max_bytes()


def _read_json(archive: zipfile.ZipFile, name: str):
    """A JSON member, read in chunks up to its role's limit and parsed only when its nesting
    and number of values are within bounds (common.parsing)."""
    try:
        return json_loads(read_member(archive, name, member_limit(name)).decode("utf-8"))
    except InputRefused as exc:
        raise ArchiveRefused(f"{name}: {exc}") from None
    except ValueError:  # invalid JSON or UTF-8
        raise ArchiveRefused(_("%(name)s is not valid JSON.") % {"name": name}) from None


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
            % {"size": size_text(size), "limit": size_text(limit)}
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
            _("The archive holds files with unsafe names: %(names)s.")
            % {"names": names_text(unsafe)}
        )
    if len(set(names)) != len(names):
        raise ArchiveRefused(_("The archive holds two files of the same name."))
    if sum(info.file_size for info in infos) > limit:
        raise ArchiveRefused(
            _("Unpacked, the archive is over %(limit)s, the most this instance imports.")
            % {"limit": size_text(limit)}
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
            % {"names": names_text(extra)}
        )
    if missing:
        raise ArchiveRefused(
            _("Files the manifest lists are missing from the archive: %(names)s.")
            % {"names": names_text(missing)}
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
