"""The frozen data behind one report: everything the report shows, as plain JSON values.

A report is rendered from this snapshot only (never from live rows), and the snapshot's SHA-256
is printed on it, so the same evaluation data gives the same bytes and the same hash. To keep it
that way the snapshot holds only str, int, float, bool, None, lists and dicts: Decimals become
strings, dates ISO strings, and every list has a fixed order (common.report_values spells the
values). Nothing here reads the clock; the caller passes `generated_at`, whose day is also the
reference for stale catalog claims (catalog.freshness): a claim that ages past the limit changes
the summary's caveats, and so the seal, even when nothing else changed.

Each part is built by the app that owns its data, contributed through evaluations.extensions
(ReportPart): evaluations (meta, types, candidates, capabilities, questions, reminders, the
sources and history appendices, the sign-off), responsibility (matrices, costs), poc (the POC
part, the test cases, evidence and conflicts appendices). This module puts them together: it
makes the build context they read (the values several parts share, each read once), adds the
summary and its headline, and seals the result. The query count is fixed: it does not grow with
the number of candidates, cases or scores.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from datetime import date, datetime
from functools import cached_property

from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone
from django.utils.translation import override

from catalog.freshness import STALE_AFTER_MONTHS
from common.report_values import iso_date, percent_text
from evaluations import extensions
from evaluations.models import Evaluation, MemberRole, Status
from evaluations.report import catalog_facts
from evaluations.selectors import evaluation_data
from poc.gate import decided_despite
from poc.report import scenario_fit
from poc.selectors import Results, results
from poc.thin import thin_items
from responsibility.selectors import evaluation_matrices, parties_for

from .sections import ALL as ALL_SECTIONS

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
# history leaves approvals out); 13: POC results by comparable group, the same type on the
# same test bed (test_bed and not_comparable in poc.scenario_fit.types and
# poc.robustness.types, several_groups), one radar chart per group (poc.radars; radar_svg stays
# empty), the owner's test-bed equivalences with their reasons (poc.bed_equivalences), and the
# bootstrap share over reviewers and cells (poc.robustness.types[].bootstrap), with no leader
# named below 80 %.
SCHEMA_VERSION = 13
FINAL_STATUSES = (Status.DECIDED, Status.ARCHIVED)
# What a snapshot records about the render rather than the evaluation: left out of its seal. The
# parts left out (the sign-off) are those contributed unsealed (evaluations.extensions).
UNSEALED_META = ("generated_at",)


# --- the build context -----------------------------------------------------------------------


def _report_day(generated_at: str) -> date | None:
    """The report's day in the configured time zone, for the staleness rule; None if unknown."""
    try:
        moment = datetime.fromisoformat(str(generated_at))
    except ValueError:
        return None
    return timezone.localdate(moment) if timezone.is_aware(moment) else moment.date()


class ReportContext:
    """What every part of one report is built from (evaluations.extensions.ReportPart says what
    a part may read): the evaluation and its data, read once, and the values several parts
    read, each computed on first use and then shared."""

    def __init__(self, evaluation: Evaluation, *, language: str, generated_at: str):
        # A fresh instance, so nothing the caller cached (e.g. a missing cost record) leaks in.
        # Selectors get it rather than `data.evaluation`: filtering a manager whose rows are
        # prefetched would carry the prefetch lookups along.
        self.evaluation = Evaluation.objects.get(pk=evaluation.pk)
        self.data = evaluation_data(self.evaluation)
        self.members = list(
            self.evaluation.memberships.select_related("user").order_by("added_at", "pk")
        )
        self.owner = next((m.user for m in self.members if m.role == MemberRole.OWNER), None)
        self.language = language
        self.generated_at = generated_at
        self.report_day = _report_day(generated_at)
        self._shared: dict = {}

    def shared(self, key: str, compute):
        """The value under `key`, computed by `compute()` the first time it is asked for."""
        if key not in self._shared:
            self._shared[key] = compute()
        return self._shared[key]

    @cached_property
    def results(self) -> Results:
        """The POC with the owner's view: every submitted score and consensus, never drafts."""
        viewer = self.owner or self.data.evaluation.created_by
        return results(self.evaluation, viewer, see_all=True)

    @cached_property
    def parties(self) -> list:
        """The parties the questions' answers and the matrices name."""
        return parties_for(self.evaluation)

    @cached_property
    def matrices(self) -> list:
        """The shortlisted candidates' responsibility matrices (the matrices and the costs)."""
        return evaluation_matrices(self.evaluation)

    @cached_property
    def decided_despite(self) -> dict | None:
        """Why the decision was marked decided with POC cells open (poc.gate); None without a
        decision or such a reason (the summary's decision and the history appendix)."""
        if self.data.decision is None:
            return None
        return decided_despite(self.data.evaluation)


# --- the summary -----------------------------------------------------------------------------


def summary(context: ReportContext) -> dict:
    """What the report leads with: the method's chain, the context, the shortlist and the
    eliminated, the decision (or the proposal), the scenario fit; the headline is added once
    every part is built."""
    data = context.data
    e = data.evaluation
    fit = scenario_fit(context)
    context_answers = [
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
            "eliminated_on": iso_date(timezone.localdate(c.eliminated_at))
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
            "tool_reasons": [{"name": c.name, "reason": candidate_reason(c)} for c in tools],
            # Chosen only once the status is final; before that the decision is a proposal.
            "decided": bool(chosen) and final,
            "proposed": bool(chosen) and not final,
        },
        "scenarios": scenarios,
        "context": context_answers,
        "shortlist": shortlist,
        "eliminated": eliminated,
        "decision": None
        if decision is None
        else {
            "chosen": [c.name for c in chosen],
            "final": final,
            "rationale": decision.rationale,
            "date": iso_date(decision.decided_on),
            "decided_by": decision.decided_by,
            # Why it was marked decided with POC cells open (poc.gate), when a reason was given.
            "decided_despite": context.decided_despite,
        },
        "scenario_fit": fit if fit["scored"] else None,
    }


def candidate_reason(candidate) -> str:
    """Why a candidate is on the shortlist, in one text: its own reason, else its first rule's."""
    if candidate.reason:
        return candidate.reason
    rules = sorted(candidate.rules.all(), key=lambda r: (r.order, r.pk))
    return rules[0].reason if rules else ""


def headline(context: ReportContext, snapshot: dict) -> dict:
    """What the first page says besides the decision: the candidates it is about (the chosen
    ones, the proposed ones before the status is final, else the shortlist) against the hard
    constraints, their cost of ownership and POC result; how complete the POC is; the open
    high-severity risks; and the caveats a signer should know about. Read from the built parts
    (`snapshot`), the catalog's caveats and the POC results."""
    data, res = context.data, context.results
    caveats = catalog_facts(context).caveats
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
            "minimum": percent_text(sufficiency.minimum) if sufficiency else None,
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
        context = ReportContext(evaluation, language=language, generated_at=generated_at)
        snapshot = {
            "version": SCHEMA_VERSION,
            "sections": list(ALL_SECTIONS) if sections is None else list(sections),
            "summary": summary(context),
        }
        for part in extensions.report_parts():
            place(snapshot, part.key, part.build(context))
        # The headline reads the built parts: it comes last.
        snapshot["summary"].update(headline(context, snapshot))
    return snapshot


def place(snapshot: dict, key: str, value) -> None:
    """Put a part under its key; a dotted key ("appendix.conflicts") inside its outer part."""
    *outer, last = key.split(".")
    target = snapshot
    for name in outer:
        target = target.setdefault(name, {})
    if last in target:
        raise ImproperlyConfigured(f"Two report parts fill {key!r}.")
    target[last] = value


def snapshot_json(snapshot: dict) -> bytes:
    """The canonical bytes of a snapshot: what is stored and what the SHA-256 covers."""
    return json.dumps(snapshot, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def _without(snapshot: dict, key: str) -> dict:
    """The snapshot without the part under a (dotted) key; the snapshot itself is unchanged."""
    name, _dot, rest = key.partition(".")
    if name not in snapshot:
        return snapshot
    if not rest:
        return {k: v for k, v in snapshot.items() if k != name}
    return {**snapshot, name: _without(snapshot[name], rest)}


def snapshot_sha256(snapshot: dict) -> str:
    """The seal: the SHA-256 of the snapshot's content. The render time is printed beside it but
    not sealed, so two renders of unchanged data print the same hash; the parts contributed
    unsealed (the sign-off: approvals of the sealed content, who approved which hash, cannot be
    inside what they approve) are printed but not sealed either."""
    meta = {k: v for k, v in snapshot.get("meta", {}).items() if k not in UNSEALED_META}
    sealed = snapshot
    for key in extensions.unsealed_report_keys():
        sealed = _without(sealed, key)
    return hashlib.sha256(snapshot_json({**sealed, "meta": meta})).hexdigest()
