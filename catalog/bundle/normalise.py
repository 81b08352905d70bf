"""The rows a catalog holds, as the seed loader would store them: what a bundle's
catalog.yaml and this installation are compared by, with every problem and where it is."""

from __future__ import annotations

import datetime
from typing import Any

from django.utils.translation import gettext as _

from ..freshness import minor_release
from ..models import (
    SupportLevel,
)
from .common import CATALOG_NAME, KINDS, MAX_PROBLEMS, SOURCED, BundleRefused


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
            "release": _release(item, rows["sources"], where, problems),
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


def _release(item: dict, sources: dict, where: str, problems: _Problems) -> dict | None:
    """A solution's latest known release: {version, date, source}, version and date together."""
    value = item.get("release")
    if value in (None, {}):
        return None
    where = f"{where}.release"
    if not isinstance(value, dict):
        problems.add(where, _("expected version, date and source"))
        return None
    version = str(value.get("version") or "").strip()
    if not minor_release(version):
        problems.add(f"{where}.version", _("write a plain version number, e.g. v1.15.1"))
    day = _checked({"checked": value.get("date")}, where, problems)
    if day is None:
        problems.add(f"{where}.date", _("give the day the release came out"))
    source = value.get("source")
    if source and source not in sources:
        problems.add(f"{where}.source", _("'%(key)s' is not in the bundle") % {"key": source})
    return {"version": version, "date": day, "source": source or None}


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
