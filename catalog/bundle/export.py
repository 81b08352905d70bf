"""Export: this installation's catalog as a bundle."""

from __future__ import annotations

import datetime
import hashlib
import io
import json
import zipfile

import yaml
from django.utils import timezone

from ..models import (
    AcceleratorFamily,
    AcceleratorSupport,
    CapabilityGroup,
    Scenario,
    ShortlistRule,
    Solution,
    SolutionType,
    Source,
)
from .common import CATALOG_NAME, FORMAT, FORMAT_VERSION, MANIFEST_NAME


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
        for s in Solution.objects.select_related(
            "solution_type", "release_source"
        ).prefetch_related("scenarios", "claims__capability__group", "claims__sources")
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
        **({"release": _release(s)} if s.release_version else {}),
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


def _release(s: Solution) -> dict:
    return {
        "version": s.release_version,
        **({"date": s.release_date.isoformat()} if s.release_date else {}),
        **({"source": s.release_source.key} if s.release_source_id else {}),
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
