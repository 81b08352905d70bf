"""A report's catalog comparison of the shortlisted candidates: each candidate's catalog facts
and claims (a stack's claims its layers', each naming the layer), its hard constraints
(evaluations.constraints) with their waivers, the capability matrix, the sources the claims
cite, and each candidate's caveats: unknown claims and those the staleness rule
(catalog.freshness) flags as of the report's day.

One comparison fills three parts of the snapshot ("candidates", "capabilities",
"appendix.sources") and the summary's caveats: `catalog_facts` builds it once per report.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.utils.translation import gettext as _

from catalog.freshness import claim_staleness
from catalog.models import SupportLevel
from catalog.selectors import solution_comparison
from common.placeholders import is_placeholder_url
from common.report_values import iso_date, iso_datetime, person

from ..constraints import constraint_checks
from ..selectors import EvaluationData
from ..stack_controls import stack_overlaps
from ..stacks import stack_profiles


@dataclass(frozen=True)
class CatalogFacts:
    candidates: list[dict]  # per shortlisted candidate, in shortlist order
    capabilities: dict  # the capability matrix
    sources: list[dict]  # the sources the claims cite, by key
    caveats: list[dict]  # per shortlisted candidate: {"unknown": [...], "stale": [...]}


def catalog_facts(context) -> CatalogFacts:
    """The catalog comparison of a report (evaluations.extensions.ReportPart's context), built
    once and shared by the parts and the summary that read it."""
    return context.shared("evaluations.catalog", lambda: _catalog(context.data, context.report_day))


def candidates_part(context) -> list[dict]:
    return catalog_facts(context).candidates


def capabilities_part(context) -> dict:
    return catalog_facts(context).capabilities


def sources_part(context) -> list[dict]:
    return catalog_facts(context).sources


def _catalog(data: EvaluationData, on: date | None) -> CatalogFacts:
    """Per-candidate catalog facts and claims, the capability matrix, the sources cited, and
    per candidate its caveats: unknown and stale claims (catalog.freshness, as of `on`)."""
    shortlisted = data.shortlisted
    comparison = solution_comparison(solutions=[c.solution for c in shortlisted])
    # A stack's claims are its layers' combined (evaluations.stacks), each with its layer.
    stacks = stack_profiles([c for c in shortlisted if c.is_stack])
    profiles = {
        i: {row.capability.pk: row for row in stacks[c.pk]}
        for i, c in enumerate(shortlisted)
        if c.is_stack
    }
    counts = [{v.replace("-", "_"): 0 for v in SupportLevel.values} for _c in shortlisted]
    labels = dict(SupportLevel.choices)
    sources: dict[str, dict] = {}

    def claim_cell(claim) -> dict:
        level = claim.level if claim else SupportLevel.UNKNOWN
        keys = sorted(s.key for s in claim.sources.all()) if claim else []
        if claim:
            for s in claim.sources.all():
                sources[s.key] = {
                    "key": s.key,
                    "title": s.title,
                    "as_of": s.as_of,
                    "checked": iso_date(s.checked_on),
                    "placeholder": is_placeholder_url(s.url),
                }
        return {
            "level": level,
            "label": str(labels[level]),
            "note": claim.note if claim else "",
            "as_of": claim.as_of_version if claim else "",
            "checked": iso_date(claim.checked_on) if claim else None,
            "sources": keys,
            "verified_in_poc": bool(claim and getattr(claim, "verified_in_poc", False)),
        }

    groups = []
    per_candidate: list[dict[str, list]] = [{} for _c in shortlisted]
    for group in comparison.groups:
        rows = []
        for row in group.rows:
            cells = []
            for i, claim in enumerate(row.claims):
                layered = profiles.get(i, {}).get(row.capability.pk)
                if layered is None:
                    latest = shortlisted[i].solution.known_version()
                    cells.append({**claim_cell(claim), "latest": latest})
                else:
                    via = layered.layer.solution.name if layered.layer else ""
                    latest = layered.layer.solution.known_version() if layered.layer else ""
                    cells.append(
                        {
                            **claim_cell(layered.claim),
                            "layer": _layer(layered.layer),
                            "via": via,
                            "latest": latest,
                        }
                    )
            differs = len({cell["level"] for cell in cells}) > 1
            rows.append({"capability": row.capability.name, "cells": cells, "differs": differs})
            for i, cell in enumerate(cells):
                counts[i][cell["level"].replace("-", "_")] += 1
                per_candidate[i].setdefault(group.group.name, []).append(
                    {"capability": row.capability.name, **cell}
                )
        groups.append({"name": group.group.name, "rows": rows})

    checks = constraint_checks(data)

    def constraint_row(check) -> dict:
        waiver = check.waiver
        return {
            "name": check.constraint.name,
            "verdict": check.verdict,
            "verdict_label": check.verdict_label,
            "capabilities": [
                {
                    "capability": cap.capability.name,
                    "verdict": cap.verdict,
                    "layer": _layer(cap.layer),
                    **claim_cell(cap.claim),
                }
                for cap in check.capabilities
            ],
            "waiver": waiver
            and {
                "reason": waiver.reason,
                "by": person(waiver.waived_by),
                "at": iso_datetime(waiver.waived_at),
            },
        }

    candidates = []
    for i, c in enumerate(shortlisted):
        s = c.solution
        claims = [
            {"group": group["name"], "claims": per_candidate[i].get(group["name"], [])}
            for group in groups
        ]
        candidates.append(
            {
                "slug": s.slug if not c.is_stack else f"stack-{c.pk}",
                "name": c.name,
                "type": s.solution_type.name,
                "layers": [
                    {
                        "role": str(layer.get_role_display()),
                        "name": layer.solution.name,
                        "type": layer.solution.solution_type.name,
                        "maintainer": layer.solution.maintainer,
                        "licence": layer.solution.licence,
                        "latest_version": layer.solution.latest_version,
                        "main": layer.is_main,
                    }
                    for layer in c.stack_layers
                ],
                # The controls two or more layers claim natively (evaluations.stack_controls).
                "duplicated_controls": [
                    {
                        "control": o.label,
                        "layers": [layer.solution.name for layer in o.layers],
                    }
                    for o in stack_overlaps(c)
                ],
                "maintainer": s.maintainer,
                "licence": s.licence,
                "latest_version": s.latest_version,
                "deployment_modes": s.deployment_mode_labels(),
                "summary": s.summary,
                "focus_points": s.focus_point_list(),
                "limits": s.limit_list(),
                "level_counts": {
                    key.replace("-", "_"): counts[i][key.replace("-", "_")]
                    for key in SupportLevel.values
                },
                "claims": claims,
                "constraints": [constraint_row(check) for check in checks[c.pk]],
                # The claims that say more than their level, for the notes table.
                "claim_notes": [
                    {"group": g["group"], **claim}
                    for g in claims
                    for claim in g["claims"]
                    if claim["note"] or claim["as_of"] or claim["sources"]
                ],
            }
        )
    matrix = {
        "candidates": [c.name for c in shortlisted],
        "levels": [{"key": key, "label": str(label)} for key, label in SupportLevel.choices],
        "groups": groups,
    }
    caveats = [_caveats(per_candidate[i], sources, on) for i in range(len(shortlisted))]
    return CatalogFacts(candidates, matrix, [sources[k] for k in sorted(sources)], caveats)


def _caveats(claims_by_group: dict[str, list], sources: dict, on: date | None) -> dict:
    """One candidate's claims a reader should not lean on: unknown ones, and those the
    staleness rule (catalog.freshness.claim_staleness) flags, in capability-matrix order."""
    unknown, stale = [], []
    for claims in claims_by_group.values():
        for claim in claims:
            if claim["level"] == SupportLevel.UNKNOWN:
                unknown.append(claim["capability"])
                continue
            finding = claim_staleness(
                level=claim["level"],
                as_of_version=claim["as_of"],
                source_as_of=[sources[k]["as_of"] for k in claim["sources"] if k in sources],
                has_sources=bool(claim["sources"]),
                on=on,
                latest_version=claim.get("latest", ""),
                checked=[
                    claim.get("checked"),
                    *(sources[k].get("checked") for k in claim["sources"] if k in sources),
                ],
            )
            if finding is not None:
                checked = iso_date(finding.checked)
                label = ""
                if finding.reason == "unsourced":
                    label = _("no source or version")
                elif finding.behind:
                    label = _("describes %(version)s; %(latest)s is out") % {
                        "version": claim["as_of"],
                        "latest": finding.behind,
                    }
                stale.append(
                    {
                        "capability": claim["capability"],
                        "layer": claim.get("layer", ""),
                        "reason": "behind" if finding.behind else finding.reason,
                        "checked": checked,
                        "reason_label": label,
                    }
                )
    return {"unknown": unknown, "stale": stale}


def _layer(layer) -> str:
    """ "Batch queue: Volcano" for the stack layer that provides a claim; "" otherwise."""
    if layer is None:
        return ""
    return f"{layer.get_role_display()}: {layer.solution.name}"
