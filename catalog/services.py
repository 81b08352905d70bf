"""Writes to the catalog. Views, the API, admin and commands call these; rules live here once."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from common.concurrency import lock_and_check
from common.exceptions import Forbidden
from common.seeding import load_yaml

from .models import (
    AcceleratorFamily,
    AcceleratorSupport,
    Capability,
    CapabilityClaim,
    CapabilityGroup,
    Scenario,
    ShortlistRule,
    Solution,
    SolutionType,
    Source,
    SupportLevel,
)

SEED_FILE = Path(__file__).resolve().parent / "seed" / "catalog.yaml"
LANGS = {"en": "en", "zh": "zh_hans"}


def claim_validate_sources(*, level: str, sources: Iterable[Any]) -> None:
    """A claim other than 'unknown' must name where it comes from."""
    if level != SupportLevel.UNKNOWN and not list(sources):
        raise ValidationError(
            {
                "sources": _(
                    "Give at least one source for a '%(level)s' claim, or set the level to "
                    "'unknown'."
                )
                % {"level": SupportLevel(level).label}
            }
        )


@transaction.atomic
def claim_update(
    *, user, claim: CapabilityClaim, expected_version: int, sources: list, **fields
) -> CapabilityClaim:
    """Save an admin's edit of one claim (level, version, checked-on, notes, sources), refused
    when someone saved the claim since `expected_version` or when a sourced level has no
    source. `fields` are model fields (note_en, note_zh_hans, level, as_of_version,
    checked_on)."""
    if not user.has_perm("catalog.change_capabilityclaim"):
        raise Forbidden(_("Only catalog administrators edit claims."))
    locked = lock_and_check(CapabilityClaim, pk=claim.pk, expected_version=expected_version)
    claim_validate_sources(level=fields.get("level", locked.level), sources=sources)
    for name, value in fields.items():
        setattr(locked, name, value)
    locked._change_reason = "edited on the solution page"
    locked.full_clean(validate_unique=False)
    locked.save()
    locked.sources.set(sources)
    return locked


def _bilingual(field: str, value: dict | None, *, required: bool = True) -> dict[str, str]:
    """Turn {en: .., zh: ..} into modeltranslation's field_en / field_zh_hans kwargs."""
    value = value or {}
    out = {}
    for short, suffix in LANGS.items():
        text = value.get(short, "")
        if isinstance(text, list):
            text = "\n".join(text)
        text = (text or "").strip()
        if required and not text:
            raise ValidationError(f"Seed text '{field}' has no '{short}' version: {value!r}")
        out[f"{field}_{suffix}"] = text
    return out


def _bilingual_lines(field: str, items: list[dict] | None) -> dict[str, str]:
    """A list of {en, zh} points becomes one line per point in each language."""
    items = items or []
    return {
        f"{field}_{suffix}": "\n".join(i[short].strip() for i in items)
        for short, suffix in LANGS.items()
    }


def _upsert(model, lookup: dict, values: dict):
    """The row `lookup` finds, created or changed to `values`; a row that already holds them is
    not saved again (no history record, no new claim version, no stamp moved)."""
    obj = model.objects.filter(**lookup).first()
    if obj is not None and all(getattr(obj, k) == v for k, v in values.items()):
        return obj
    obj = obj or model(**lookup)
    for name, value in values.items():
        setattr(obj, name, value)
    # modeltranslation keeps the untranslated column in step with the default language.
    obj.full_clean(validate_unique=False)
    obj.save()
    return obj


def _day(value) -> datetime.date | None:
    """A seed's checked-on day: a YAML date, or text in ISO form."""
    if value in (None, ""):
        return None
    if isinstance(value, datetime.date):
        return value
    return datetime.date.fromisoformat(str(value))


def _release(value, sources) -> dict:
    """A seed entry's latest known release ({version, date, source}) as model fields."""
    value = value or {}
    source = value.get("source")
    return {
        "release_version": str(value.get("version") or ""),
        "release_date": _day(value.get("date")),
        "release_source": sources[source] if source else None,
    }


@transaction.atomic
def catalog_load_seed(*, path: Path = SEED_FILE) -> dict[str, int]:
    """Load (or refresh) the seeded catalog from YAML. Idempotent: rows are matched by slug/key.

    Rows that admins added and that the seed does not name are left alone.
    """
    data = load_yaml(Path(path).read_text(encoding="utf-8"))
    sources = {}
    for item in data["sources"]:
        sources[item["key"]] = _upsert(
            Source,
            {"key": item["key"]},
            {
                "title": item["title"],
                "url": item.get("url", ""),
                "as_of": item.get("as_of", ""),
                "checked_on": _day(item.get("checked")),
            },
        )
    types = {}
    for i, item in enumerate(data["solution_types"]):
        types[item["slug"]] = _upsert(
            SolutionType,
            {"slug": item["slug"]},
            {
                "order": item.get("order", i),
                **_bilingual("name", item["name"]),
                **_bilingual("fits", item["fits"]),
                **_bilingual("boundary", item["boundary"]),
            },
        )
    scenarios = {}
    for i, item in enumerate(data["scenarios"]):
        scenarios[item["slug"]] = _upsert(
            Scenario,
            {"slug": item["slug"]},
            {
                "order": item.get("order", i),
                **_bilingual("name", item["name"]),
                **_bilingual("description", item["description"]),
            },
        )
    capabilities = {}
    for gi, group_data in enumerate(data["capability_groups"]):
        group = _upsert(
            CapabilityGroup,
            {"slug": group_data["slug"]},
            {"order": group_data.get("order", gi), **_bilingual("name", group_data["name"])},
        )
        for ci, cap in enumerate(group_data["capabilities"]):
            capabilities[cap["slug"]] = _upsert(
                Capability,
                {"slug": cap["slug"]},
                {
                    "group": group,
                    "order": ci,
                    **_bilingual("name", cap["name"]),
                    **_bilingual("description", cap.get("description"), required=False),
                },
            )
    solutions = {}
    claims = 0
    for item in data["solutions"]:
        solution = _upsert(
            Solution,
            {"slug": item["slug"]},
            {
                "solution_type": types[item["type"]],
                "licence": item.get("licence", ""),
                "latest_version": item.get("latest_version", ""),
                **_release(item.get("release"), sources),
                "website": item.get("website", ""),
                "deployment_modes": list(item.get("deployment_modes", [])),
                "aliases": ", ".join(item.get("aliases", [])),
                **_bilingual("name", item["name"]),
                **_bilingual("maintainer", item["maintainer"]),
                **_bilingual("summary", item["summary"]),
                **_bilingual_lines("focus_points", item.get("focus_points")),
                **_bilingual_lines("limits", item.get("limits")),
            },
        )
        solution.scenarios.set([scenarios[s] for s in item.get("scenarios", [])])
        solutions[item["slug"]] = solution
        for cap_slug, claim_data in item.get("claims", {}).items():
            claim_sources = [sources[k] for k in claim_data.get("sources", [])]
            claim_validate_sources(level=claim_data["level"], sources=claim_sources)
            claim = _upsert(
                CapabilityClaim,
                {"solution": solution, "capability": capabilities[cap_slug]},
                {
                    "level": claim_data["level"],
                    "as_of_version": claim_data.get("as_of", ""),
                    "checked_on": _day(claim_data.get("checked")),
                    **_bilingual("note", claim_data.get("note"), required=False),
                },
            )
            claim.sources.set(claim_sources)
            claims += 1
    # Reference stacks name other entries: set once every entry of the seed exists.
    for item in data["solutions"]:
        stack = item.get("reference_stack") or {}
        solution = solutions[item["slug"]]
        if stack != (solution.reference_stack or {}):
            solution.reference_stack = stack
            solution.full_clean(validate_unique=False)
            solution.save()
    rules_count = 0
    for i, item in enumerate(data.get("shortlist_rules", [])):
        rule = _upsert(
            ShortlistRule,
            {"key": item["key"]},
            {
                "order": item.get("order", i),
                "facts": list(item["facts"]),
                "by_detail": bool(item.get("by_detail", False)),
                **_bilingual("reason", item["reason"]),
            },
        )
        rule.solutions.set([solutions[s] for s in item["solutions"]])
        rules_count += 1
    families = {}
    for i, item in enumerate(data.get("accelerator_families", [])):
        families[item["slug"]] = _upsert(
            AcceleratorFamily,
            {"slug": item["slug"]},
            {
                "order": item.get("order", i),
                "is_domestic": bool(item.get("domestic", False)),
                "aliases": ", ".join(item.get("aliases", [])),
                **_bilingual("name", item["name"]),
                **_bilingual("vendor", item.get("vendor"), required=False),
            },
        )
    support = 0
    for item in data.get("accelerator_support", []):
        row_sources = [sources[k] for k in item.get("sources", [])]
        claim_validate_sources(level=item["level"], sources=row_sources)
        row = _upsert(
            AcceleratorSupport,
            {"solution": solutions[item["solution"]], "family": families[item["family"]]},
            {
                "level": item["level"],
                "as_of_version": item.get("as_of", ""),
                "checked_on": _day(item.get("checked")),
                **_bilingual("note", item.get("note"), required=False),
            },
        )
        row.sources.set(row_sources)
        support += 1
    return {
        "sources": len(sources),
        "solution_types": len(types),
        "scenarios": len(scenarios),
        "capabilities": len(capabilities),
        "solutions": len(solutions),
        "claims": claims,
        "shortlist_rules": rules_count,
        "accelerator_families": len(families),
        "accelerator_support": support,
    }
