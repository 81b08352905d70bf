"""The frozen data behind one report: everything the report shows, as plain JSON values.

A report is rendered from this snapshot only (never from live rows), and the snapshot's SHA-256
is printed on it, so the same evaluation data gives the same bytes and the same hash. To keep it
that way the snapshot holds only str, int, float, bool, None, lists and dicts: Decimals become
strings, dates ISO strings, and every list has a fixed order. Nothing here reads the clock; the
caller passes `generated_at`, whose day is also the reference for stale catalog claims
(catalog.freshness): a claim that ages past the limit changes the summary's caveats, and so the
seal, even when nothing else changed.

Every figure comes from the owning app's selectors (evaluations, responsibility, poc) and the
catalog's comparison; this module only shapes their results. The query count is fixed: it does
not grow with the number of candidates, cases or scores.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from types import SimpleNamespace

from django.db.models import Q
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import override, pgettext

from catalog.freshness import STALE_AFTER_MONTHS, claim_staleness
from catalog.models import SupportLevel
from catalog.selectors import solution_comparison
from common.charts import cumulative_cost_chart, radar_chart
from common.numbers import amount_units
from common.people import person_name
from common.placeholders import is_placeholder_url
from common.text import shorten
from evaluations.constraints import constraint_checks
from evaluations.extensions import report_parts
from evaluations.history import history_counts, history_entries, history_timeline
from evaluations.models import (
    AnswerScale,
    Assessment,
    BudgetFocus,
    ContextFact,
    Evaluation,
    MemberRole,
    Status,
)
from evaluations.reminders import reminders_for
from evaluations.selectors import EvaluationData, evaluation_data
from evaluations.stacks import stack_profiles
from poc.conflicts import vendors_of
from poc.gate import decided_despite
from poc.models import ConflictDeclaration, Direction, Evidence
from poc.rubric import bands_text
from poc.selectors import Results, results
from poc.thin import thin_items, thin_note
from responsibility import checks
from responsibility.selectors import evaluation_costs, evaluation_matrices, parties_for

from .sections import ALL as ALL_SECTIONS
from .verification import verification_snapshot

# 2: the chosen sections are part of the snapshot; 3: candidates without cost inputs are listed
# under costs.missing instead of being costed at zero; 4: hard constraints per candidate and the
# scenario -> type -> tools chain; 5: POC scenario fit and robustness by solution type
# (poc.scenario_fit.types, poc.robustness.types), never ranked across types; 6: stacks (a
# candidate's layers; claims name the layer that provides them); 7: answers follow their
# question's scale (scale, parties and party_names, budget and budget_label, answer_label in
# place of who and who_label); 8: POC metrics carry their rubric bands (metric.bands),
# robustness says `thin` instead of naming a leader on thin data, and the decided status
# change records why open POC cells were accepted (decided_despite); 9: declared conflicts of
# interest and the owner's decisions on them (appendix.conflicts); 10: POC test beds and the
# capabilities the POC verified or contradicted (poc.verification); 11: the summary leads with
# the decision (or the draft statement) and a one-page headline (summary.focus: the chosen,
# proposed or shortlisted candidates against the hard constraints, cost and POC; summary.poc,
# summary.risks), lists caveats (summary.caveats: unknown and stale catalog claims, placeholder
# evidence links), the chain carries its tools' reasons and says `proposed` until the status is
# final, answers mark placeholder evidence (evidence_placeholder), and the history appendix
# summarises (counts by kind and the decisive changes) instead of listing the newest 50; 12: the
# approvals' sign-off (signoff, outside the seal, with the approvals' own history; the sealed
# history leaves approvals out).
SCHEMA_VERSION = 12
DECISIVE_LIMIT = 40
DETAIL_CHARS = 140
FINAL_STATUSES = (Status.DECIDED, Status.ARCHIVED)
# The history kinds whose records are decisive, each with a filter on its history rows: the
# decision record, constraint waivers, conflicts of interest (the owner's allowances among them,
# picked by their change to `allowed`). Status changes come from the status log, with their
# reasons. Approvals follow the seal: they are decisive too, but live in the unsealed sign-off.
DECISIVE_KINDS = {
    "decision": None,
    "constraintwaiver": None,
    "conflictdeclaration": Q(has_conflict=True),
}
SCORE_QUANTUM = Decimal("0.01")
PERCENT_QUANTUM = Decimal("0.1")


# --- plain values ----------------------------------------------------------------------------


def _dec(value) -> str | None:
    """A Decimal as a fixed-point string ("1200.50"), never in exponent notation."""
    if value is None:
        return None
    return format(Decimal(value), "f")


def _score(value) -> str | None:
    """A 0–5 score rounded for people (cell means are unrounded)."""
    if value is None:
        return None
    return _dec(Decimal(value).quantize(SCORE_QUANTUM, rounding=ROUND_HALF_UP))


def _percent(share) -> str | None:
    """A share in 0–1 as a percentage with one decimal: 0.75 → "75.0"."""
    if share is None:
        return None
    return _dec((Decimal(share) * 100).quantize(PERCENT_QUANTUM, rounding=ROUND_HALF_UP))


def _iso_date(value: date | None) -> str | None:
    return value.isoformat() if value else None


def _iso_datetime(value: datetime | None) -> str | None:
    if value is None:
        return None
    if timezone.is_aware(value):
        value = timezone.localtime(value)
    return value.replace(microsecond=0).isoformat()


def _report_day(generated_at: str) -> date | None:
    """The report's day in the configured time zone, for the staleness rule; None if unknown."""
    try:
        moment = datetime.fromisoformat(str(generated_at))
    except ValueError:
        return None
    return timezone.localdate(moment) if timezone.is_aware(moment) else moment.date()


def _person(user) -> str | None:
    if user is None:
        return None
    return person_name(user)


def _requirement_label(name: str):
    """A requirement's label: its field's, or its context fact's (models.ContextFact)."""
    attribute = getattr(Evaluation, name)
    if isinstance(attribute, ContextFact):
        return attribute.label
    return Evaluation._meta.get_field(name).verbose_name


# --- sections --------------------------------------------------------------------------------


def _meta(data: EvaluationData, members: list, language: str, generated_at: str) -> dict:
    e = data.evaluation
    constraints = [
        (field, getattr(e, field))
        for field in (
            "private_deployment_required",
            "compliance_required",
            "localisation_required",
            "plans_hybrid",
        )
    ]
    return {
        "evaluation_id": e.pk,
        "title": e.title,
        "organisation": e.organisation,
        "status": e.status,
        "status_label": str(e.get_status_display()),
        "scenarios": [s.name for s in sorted(e.scenarios.all(), key=lambda s: (s.order, s.pk))],
        "constraints": [
            {
                "key": field,
                "label": str(_requirement_label(field)),
                "required": bool(value),
            }
            for field, value in constraints
        ],
        "unified_view_owner": e.unified_view_owner,
        "notes": e.notes,
        "language": language,
        "generated_at": generated_at,
        "members": len(members),
        "owners": sorted(_person(m.user) for m in members if m.role == MemberRole.OWNER),
    }


def _summary(data: EvaluationData, scenario_fit: dict) -> dict:
    e = data.evaluation
    context = [
        {
            "question": a.question.text,
            "answer": a.value,
            "answer_label": str(a.get_value_display()),
            "detail": a.detail,
        }
        for a in sorted(e.context_answers.all(), key=lambda a: (a.question.order, a.question.pk))
        if a.question.is_active
    ]
    shortlist = [
        {
            "slug": c.solution.slug,
            "name": c.name,
            "type": c.solution.solution_type.name,
            "origin": c.origin,
            "origin_label": str(c.get_origin_display()),
            "reason": c.reason,
            "rule_reasons": [
                r.reason for r in sorted(c.rules.all(), key=lambda r: (r.order, r.pk))
            ],
        }
        for c in data.shortlisted
    ]
    eliminated = [
        {
            "slug": c.solution.slug,
            "name": c.name,
            "type": c.solution.solution_type.name,
            "reason": c.elimination_reason,
            "eliminated_on": _iso_date(timezone.localdate(c.eliminated_at))
            if c.eliminated_at
            else None,
        }
        for c in data.eliminated
    ]
    decision = data.decision
    chosen = sorted(decision.chosen.all(), key=lambda c: c.name) if decision is not None else []
    final = e.status in FINAL_STATUSES
    tools = chosen or list(data.shortlisted)
    scenarios = [s.name for s in sorted(e.scenarios.all(), key=lambda s: (s.order, s.pk))]
    return {
        # The method's chain: scenario -> the type that carries the main responsibility -> tools
        # (the chosen ones once decided, the proposed ones before, else the shortlist).
        "chain": {
            "scenarios": scenarios,
            "type": e.main_type.name if e.main_type else None,
            "type_reason": e.main_type_reason,
            "tools": [c.name for c in tools],
            "tool_reasons": [{"name": c.name, "reason": _candidate_reason(c)} for c in tools],
            # Chosen only once the status is final; before that the decision is a proposal.
            "decided": bool(chosen) and final,
            "proposed": bool(chosen) and not final,
        },
        "scenarios": scenarios,
        "context": context,
        "shortlist": shortlist,
        "eliminated": eliminated,
        "decision": None
        if decision is None
        else {
            "chosen": [c.name for c in chosen],
            "final": final,
            "rationale": decision.rationale,
            "date": _iso_date(decision.decided_on),
            "decided_by": decision.decided_by,
            # Why it was marked decided with POC cells open (poc.gate), when a reason was given.
            "decided_despite": decided_despite(e),
        },
        "scenario_fit": scenario_fit if scenario_fit["scored"] else None,
    }


def _candidate_reason(candidate) -> str:
    """Why a candidate is on the shortlist, in one text: its own reason, else its first rule's."""
    if candidate.reason:
        return candidate.reason
    rules = sorted(candidate.rules.all(), key=lambda r: (r.order, r.pk))
    return rules[0].reason if rules else ""


def _types(data: EvaluationData) -> list[dict]:
    return [
        {
            "slug": t.slug,
            "name": t.name,
            "fits": t.fits,
            "boundary": t.boundary,
            "candidates": [c.name for c in candidates],
        }
        for t, candidates in data.types()
    ]


def _catalog(data: EvaluationData, on: date | None) -> tuple[list[dict], dict, list[dict], list]:
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
                    "checked": _iso_date(s.checked_on),
                    "placeholder": is_placeholder_url(s.url),
                }
        return {
            "level": level,
            "label": str(labels[level]),
            "note": claim.note if claim else "",
            "as_of": claim.as_of_version if claim else "",
            "checked": _iso_date(claim.checked_on) if claim else None,
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
                    latest = shortlisted[i].solution.latest_version
                    cells.append({**claim_cell(claim), "latest": latest})
                else:
                    via = layered.layer.solution.name if layered.layer else ""
                    latest = layered.layer.solution.latest_version if layered.layer else ""
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
                "by": _person(waiver.waived_by),
                "at": _iso_datetime(waiver.waived_at),
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
    return candidates, matrix, [sources[k] for k in sorted(sources)], caveats


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
                checked = _iso_date(finding.checked)
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


def _answer(question, a, party_names: dict[str, str]) -> dict:
    """One answer in the snapshot: every part, and the scale's part in words (answer_label)."""
    assessment = a.assessment if a else Assessment.UNKNOWN
    budget = a.budget if a else BudgetFocus.UNKNOWN
    parties = list(a.parties) if a else []
    names = [party_names.get(k, k) for k in parties]
    if question.scale == AnswerScale.PARTIES:
        label = pgettext("list separator", ", ").join(names)
    elif question.scale == AnswerScale.BUDGET:
        label = str(BudgetFocus(budget).label)
    else:
        label = str(Assessment(assessment).label)
    return {
        "key": question.key,
        "question": question.text,
        "scale": question.scale,
        "parties": parties,
        "party_names": names,
        "budget": budget,
        "budget_label": str(BudgetFocus(budget).label),
        "assessment": assessment,
        "assessment_label": str(Assessment(assessment).label),
        "answer_label": label,
        "explanation": a.explanation if a else "",
        "evidence_url": a.evidence_url if a else "",
        "evidence_placeholder": bool(a and is_placeholder_url(a.evidence_url)),
        "complete": bool(a and a.is_complete),
        "missing": a.missing_parts() if a else [],
    }


def _questions(data: EvaluationData, parties: list) -> list[dict]:
    party_names = {p.key: p.name for p in parties}
    out = []
    for progress in data.progress():
        c = progress.candidate
        by_question = {a.question_id: a for a in c.answers.all()}
        answers = [_answer(q, by_question.get(q.pk), party_names) for q in data.questions]
        out.append(
            {
                "slug": c.solution.slug,
                "name": c.name,
                "answered": progress.answered,
                "total": progress.total,
                "answers": answers,
            }
        )
    return out


def _check_labels() -> dict[str, str]:
    return {
        checks.OK: _("OK"),
        checks.GAP: _("No one accountable"),
        checks.CONFLICT: _("Two or more accountable"),
        checks.NO_RESPONSIBLE: _("No one responsible"),
        checks.UNANSWERED: _("Unanswered"),
    }


def _matrices(parties: list, matrices: list) -> dict:
    labels = _check_labels()
    out = []
    for m in matrices:
        rows = [
            {
                "group": r.area.group.name,
                "area": r.area.name,
                "governance": r.area.governance,
                "letters": [r.letters.get(p.pk, "") for p in parties],
                "status": r.check.status,
                "status_label": labels[r.check.status],
                "note": r.row.note if r.row else "",
                "fte": _dec(r.fte),
            }
            for r in m.rows
        ]

        def names(status: str, rows=m.rows) -> list[str]:
            return [r.area.name for r in rows if r.check.status == status]

        out.append(
            {
                "slug": m.candidate.solution.slug,
                "name": m.candidate.name,
                "type": m.candidate.solution.solution_type.name,
                "started": m.started,
                "parties": [p.name for p in parties],
                "rows": rows,
                "gaps": names(checks.GAP),
                "conflicts": names(checks.CONFLICT),
                "no_responsible": names(checks.NO_RESPONSIBLE),
                "unanswered": names(checks.UNANSWERED),
                "governance_without_internal_owner": [
                    a.name for a in m.governance_without_internal_owner
                ],
                "coverage": _dec(m.result.coverage),
                "complete": m.result.complete,
                "fte_total": _dec(m.fte_total),
            }
        )
    return {"parties": [p.name for p in parties], "candidates": out}


def _costs(evaluation: Evaluation, matrices: list) -> dict:
    """Costs of the candidates someone entered cost inputs for. Those without are listed by
    name under `missing` (and named under the chart) instead of printed as 0.00 totals;
    `entered` is false until at least one candidate has inputs."""
    settings, rows = evaluation_costs(evaluation, matrices=matrices)
    entered = any(not r.missing for r in rows)
    out = {
        "entered": entered,
        "years": settings.years,
        "currency": settings.currency,
        "fte_cost_per_year": _dec(settings.fte_cost_per_year),
        "candidates": [],
        "missing": rows.missing_names,
        "chart_svg": "",
    }
    if not entered:
        return out
    for r in rows:
        if r.missing:
            continue
        d = r.data
        out["candidates"].append(
            {
                "slug": r.candidate.solution.slug,
                "name": r.candidate.name,
                "priced": d.has_price,
                "inputs": {
                    "licence_per_year": _dec(d.licence_per_year),
                    "vendor_services_per_year": _dec(d.vendor_services_per_year),
                    "gpu_count": d.gpu_count,
                    "gpu_hours_per_year": _dec(d.gpu_hours_per_year),
                    "gpu_price_per_hour": _dec(d.gpu_price_per_hour),
                    "utilisation": _dec(d.utilisation),
                    "hardware_one_off": _dec(d.hardware_one_off),
                    "hardware_per_year": _dec(d.hardware_per_year),
                    "one_off": _dec(d.one_off),
                    "internal_fte": _dec(r.fte),
                },
                "years": [
                    {
                        "year": y.year,
                        "licences": _dec(y.licences),
                        "services": _dec(y.services),
                        "cloud": _dec(y.cloud),
                        "hardware": _dec(y.hardware),
                        "one_off": _dec(y.one_off),
                        "people": _dec(y.people),
                        "total": _dec(y.total),
                        "cumulative": _dec(y.cumulative),
                    }
                    for y in r.result.years
                ],
                "total": _dec(r.result.total),
                "people_total": _dec(r.result.people_total),
                "people_share": _dec(r.result.people_share),
            }
        )
    note = ""
    if rows.missing_names:
        note = _("Not in the chart, because their cost inputs are missing: %(names)s.") % {
            "names": ", ".join(rows.missing_names)
        }
    out["chart_svg"] = cumulative_cost_chart(
        [(r.candidate.name, r.result.cumulative) for r in rows],
        title=_("Cumulative cost of ownership"),
        year_label=_("Year %(n)s"),
        units=amount_units(),
        currency=settings.currency,
        note=note,
    )
    return out


def _overall(o) -> dict:
    return {
        "score": _dec(o.score),
        "percent": _dec(o.percent),
        "completeness": _percent(o.completeness),
    }


def _robustness(s, wins: dict, who, names: dict, group_names: dict, sufficiency=None) -> dict:
    """How far one group weight must move before the leader changes, and the win shares; on
    thin data (poc.scoring.sufficiency) only `thin`, the sentence said instead."""
    note = thin_note(sufficiency, names, group_names)
    if s is None or note:
        return {"thin": note, "leader": [], "by_group": [], "min_change": None, "wins": []}
    return {
        "thin": "",
        "leader": who(s.leader),
        "by_group": [
            {
                "group": group_names.get(key, key),
                "change": _dec(flip.change) if flip else None,
                "change_percent": _percent(flip.change) if flip else None,
                "new_weight": _dec(flip.new_weight) if flip else None,
                "new_leader": who(flip.new_leader) if flip else [],
            }
            for key, flip in s.by_group.items()
        ],
        "min_change": _dec(s.min_change),
        "min_change_percent": _percent(s.min_change),
        "group": group_names.get(s.group, s.group) if s.group else None,
        "new_leader": who(s.new_leader) if s.new_leader is not None else [],
        "wins": [
            {"name": names.get(key, key), "share": _dec(share), "percent": _percent(share)}
            for key, share in wins.items()
        ],
    }


def _poc(res: Results) -> dict:
    card = res.card
    names = {str(c.pk): c.name for c in card.candidates}

    def who(keys) -> list[str]:
        return sorted(names.get(k, k) for k in keys or ())

    group_names = {b.plan_group.group.key: b.plan_group.group.name for b in card.groups}
    totals = {c.pk: card.group_totals(c) for c in card.candidates}
    directions = dict(Direction.choices)
    total_weight = sum((b.plan_group.weight for b in card.groups), Decimal("0"))

    groups, disagreements = [], []
    for block in card.groups:
        g = block.plan_group
        key = g.group.key
        cases = []
        for row in block.rows:
            case = row.case
            title = case.text("title")
            cells = []
            for cell in row.cells:
                submitted = list(cell.visible)
                if cell.mine is not None and cell.mine.submitted and cell.mine.score is not None:
                    submitted.append(cell.mine)
                reviewers = sorted(
                    ({"name": _person(s.reviewer), "score": _dec(s.score)} for s in submitted),
                    key=lambda r: (r["name"], r["score"]),
                )
                consensus = (
                    {"score": _dec(cell.consensus.score), "reason": cell.consensus.reason}
                    if cell.consensus
                    else None
                )
                cells.append(
                    {
                        "value": _score(cell.value),
                        "reviewers": reviewers,
                        "consensus": consensus,
                        "disagreement": cell.disagreement,
                    }
                )
                if cell.disagreement or consensus:
                    disagreements.append(
                        {
                            "group": g.group.name,
                            "case": title,
                            "candidate": cell.candidate.name,
                            "reviewers": reviewers,
                            "disagreement": cell.disagreement,
                            "consensus": consensus,
                            "value": _score(cell.value),
                        }
                    )
            cases.append(
                {
                    "title": title,
                    "acceptance": case.text("acceptance"),
                    "weight": _dec(case.weight),
                    "metric": {
                        "name": case.text("metric_name"),
                        "unit": case.metric_unit,
                        "direction": case.metric_direction,
                        "direction_label": str(directions[case.metric_direction]),
                        "threshold": _dec(case.metric_threshold.normalize()),
                        "bands": bands_text(case),
                    }
                    if case.has_metric
                    else None,
                    "cells": cells,
                }
            )
        alpha = res.agreement_by_group.get(key)
        groups.append(
            {
                "key": key,
                "name": g.group.name,
                "happy_path": g.group.happy_path,
                "weight": _dec(g.weight),
                "weight_share": _percent(g.weight / total_weight) if total_weight else None,
                "totals": [
                    {
                        "score": _dec(totals[c.pk][key].score),
                        "completeness": _percent(totals[c.pk][key].completeness),
                    }
                    for c in card.candidates
                ],
                "agreement": None if alpha is None else round(alpha, 2),
                "cases": cases,
            }
        )

    has_plan = bool(card.groups)
    scored = any(v is not None for v in card.cell_values.values())
    radar_svg = ""
    if has_plan and card.candidates:
        radar_svg = radar_chart(
            axes=[b.plan_group.group.name for b in card.groups],
            series=[(c.name, [t.score for t in totals[c.pk].values()]) for c in card.candidates],
            title=_("Score by group (0–5)"),
        )

    # Robustness of the leader within each solution type, never across types (the same
    # grouping as the results page and API: poc.selectors.results_by_type).
    robustness = {
        "several_types": res.several_types,
        "types": [
            {
                "type": t.solution_type.name,
                "outside": t.outside,
                **_robustness(
                    t.sensitivity,
                    t.wins if scored and t.wins else {},
                    who,
                    names,
                    group_names,
                    t.sufficiency if scored else None,
                ),
            }
            for t in res.by_type
        ],
    }
    return {
        "has_plan": has_plan,
        "scored": scored,
        "candidates": [
            {"slug": c.solution.slug, "name": c.name, **_overall(res.overall[c.pk])}
            for c in card.candidates
        ],
        "groups": groups,
        "disagreements": disagreements,
        "open_disagreements": len(card.open_disagreements),
        "missing_cells": len(card.missing_cells),
        "radar_svg": radar_svg,
        "robustness": robustness,
        "agreement": {
            "overall": None if res.agreement is None else round(res.agreement, 2),
            "by_group": [
                {
                    "group": group_names.get(key, key),
                    "alpha": None if alpha is None else round(alpha, 2),
                }
                for key, alpha in res.agreement_by_group.items()
            ],
        },
    }


def _scenario_fit(res: Results) -> dict:
    """Each candidate under the plan's weights and under every scenario profile, within the
    type context: one table per solution type (the chosen type first, the others marked as
    outside it), ranks and leaders within the type only. A fit per scenario, never one
    cross-type ranking."""
    card = res.card
    names = {str(c.pk): c.name for c in card.candidates}

    def leaders(keys) -> list[str]:
        return sorted(names.get(k, k) for k in keys)

    scored = any(v is not None for v in card.cell_values.values())
    types = []
    for t in res.by_type:
        candidates = t.candidates
        rows = [
            {
                "profile": _("This plan's weights"),
                "cells": [
                    {**_overall(res.overall[c.pk]), "leads": str(c.pk) in t.leaders}
                    for c in candidates
                ],
                "leaders": leaders(t.leaders),
            }
        ]
        for profile, fit, in_type in t.by_profile:
            rows.append(
                {
                    "profile": profile.name,
                    "cells": [
                        {**_overall(fit[c.pk]), "leads": str(c.pk) in in_type} for c in candidates
                    ],
                    "leaders": leaders(in_type),
                }
            )
        types.append(
            {
                "type": t.solution_type.name,
                "outside": t.outside,
                "candidates": [{"name": c.name, "rank": rank} for c, rank in t.ranked],
                "profiles": rows,
            }
        )
    return {
        "scored": scored and bool(card.groups),
        "several_types": res.several_types,
        "types": types,
    }


def _reminders(data: EvaluationData) -> list[dict]:
    severity = {"high": _("High"), "medium": _("Medium")}
    return [
        {
            "key": r.key,
            "severity": r.severity,
            "severity_label": severity.get(r.severity, r.severity),
            "title": r.title,
            "why": r.why,
        }
        for r in reminders_for(data)
    ]


def _evidence(evaluation: Evaluation) -> list[dict]:
    """Files behind submitted scores (drafts stay their author's), oldest first."""
    rows = (
        Evidence.objects.filter(score__case__evaluation=evaluation)
        .exclude(score__submitted_at=None)
        .select_related("uploaded_by", "score__candidate__solution", "score__case__source_case")
        .order_by("uploaded_at", "pk")
    )
    return [
        {
            "file": ev.original_name,
            "sha256": ev.sha256,
            "size": ev.size,
            "content_type": ev.content_type,
            "uploaded_by": _person(ev.uploaded_by),
            "uploaded_at": _iso_datetime(ev.uploaded_at),
            "candidate": ev.score.candidate.name,
            "case": ev.score.case.text("title"),
        }
        for ev in rows
    ]


def _conflicts(evaluation: Evaluation) -> list[dict]:
    """Every member's declared relationship with each candidate's vendor(s), and the owner's
    decision on a declared conflict, by candidate then member."""
    rows = (
        ConflictDeclaration.objects.filter(evaluation=evaluation)
        .select_related("member", "decided_by", "candidate__solution")
        .prefetch_related("candidate__layers__solution")
    )
    rows = sorted(rows, key=lambda d: (d.candidate.name, _person(d.member) or "", d.pk))
    return [
        {
            "candidate": d.candidate.name,
            "member": _person(d.member),
            # The vendors from the catalog in the report's language (`d.vendors` keeps them as
            # the member's page named them, in the member's language).
            "vendors": vendors_of(d.candidate),
            "has_conflict": d.has_conflict,
            "description": d.description,
            "declared_at": _iso_datetime(d.declared_at),
            "allowed": d.allowed,
            "allowance_reason": d.allowance_reason,
            "decided_by": _person(d.decided_by),
            "decided_at": _iso_datetime(d.decided_at),
        }
        for d in rows
    ]


def _decisive_details(entry) -> str:
    """The fields a decisive change set, shortly: "Chosen: Slurm; Decided by: Board"."""
    parts = []
    for c in entry.changes:
        if c.new_display == entry.reason:
            continue
        shown = c.new_display
        if isinstance(c.new, date):  # in the report's language, like every other date
            shown = formats.date_format(c.new, "DATE_FORMAT")
        label = f"{c.label[:1].upper()}{c.label[1:]}"
        parts.append(f"{label}: {shorten(shown, DETAIL_CHARS)}")
    return pgettext("list separator", "; ").join(parts)


def _history(evaluation: Evaluation, despite: dict | None) -> dict:
    """A summary of the change history: how many records of each kind, and the decisive
    changes (status changes with their reasons, decision records, constraint waivers, the
    owner's allowances on conflicts of interest), oldest first. Every change stays
    on the evaluation's History tab and in the API."""
    # Approvals come after the seal: their history is in the unsealed "signoff".
    counts = history_counts(evaluation, exclude=unsealed_history())
    statuses = dict(Status.choices)
    changes = list(
        evaluation.status_changes.select_related("changed_by").order_by("changed_at", "pk")
    )
    last_decided = next((c for c in reversed(changes) if c.to_status == Status.DECIDED), None)
    # (moment, order, entry): sorted by the exact time, the status log first on a tie, then
    # the history's own order (oldest record first).
    decisive = [
        (
            c.changed_at,
            n,
            {
                "when": _iso_datetime(c.changed_at),
                "who": _person(c.changed_by),
                "kind": "status",
                "label": str(_("Status change")),
                "object": f"{statuses.get(c.from_status, c.from_status)} → "
                f"{statuses.get(c.to_status, c.to_status)}",
                "action_label": "",
                "details": "",
                "reason": c.reason,
                # The reason this decision was accepted with open POC cells (poc.gate).
                "despite": bool(despite) and c is last_decided,
            },
        )
        for n, c in enumerate(changes)
    ]
    rows = list(history_timeline(evaluation, DECISIVE_KINDS))
    entries = history_entries(evaluation, rows)
    for n, e in enumerate(reversed(entries), start=len(changes)):
        if e.model == "conflictdeclaration" and not any(c.field == "allowed" for c in e.changes):
            continue  # a declaration, not the owner's decision on it
        entry = {
            "when": _iso_datetime(e.when),
            "who": e.who,
            "kind": e.model,
            "label": f"{e.model_label[:1].upper()}{e.model_label[1:]}",
            "object": e.object,
            "action_label": e.action_label,
            "details": _decisive_details(e),
            "reason": e.reason,
            "despite": False,
        }
        decisive.append((e.when, n, entry))
    decisive = [entry for _when, _n, entry in sorted(decisive, key=lambda d: (d[0], d[1]))]
    return {
        "total": sum(k.count for k in counts),
        "by_kind": [{"kind": k.kind, "label": k.label, "count": k.count} for k in counts],
        "decisive_total": len(decisive),
        "decisive": decisive[-DECISIVE_LIMIT:],
    }


def _headline(data: EvaluationData, snapshot: dict, caveats: list[dict], res: Results) -> dict:
    """What the first page says besides the decision: the candidates it is about (the chosen
    ones, the proposed ones before the status is final, else the shortlist) against the hard
    constraints, their cost of ownership and POC result; how complete the POC is; the open
    high-severity risks; and the caveats a signer should know about."""
    decision = data.decision
    chosen = sorted(decision.chosen.all(), key=lambda c: c.name) if decision is not None else []
    if chosen:
        basis = "chosen" if data.evaluation.status in FINAL_STATUSES else "proposed"
    else:
        basis = "shortlist"
    focus = chosen or list(data.shortlisted)
    index = {c.pk: i for i, c in enumerate(data.shortlisted)}
    candidates = snapshot["candidates"]
    costs = snapshot["costs"]
    cost_rows = {c["name"]: c for c in costs["candidates"]}
    poc = snapshot["poc"]
    poc_rows = {c["name"]: c for c in poc["candidates"]}
    sufficiency = res.sufficiency
    thin_keys = {key for key, _c, _e in sufficiency.thin} if sufficiency else set()
    leaders = {key for t in res.by_type for key in t.leaders} if poc["scored"] else set()

    rows = []
    for c in focus:
        i = index.get(c.pk)
        cost = cost_rows.get(c.name)
        score = poc_rows.get(c.name)
        rows.append(
            {
                "name": c.name,
                "type": c.solution.solution_type.name,
                "constraints": [
                    {
                        "name": k["name"],
                        "verdict": k["verdict"],
                        "verdict_label": k["verdict_label"],
                        "waived": bool(k["waiver"]),
                    }
                    for k in (candidates[i]["constraints"] if i is not None else [])
                ],
                "cost": {"total": cost["total"], "people_share": cost["people_share"]}
                if cost
                else None,
                "cost_missing": c.name in costs["missing"],
                "poc": {
                    "score": score["score"],
                    "completeness": score["completeness"],
                    "thin": str(c.pk) in thin_keys,
                    "leads": str(c.pk) in leaders,
                }
                if score and poc["scored"]
                else None,
                "caveats": caveats[i] if i is not None else {"unknown": [], "stale": []},
            }
        )

    focus_keys = {str(c.pk) for c in focus}
    thin = []
    if sufficiency is not None and poc["scored"]:
        names = {str(c.pk): c.name for c in res.card.candidates}
        groups = {b.plan_group.group.key: b.plan_group.group.name for b in res.card.groups}
        mine = replace(sufficiency, thin=tuple(t for t in sufficiency.thin if t[0] in focus_keys))
        thin = thin_items(mine, names, groups)
    reminders = snapshot["reminders"]
    high = [r["title"] for r in reminders if r["severity"] == "high"]
    placeholders = sum(
        1 for q in snapshot["questions"] for a in q["answers"] if a["evidence_placeholder"]
    )
    return {
        "focus": {
            "basis": basis,
            "candidates": rows,
            "years": costs["years"],
            "currency": costs["currency"],
            "costs_entered": costs["entered"],
        },
        "poc": {
            "has_plan": poc["has_plan"],
            "scored": poc["scored"],
            "minimum": _percent(sufficiency.minimum) if sufficiency else None,
            "thin": thin,
            "open_disagreements": poc["open_disagreements"],
            "missing_cells": poc["missing_cells"],
        },
        "risks": {"high": high, "other": len(reminders) - len(high)},
        "caveats": {
            "stale_after_months": STALE_AFTER_MONTHS,
            "candidates": [
                {"name": r["name"], **r["caveats"]}
                for r in rows
                if r["caveats"]["unknown"] or r["caveats"]["stale"]
            ],
            "placeholder_links": placeholders,
        },
    }


def _test_cases(res: Results) -> list[dict]:
    directions = dict(Direction.choices)
    return [
        {
            "group": block.plan_group.group.name,
            "title": row.case.text("title"),
            "steps": row.case.text("steps"),
            "acceptance": row.case.text("acceptance"),
            "weight": _dec(row.case.weight),
            "metric": {
                "name": row.case.text("metric_name"),
                "unit": row.case.metric_unit,
                "direction_label": str(directions[row.case.metric_direction]),
                "threshold": _dec(row.case.metric_threshold.normalize()),
                "bands": bands_text(row.case),
            }
            if row.case.has_metric
            else None,
        }
        for block in res.card.groups
        for row in block.rows
    ]


# --- entry points ----------------------------------------------------------------------------


def build_snapshot(
    evaluation: Evaluation, *, language: str, generated_at: str, sections: list[str] | None = None
) -> dict:
    """Everything one report shows, in `language`, as plain JSON values.

    `sections` (default: all, in report order) says which parts the report prints after the
    cover; it is sealed with the data, so the SHA-256 also covers what was left out.

    Reads with the owner's view of the POC: every submitted score and consensus, never drafts.
    Sections without data (no plan, no costs) are present with empty contents.
    """
    with override(language):
        # A fresh instance, so nothing the caller cached (e.g. a missing cost record) leaks in.
        # The selectors below get it rather than `data.evaluation`: filtering a manager whose
        # rows are prefetched would carry the prefetch lookups along.
        evaluation = Evaluation.objects.get(pk=evaluation.pk)
        data = evaluation_data(evaluation)
        members = list(evaluation.memberships.select_related("user").order_by("added_at", "pk"))
        owner = next((m.user for m in members if m.role == MemberRole.OWNER), None)
        res = results(evaluation, owner or data.evaluation.created_by, see_all=True)
        scenario_fit = _scenario_fit(res)
        candidates, capabilities, sources, caveats = _catalog(data, _report_day(generated_at))
        matrices = evaluation_matrices(evaluation)  # shared by the matrix and cost sections
        parties = parties_for(evaluation)  # shared by the questions and the matrices
        snapshot = {
            "version": SCHEMA_VERSION,
            "sections": list(ALL_SECTIONS) if sections is None else list(sections),
            "meta": _meta(data, members, language, generated_at),
            "summary": _summary(data, scenario_fit),
            "types": _types(data),
            "candidates": candidates,
            "capabilities": capabilities,
            "questions": _questions(data, parties),
            "matrices": _matrices(parties, matrices),
            "costs": _costs(evaluation, matrices),
            "poc": {
                **_poc(res),
                "scenario_fit": scenario_fit,
                "verification": verification_snapshot(evaluation, res.card),
            },
            "reminders": _reminders(data),
        }
        summary = snapshot["summary"]
        snapshot["appendix"] = {
            "test_cases": _test_cases(res),
            "evidence": _evidence(evaluation),
            "conflicts": _conflicts(evaluation),
            "sources": sources,
            "history": _history(
                evaluation, summary["decision"] and summary["decision"]["decided_despite"]
            ),
        }
        summary.update(_headline(data, snapshot, caveats, res))
        built = SimpleNamespace(evaluation=evaluation)  # what the contributed parts read
        for part in report_parts():
            snapshot[part.key] = part.build(built)
    return snapshot


def snapshot_json(snapshot: dict) -> bytes:
    """The canonical bytes of a snapshot: what is stored and what the SHA-256 covers."""
    return json.dumps(snapshot, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


# What a snapshot records about the render rather than the evaluation: left out of its seal.
UNSEALED_META = ("generated_at",)


def unsealed_keys() -> tuple[str, ...]:
    """Contributed parts that come after the seal: the approvals of the sealed content (who
    approved which hash, the sign-off) cannot be inside what they approve."""
    return tuple(part.key for part in report_parts() if not part.sealed)


def unsealed_history() -> tuple[str, ...]:
    """History kinds left out of the sealed history: they come after the seal (approvals)."""
    return tuple(kind for part in report_parts() for kind in part.unsealed_history)


def snapshot_sha256(snapshot: dict) -> str:
    """The seal: the SHA-256 of the snapshot's content. The render time is printed beside it but
    not sealed, so two renders of unchanged data print the same hash; the sign-off (approvals)
    is printed but not sealed either."""
    meta = {k: v for k, v in snapshot.get("meta", {}).items() if k not in UNSEALED_META}
    unsealed = unsealed_keys()
    sealed = {k: v for k, v in snapshot.items() if k not in unsealed}
    return hashlib.sha256(snapshot_json({**sealed, "meta": meta})).hexdigest()
