"""Reading a bundle: every check an upload must pass before it is compared or applied."""

from __future__ import annotations

import datetime
import hashlib
import io
import json
import zipfile
from dataclasses import dataclass

import yaml
from django.utils.translation import gettext as _

from common.parsing import InputRefused, json_loads, read_member
from common.seeding import load_yaml

from .common import (
    CATALOG_NAME,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST_MAX_BYTES,
    MANIFEST_NAME,
    MAX_BYTES,
    BundleRefused,
)
from .normalise import normalise


@dataclass
class Bundle:
    """A bundle that passed every check: its manifest, its catalog.yaml (bytes and parsed)
    and its rows by kind and key (`normalise`)."""

    manifest: dict
    yaml_bytes: bytes
    data: dict
    rows: dict[str, dict[str, dict]]

    @property
    def sha256(self) -> str:
        return self.manifest["sha256"][CATALOG_NAME]

    @property
    def exported_at(self) -> datetime.datetime | None:
        try:
            return datetime.datetime.fromisoformat(str(self.manifest.get("created_at")))
        except ValueError:
            return None

    @property
    def exported_by(self) -> str:
        return str(self.manifest.get("created_by") or "")[:150]


def _refuse(*sentences: str) -> BundleRefused:
    return BundleRefused(" ".join(sentences))


def _export_again() -> str:
    return _("Export the bundle again at the installation it came from and bring a fresh copy.")


def bundle_read(data: bytes) -> Bundle:
    """Check a bundle and read it, refusing (BundleRefused, saying what to do) anything but an
    intact bundle of this format: not a zip, larger than MAX_BYTES (as sent or unpacked),
    missing or extra files, a manifest over MANIFEST_MAX_BYTES or of another format or
    version, JSON nested too deeply or too large to parse in bounded memory
    (common.parsing), a catalog.yaml whose
    SHA-256 differs from the manifest's, YAML that does not parse or that the loader could not
    read. Parsing is safe: plain YAML only, no Python objects."""
    limit_mb = MAX_BYTES // (1024 * 1024)
    if len(data) > MAX_BYTES:
        raise _refuse(
            _("The file is larger than %(mb)d MB, the most a catalog bundle may hold.")
            % {"mb": limit_mb}
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = {info.filename: info for info in archive.infolist()}
    except (zipfile.BadZipFile, ValueError, OSError):
        raise _refuse(
            _(
                "This is not a catalog bundle: it is not a zip file. Choose the .zip file that "
                "“Download the catalog” or manage.py catalog_export wrote."
            )
        ) from None
    missing = [n for n in (MANIFEST_NAME, CATALOG_NAME) if n not in infos]
    if missing:
        raise _refuse(
            _("The zip file lacks %(files)s, so it is not a catalog bundle.")
            % {"files": ", ".join(missing)},
            _export_again(),
        )
    extra = sorted(set(infos) - {MANIFEST_NAME, CATALOG_NAME})
    if extra:
        raise _refuse(
            _("The bundle holds files a catalog bundle never has: %(files)s.")
            % {"files": ", ".join(extra[:5])},
            _export_again(),
        )
    if sum(i.file_size for i in infos.values()) > MAX_BYTES:
        raise _refuse(
            _("Unpacked, the bundle is larger than %(mb)d MB, the most it may hold.")
            % {"mb": limit_mb}
        )
    try:
        manifest_bytes = read_member(archive, MANIFEST_NAME, MANIFEST_MAX_BYTES)
        yaml_bytes = read_member(archive, CATALOG_NAME, MAX_BYTES)
    except InputRefused as exc:
        raise _refuse(str(exc), _export_again()) from None
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError):
        raise _refuse(_("The zip file is damaged."), _export_again()) from None
    try:
        manifest = json_loads(manifest_bytes.decode("utf-8"))
    except InputRefused as exc:
        raise _refuse(f"{MANIFEST_NAME}: {exc}", _export_again()) from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        manifest = None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise _refuse(_("manifest.json is not a catalog bundle's manifest."), _export_again())
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise _refuse(
            _(
                "This bundle is in format version %(theirs)s; this installation reads version "
                "%(ours)s. Export it from an installation running the same Shortlist release, "
                "or upgrade the older of the two."
            )
            % {"theirs": version, "ours": FORMAT_VERSION}
        )
    hashes = manifest.get("sha256")
    expected = hashes.get(CATALOG_NAME) if isinstance(hashes, dict) else None
    actual = hashlib.sha256(yaml_bytes).hexdigest()
    if not isinstance(expected, str) or expected.lower() != actual:
        raise _refuse(
            _(
                "catalog.yaml does not match the SHA-256 its manifest gives: the file was "
                "changed or damaged after export, so nothing was read."
            ),
            _export_again(),
        )
    try:
        source = yaml_bytes.decode("utf-8")
        parsed = load_yaml(source)
    except UnicodeDecodeError:
        raise _refuse(_("catalog.yaml is not UTF-8 text."), _export_again()) from None
    except InputRefused as exc:
        raise _refuse(f"{CATALOG_NAME}: {exc}", _export_again()) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            # libyaml marks a fault found at the end of the file on the line after the last.
            line = min(mark.line + 1, source.count("\n") + 1)
            text = _("catalog.yaml is not valid YAML (line %(line)d).") % {"line": line}
        else:
            text = _("catalog.yaml is not valid YAML.")
        raise _refuse(text, _export_again()) from None
    rows = normalise(parsed)
    return Bundle(manifest=manifest, yaml_bytes=yaml_bytes, data=parsed, rows=rows)
