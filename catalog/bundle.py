"""The whole catalog as one file, to carry updates between installations that share no network.

A bundle is a zip holding two files:

- `catalog.yaml`: the catalog in the format of `catalog/seed/catalog.yaml` (sources, solution
  types, scenarios, capability groups and capabilities, solutions with aliases and claims,
  shortlist rules, accelerator families and support), so the seed loader reads it as it is;
- `manifest.json`: the format and its version, when and by whom it was exported, the number of
  rows of each kind, and the SHA-256 of `catalog.yaml`.

The SHA-256 detects a file damaged or changed on the way; it is not a signature (whoever edits
`catalog.yaml` can also edit the manifest), so carry bundles the way you carry any file you trust.

Vocabulary of a diff, per row (matched by slug or key, never by id):

- new: in the bundle, not in this installation; changed: in both, with the fields that differ;
- unchanged: in both, equal; kept: only in this installation. An import never deletes.

Not carried (the seed format has no place for them): whether a solution or rule is active, a
claim's verified-in-a-POC flag, the change history. An import leaves them as they are here.
"""

from __future__ import annotations

import datetime
import hashlib
import io
import json
import tempfile
import zipfile
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.db.models.signals import post_save, pre_save
from django.utils import timezone
from django.utils.translation import gettext as _
from modeltranslation.translator import translator

from .bundle_models import CatalogImport
from .models import (
    AcceleratorFamily,
    AcceleratorSupport,
    CapabilityClaim,
    CapabilityGroup,
    Scenario,
    ShortlistRule,
    Solution,
    SolutionType,
    Source,
    SupportLevel,
)
from .services import catalog_load_seed

FORMAT = "shortlist-catalog-bundle"
FORMAT_VERSION = 1
CATALOG_NAME = "catalog.yaml"
MANIFEST_NAME = "manifest.json"
MAX_BYTES = getattr(settings, "CATALOG_BUNDLE_MAX_BYTES", 20 * 1024 * 1024)
HISTORY_REASON = "Imported from a catalog bundle"
MAX_PROBLEMS = 20

# The kinds of rows, in the loader's order, with the label a page shows.
KINDS = (
    "sources",
    "solution_types",
    "scenarios",
    "capability_groups",
    "capabilities",
    "solutions",
    "claims",
    "shortlist_rules",
    "accelerator_families",
    "accelerator_support",
)
STATUSES = ("new", "changed", "unchanged", "kept")
SOURCED = set(SupportLevel.values) - {SupportLevel.UNKNOWN}


class BundleRefused(ValidationError):
    """A bundle this installation will not read or apply; the messages say what to do."""


class BundleStale(BundleRefused):
    """The catalog changed between the preview of a bundle and its application."""


# --- export --------------------------------------------------------------------------------


def _pair(obj, name: str) -> dict[str, str]:
    return {"en": getattr(obj, f"{name}_en") or "", "zh": getattr(obj, f"{name}_zh_hans") or ""}


def _optional_pair(obj, name: str) -> dict[str, dict[str, str]]:
    pair = _pair(obj, name)
    return {name: pair} if pair["en"] or pair["zh"] else {}


def _lines(obj, name: str) -> list[dict[str, str]]:
    """Both languages' lines as the seed's list of {en, zh} points. Texts whose lines do not
    pair up (a line added in one language only) travel as one point, which the loader turns
    back into the same two texts."""
    en, zh = getattr(obj, f"{name}_en") or "", getattr(obj, f"{name}_zh_hans") or ""
    if not en and not zh:
        return []
    en_lines, zh_lines = en.split("\n"), zh.split("\n")
    if len(en_lines) == len(zh_lines) and all(x == x.strip() for x in en_lines + zh_lines):
        return [{"en": a, "zh": b} for a, b in zip(en_lines, zh_lines, strict=True)]
    return [{"en": en, "zh": zh}]


def _day(value: datetime.date | None) -> dict[str, str]:
    return {"checked": value.isoformat()} if value else {}


def _nonempty(**values) -> dict:
    return {k: v for k, v in values.items() if v not in ("", None, [])}


def catalog_data() -> dict[str, list]:
    """The whole catalog of this installation, as the seed file's structure."""
    sources = [
        {
            "key": s.key,
            "title": s.title,
            **_nonempty(url=s.url, as_of=s.as_of),
            **_day(s.checked_on),
        }
        for s in Source.objects.order_by("key")
    ]
    types = [
        {
            "slug": t.slug,
            "order": t.order,
            "name": _pair(t, "name"),
            "fits": _pair(t, "fits"),
            "boundary": _pair(t, "boundary"),
        }
        for t in SolutionType.objects.all()
    ]
    scenarios = [
        {
            "slug": s.slug,
            "order": s.order,
            "name": _pair(s, "name"),
            "description": _pair(s, "description"),
        }
        for s in Scenario.objects.all()
    ]
    groups = [
        {
            "slug": g.slug,
            "order": g.order,
            "name": _pair(g, "name"),
            "capabilities": [
                {"slug": c.slug, "name": _pair(c, "name"), **_optional_pair(c, "description")}
                for c in sorted(g.capabilities.all(), key=lambda c: (c.order, c.pk))
            ],
        }
        for g in CapabilityGroup.objects.prefetch_related("capabilities")
    ]
    solutions = [
        _solution(s)
        for s in Solution.objects.select_related("solution_type").prefetch_related(
            "scenarios", "claims__capability__group", "claims__sources"
        )
    ]
    rules = [
        {
            "key": r.key,
            "order": r.order,
            "facts": list(r.facts),
            **({"by_detail": True} if r.by_detail else {}),
            "solutions": sorted(s.slug for s in r.solutions.all()),
            "reason": _pair(r, "reason"),
        }
        for r in ShortlistRule.objects.prefetch_related("solutions")
    ]
    families = [
        {
            "slug": f.slug,
            "order": f.order,
            **({"domestic": True} if f.is_domestic else {}),
            "name": _pair(f, "name"),
            **_optional_pair(f, "vendor"),
            **_nonempty(aliases=_alias_items(f)),
        }
        for f in AcceleratorFamily.objects.all()
    ]
    support = [
        {
            "solution": a.solution.slug,
            "family": a.family.slug,
            "level": a.level,
            **_nonempty(as_of=a.as_of_version),
            **_nonempty(sources=sorted(s.key for s in a.sources.all())),
            **_optional_pair(a, "note"),
            **_day(a.checked_on),
        }
        for a in AcceleratorSupport.objects.select_related("solution", "family")
        .prefetch_related("sources")
        .order_by("solution__slug", "family__order", "family__slug")
    ]
    return {
        "sources": sources,
        "solution_types": types,
        "scenarios": scenarios,
        "capability_groups": groups,
        "solutions": solutions,
        "shortlist_rules": rules,
        "accelerator_families": families,
        "accelerator_support": support,
    }


def _alias_items(obj) -> list[str]:
    """A solution's or family's aliases as a list, unless listing them would change the stored
    text (the loader joins them with ', ')."""
    text = getattr(obj, "aliases", "") or ""
    aliases = [a.strip() for a in text.split(",") if a.strip()]
    return aliases if ", ".join(aliases) == text else [text]


def _solution(s: Solution) -> dict:
    claims = sorted(s.claims.all(), key=lambda c: (c.capability.group.order, c.capability.order))
    return {
        "slug": s.slug,
        "name": _pair(s, "name"),
        "type": s.solution_type.slug,
        "maintainer": _pair(s, "maintainer"),
        **_nonempty(
            licence=s.licence,
            latest_version=s.latest_version,
            website=s.website,
            deployment_modes=list(s.deployment_modes),
            aliases=_alias_items(s),
            scenarios=sorted(x.slug for x in s.scenarios.all()),
        ),
        "summary": _pair(s, "summary"),
        **_nonempty(focus_points=_lines(s, "focus_points"), limits=_lines(s, "limits")),
        **({"reference_stack": stack} if (stack := getattr(s, "reference_stack", None)) else {}),
        "claims": {
            c.capability.slug: {
                "level": c.level,
                **_nonempty(as_of=c.as_of_version),
                **_nonempty(sources=sorted(x.key for x in c.sources.all())),
                **_optional_pair(c, "note"),
                **_day(c.checked_on),
            }
            for c in claims
        },
    }


def _counts(data: dict[str, list]) -> dict[str, int]:
    """How many rows of each kind a catalog in the seed's structure holds."""
    groups, solutions = data["capability_groups"], data["solutions"]
    return {
        "sources": len(data["sources"]),
        "solution_types": len(data["solution_types"]),
        "scenarios": len(data["scenarios"]),
        "capability_groups": len(groups),
        "capabilities": sum(len(g["capabilities"]) for g in groups),
        "solutions": len(solutions),
        "claims": sum(len(s["claims"]) for s in solutions),
        "shortlist_rules": len(data["shortlist_rules"]),
        "accelerator_families": len(data["accelerator_families"]),
        "accelerator_support": len(data["accelerator_support"]),
    }


def bundle_export(*, user=None) -> bytes:
    """This installation's whole catalog as a bundle (the bytes of a zip file).

    Loading its catalog.yaml with `catalog_load_seed` into the same database changes nothing.
    """
    data = catalog_data()
    text = "# Shortlist catalog bundle: the seed format of catalog/seed/catalog.yaml.\n"
    text += yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100)
    payload = text.encode("utf-8")
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created_at": timezone.now().isoformat(timespec="seconds"),
        "created_by": user.get_username() if user is not None else "",
        "counts": _counts(data),
        "sha256": {CATALOG_NAME: hashlib.sha256(payload).hexdigest()},
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(MANIFEST_NAME, json.dumps(manifest, indent=2, ensure_ascii=False))
        archive.writestr(CATALOG_NAME, payload)
    return out.getvalue()


# --- the rows a catalog holds, as the loader would store them --------------------------------


class _Problems(list):
    """The problems found in a catalog.yaml, each with where it is."""

    def add(self, where: str, message: str) -> None:
        self.append(f"{where}: {message}")


def _text(value, where: str, problems: _Problems) -> str:
    if value is None:
        return ""
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return "\n".join(value).strip()
    if isinstance(value, str | int | float):
        return str(value).strip()
    problems.add(where, _("expected text"))
    return ""


def _texts(item: dict, name: str, where: str, problems: _Problems, *, required=True) -> dict:
    """`{en, zh}` as the loader's `<name>_en` / `<name>_zh_hans` values."""
    value = item.get(name)
    if value is None:
        value = {}
    if not isinstance(value, dict):
        problems.add(f"{where}.{name}", _("expected en and zh texts"))
        value = {}
    out = {}
    for short, suffix in (("en", "en"), ("zh", "zh_hans")):
        text = _text(value.get(short), f"{where}.{name}.{short}", problems)
        if required and not text:
            problems.add(f"{where}.{name}", _("the '%(lang)s' text is missing") % {"lang": short})
        out[f"{name}_{suffix}"] = text
    return out


def _point_lines(item: dict, name: str, where: str, problems: _Problems) -> dict:
    points = item.get(name) or []
    if not isinstance(points, list) or not all(
        isinstance(p, dict) and isinstance(p.get("en"), str) and isinstance(p.get("zh"), str)
        for p in points
    ):
        problems.add(f"{where}.{name}", _("expected a list of points with en and zh texts"))
        points = []
    return {
        f"{name}_{suffix}": "\n".join(p[short].strip() for p in points)
        for short, suffix in (("en", "en"), ("zh", "zh_hans"))
    }


def _checked(item: dict, where: str, problems: _Problems) -> str | None:
    value = item.get("checked")
    if value in (None, ""):
        return None
    if isinstance(value, datetime.date):
        return value.isoformat()
    try:
        return datetime.date.fromisoformat(str(value)).isoformat()
    except ValueError:
        problems.add(f"{where}.checked", _("write the day as YYYY-MM-DD, not %(v)r") % {"v": value})
        return None


def _list(data: dict, name: str, where: str, problems: _Problems, *, required=True) -> list:
    value = data.get(name)
    if value is None and not required:
        return []
    if not isinstance(value, list) or not all(isinstance(i, dict) for i in value):
        problems.add(f"{where}{name}", _("expected a list of entries"))
        return []
    return value


def _key(item: dict, name: str, where: str, problems: _Problems) -> str | None:
    value = item.get(name)
    if not isinstance(value, str) or not value:
        problems.add(where, _("'%(name)s' is missing") % {"name": name})
        return None
    return value


def _keys(item: dict, name: str, known, where: str, problems: _Problems) -> list[str]:
    """A list of references (slugs or keys), each of which must be in `known`."""
    value = item.get(name) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.add(f"{where}.{name}", _("expected a list of keys"))
        return []
    for v in value:
        if v not in known:
            problems.add(f"{where}.{name}", _("'%(key)s' is not in the bundle") % {"key": v})
    return sorted(value)


def _level(item: dict, sources: list, where: str, problems: _Problems) -> str:
    level = item.get("level")
    if level not in SupportLevel.values:
        problems.add(
            f"{where}.level",
            _("%(v)r is not a level; use one of: %(levels)s")
            % {"v": level, "levels": ", ".join(SupportLevel.values)},
        )
        return ""
    if level in SOURCED and not sources:
        problems.add(
            where,
            _("a '%(level)s' claim needs a source; name one, or set the level to unknown")
            % {"level": level},
        )
    return level


def _aliases(item: dict, where: str, problems: _Problems) -> str:
    aliases = item.get("aliases") or []
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        problems.add(f"{where}.aliases", _("expected a list of names"))
        return ""
    return ", ".join(aliases)


def _stack(item: dict, solutions: set, where: str, problems: _Problems) -> dict:
    """A reference stack, {main: layer, layers: {layer: solution slug}}, naming entries of the
    bundle (the model checks the rest when the loader saves it)."""
    stack = item.get("reference_stack") or {}
    layers = stack.get("layers") if isinstance(stack, dict) else None
    if not isinstance(stack, dict) or (stack and not isinstance(layers, dict)):
        problems.add(f"{where}.reference_stack", _("expected main and layers"))
        return {}
    for slug in (layers or {}).values():
        if slug not in solutions:
            problems.add(
                f"{where}.reference_stack", _("'%(key)s' is not in the bundle") % {"key": slug}
            )
    return stack


def _add(rows: dict, kind: str, key: str | None, value: dict, where, problems) -> None:
    if key is None:
        return
    if key in rows[kind]:
        problems.add(where, _("'%(key)s' is listed twice") % {"key": key})
    rows[kind][key] = value


def _normalise(data: Any, problems: _Problems) -> dict[str, dict[str, dict]]:  # noqa: C901
    rows: dict[str, dict[str, dict]] = {kind: {} for kind in KINDS}
    if not isinstance(data, dict):
        problems.add(CATALOG_NAME, _("expected the sections of a catalog (sources, solutions…)"))
        return rows
    for i, item in enumerate(_list(data, "sources", "", problems)):
        where = f"sources[{i}]"
        value = {
            "title": _text(item.get("title"), where, problems),
            "url": _text(item.get("url"), where, problems),
            "as_of": _text(item.get("as_of"), where, problems),
            "checked": _checked(item, where, problems),
        }
        if not value["title"]:
            problems.add(where, _("'%(name)s' is missing") % {"name": "title"})
        _add(rows, "sources", _key(item, "key", where, problems), value, where, problems)
    for kind, fields in (
        ("solution_types", ("name", "fits", "boundary")),
        ("scenarios", ("name", "description")),
    ):
        for i, item in enumerate(_list(data, kind, "", problems)):
            where = f"{kind}[{i}]"
            value = {"order": item.get("order", i)}
            for name in fields:
                value.update(_texts(item, name, where, problems))
            _add(rows, kind, _key(item, "slug", where, problems), value, where, problems)
    for gi, group in enumerate(_list(data, "capability_groups", "", problems)):
        where = f"capability_groups[{gi}]"
        group_slug = _key(group, "slug", where, problems)
        value = {"order": group.get("order", gi), **_texts(group, "name", where, problems)}
        _add(rows, "capability_groups", group_slug, value, where, problems)
        for ci, cap in enumerate(_list(group, "capabilities", f"{where}.", problems)):
            cwhere = f"{where}.capabilities[{ci}]"
            value = {
                "group": group_slug,
                "order": ci,
                **_texts(cap, "name", cwhere, problems),
                **_texts(cap, "description", cwhere, problems, required=False),
            }
            _add(rows, "capabilities", _key(cap, "slug", cwhere, problems), value, cwhere, problems)
    solution_items = _list(data, "solutions", "", problems)
    solution_slugs = {i.get("slug") for i in solution_items}
    for i, item in enumerate(solution_items):
        where = f"solutions[{i}]"
        slug = _key(item, "slug", where, problems)
        if item.get("type") not in rows["solution_types"]:
            problems.add(
                f"{where}.type", _("'%(key)s' is not in the bundle") % {"key": item.get("type")}
            )
        aliases = _aliases(item, where, problems)
        modes = item.get("deployment_modes") or []
        value = {
            "type": item.get("type"),
            "licence": _text(item.get("licence"), where, problems),
            "latest_version": _text(item.get("latest_version"), where, problems),
            "website": _text(item.get("website"), where, problems),
            "deployment_modes": list(modes) if isinstance(modes, list) else modes,
            "aliases": aliases,
            "reference_stack": _stack(item, solution_slugs, where, problems),
            "scenarios": _keys(item, "scenarios", rows["scenarios"], where, problems),
            **_texts(item, "name", where, problems),
            **_texts(item, "maintainer", where, problems),
            **_texts(item, "summary", where, problems),
            **_point_lines(item, "focus_points", where, problems),
            **_point_lines(item, "limits", where, problems),
        }
        _add(rows, "solutions", slug, value, where, problems)
        claims = item.get("claims") or {}
        if not isinstance(claims, dict):
            problems.add(f"{where}.claims", _("expected claims by capability"))
            claims = {}
        for cap_slug, claim in claims.items():
            cwhere = f"{slug}.claims.{cap_slug}"
            if cap_slug not in rows["capabilities"]:
                problems.add(cwhere, _("the capability is not in the bundle"))
            if not isinstance(claim, dict):
                problems.add(cwhere, _("expected a claim"))
                continue
            sources = _keys(claim, "sources", rows["sources"], cwhere, problems)
            value = {
                "level": _level(claim, sources, cwhere, problems),
                "as_of": _text(claim.get("as_of"), cwhere, problems),
                **_texts(claim, "note", cwhere, problems, required=False),
                "sources": sources,
                "checked": _checked(claim, cwhere, problems),
            }
            _add(rows, "claims", f"{slug}/{cap_slug}", value, cwhere, problems)
    for i, item in enumerate(_list(data, "shortlist_rules", "", problems, required=False)):
        where = f"shortlist_rules[{i}]"
        facts = item.get("facts")
        if not isinstance(facts, list) or not facts:
            problems.add(f"{where}.facts", _("name at least one context fact key"))
            facts = []
        value = {
            "order": item.get("order", i),
            "facts": facts,
            "by_detail": bool(item.get("by_detail", False)),
            **_texts(item, "reason", where, problems),
            "solutions": _keys(item, "solutions", solution_slugs, where, problems),
        }
        _add(rows, "shortlist_rules", _key(item, "key", where, problems), value, where, problems)
    for i, item in enumerate(_list(data, "accelerator_families", "", problems, required=False)):
        where = f"accelerator_families[{i}]"
        value = {
            "order": item.get("order", i),
            "domestic": bool(item.get("domestic", False)),
            **_texts(item, "name", where, problems),
            **_texts(item, "vendor", where, problems, required=False),
            "aliases": _aliases(item, where, problems),
        }
        slug = _key(item, "slug", where, problems)
        _add(rows, "accelerator_families", slug, value, where, problems)
    for i, item in enumerate(_list(data, "accelerator_support", "", problems, required=False)):
        where = f"accelerator_support[{i}]"
        solution, family = item.get("solution"), item.get("family")
        if solution not in solution_slugs:
            problems.add(
                f"{where}.solution", _("'%(key)s' is not in the bundle") % {"key": solution}
            )
        if family not in rows["accelerator_families"]:
            problems.add(f"{where}.family", _("'%(key)s' is not in the bundle") % {"key": family})
        sources = _keys(item, "sources", rows["sources"], where, problems)
        value = {
            "level": _level(item, sources, where, problems),
            "as_of": _text(item.get("as_of"), where, problems),
            **_texts(item, "note", where, problems, required=False),
            "sources": sources,
            "checked": _checked(item, where, problems),
        }
        _add(rows, "accelerator_support", f"{solution}/{family}", value, where, problems)
    return rows


def normalise(data: Any, *, strict: bool = True) -> dict[str, dict[str, dict]]:
    """Every row of a catalog in the seed's structure, by kind and key, with the values the
    seed loader would store (texts trimmed, lines joined, days as ISO text). Refuses
    (BundleRefused, with where each problem is) a structure the loader could not read."""
    problems = _Problems()
    rows = _normalise(data, problems)
    if problems and strict:
        shown = problems[:MAX_PROBLEMS]
        if len(problems) > MAX_PROBLEMS:
            shown.append(_("… and %(n)d more.") % {"n": len(problems) - MAX_PROBLEMS})
        intro = _(
            "catalog.yaml cannot be imported; nothing was changed. Correct these entries at "
            "the installation that exported it, then export it again:"
        )
        raise BundleRefused([intro, *shown])
    return rows


# --- reading a bundle ----------------------------------------------------------------------


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
    missing or extra files, a manifest of another format or version, a catalog.yaml whose
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
        manifest_bytes = archive.read(MANIFEST_NAME)
        yaml_bytes = archive.read(CATALOG_NAME)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError):
        raise _refuse(_("The zip file is damaged."), _export_again()) from None
    try:
        manifest = json.loads(manifest_bytes.decode("utf-8"))
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
        parsed = yaml.safe_load(yaml_bytes.decode("utf-8"))
    except UnicodeDecodeError:
        raise _refuse(_("catalog.yaml is not UTF-8 text."), _export_again()) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            text = _("catalog.yaml is not valid YAML (line %(line)d).") % {"line": mark.line + 1}
        else:
            text = _("catalog.yaml is not valid YAML.")
        raise _refuse(text, _export_again()) from None
    rows = normalise(parsed)
    return Bundle(manifest=manifest, yaml_bytes=yaml_bytes, data=parsed, rows=rows)


# --- what a bundle would change --------------------------------------------------------------


@dataclass
class FieldChange:
    field: str
    old: Any
    new: Any


@dataclass
class RowDiff:
    kind: str
    key: str
    status: str  # one of STATUSES
    changes: list[FieldChange] = field(default_factory=list)
    old: dict | None = None  # this installation's values (None when new)
    new: dict | None = None  # the bundle's values (None when kept)

    def change(self, name: str) -> FieldChange | None:
        return next((c for c in self.changes if c.field == name), None)


@dataclass
class Diff:
    """What applying a bundle would do, row by row (KINDS × STATUSES), and `state`: a digest
    of this installation's catalog when the diff was made, so an apply can refuse when the
    catalog changed since its preview."""

    rows: dict[str, list[RowDiff]]
    state: str

    def counts(self) -> dict[str, dict[str, int]]:
        out = {kind: dict.fromkeys(STATUSES, 0) for kind in KINDS}
        for kind, rows in self.rows.items():
            for row in rows:
                out[kind][row.status] += 1
        return out

    def of(self, kind: str, status: str) -> list[RowDiff]:
        return [r for r in self.rows[kind] if r.status == status]

    @property
    def changes_anything(self) -> bool:
        return any(r.status in ("new", "changed") for rows in self.rows.values() for r in rows)


def _state(rows: dict) -> str:
    text = json.dumps(rows, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def current_rows() -> dict[str, dict[str, dict]]:
    """This installation's rows, normalised as a bundle's are (what the loader would refuse
    in a bundle, an admin may have saved here: it is compared, not refused)."""
    return normalise(catalog_data(), strict=False)


def bundle_diff(bundle: Bundle) -> Diff:
    """Compare a bundle with this installation's catalog, row by row (matched by slug or key)."""
    ours = current_rows()
    out: dict[str, list[RowDiff]] = {}
    for kind in KINDS:
        theirs, here = bundle.rows[kind], ours[kind]
        rows = []
        for key, new in theirs.items():
            old = here.get(key)
            if old is None:
                rows.append(RowDiff(kind, key, "new", new=new))
                continue
            changes = [FieldChange(f, old.get(f), v) for f, v in new.items() if old.get(f) != v]
            status = "changed" if changes else "unchanged"
            rows.append(RowDiff(kind, key, status, changes, old=old, new=new))
        rows += [RowDiff(kind, k, "kept", old=v) for k, v in here.items() if k not in theirs]
        out[kind] = rows
    return Diff(rows=out, state=_state(ours))


# --- applying a bundle ---------------------------------------------------------------------

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
