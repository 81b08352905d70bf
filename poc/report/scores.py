"""A report's POC scorecard: every case's cells with their reviewers and consensus, the group
totals, the disagreements, the radar chart, the agreement between reviewers, the robustness of
the leader within each solution type, and each candidate's fit per scenario profile within its
type (never one ranking across types). Read with the owner's view of the POC (`context.results`):
every submitted score and consensus, never drafts."""

from __future__ import annotations

from decimal import Decimal

from django.utils.translation import gettext as _

from common.charts import radar_chart
from common.report_values import decimal_text, percent_text, person, score_text

from ..models import Direction
from ..rubric import bands_text
from ..selectors import Results
from ..thin import bootstrap_note, bootstrap_share, named_leaders, thin_note
from .verification import verification_snapshot


def scenario_fit(context) -> dict:
    """The scenario fit of a report (evaluations.extensions.ReportPart's context), built once:
    the POC part prints it, the summary leads with it."""
    return context.shared("poc.scenario_fit", lambda: _scenario_fit(context.results))


def poc_part(context) -> dict:
    """The scorecard, the scenario fit, and the POC's verification of the catalog's claims."""
    res = context.results
    return {
        **_poc(res),
        "scenario_fit": scenario_fit(context),
        "verification": verification_snapshot(context.evaluation, res.card),
    }


def _overall(o) -> dict:
    return {
        "score": decimal_text(o.score),
        "percent": decimal_text(o.percent),
        "completeness": percent_text(o.completeness),
    }


def _bootstrap(boot, names: dict) -> dict:
    """The bootstrap share (poc.scoring.leader_bootstrap) and, below 80 %, why no leader."""
    if boot is None or boot.share is None:
        return {"percent": None, "text": "", "note": ""}
    return {
        "percent": percent_text(boot.share),
        "text": bootstrap_share(boot),
        "note": bootstrap_note(boot, names),
    }


def _group_heading(t) -> dict:
    """What names a comparable group in the report: its type, and its test bed when the type's
    candidates were tested on several; the same type's candidates on other test beds."""
    return {
        "type": t.solution_type.name,
        "outside": t.outside,
        "test_bed": t.bed_label if t.split else "",
        "not_comparable": [
            {"candidates": [c.name for c in o.candidates], "note": o.note} for o in t.others
        ],
    }


def _robustness(
    s, wins: dict, who, names: dict, group_names: dict, sufficiency=None, boot=None
) -> dict:
    """How far one group weight must move before the leader changes, the win shares and the
    bootstrap; on thin data (poc.scoring.sufficiency) only `thin`, the sentence said instead."""
    note = thin_note(sufficiency, names, group_names)
    if s is None or note:
        return {"thin": note, "leader": [], "by_group": [], "min_change": None, "wins": []}
    return {
        "thin": "",
        "bootstrap": _bootstrap(boot, names),
        "leader": who(named_leaders(s.leader, boot)),
        "by_group": [
            {
                "group": group_names.get(key, key),
                "change": decimal_text(flip.change) if flip else None,
                "change_percent": percent_text(flip.change) if flip else None,
                "new_weight": decimal_text(flip.new_weight) if flip else None,
                "new_leader": who(flip.new_leader) if flip else [],
            }
            for key, flip in s.by_group.items()
        ],
        "min_change": decimal_text(s.min_change),
        "min_change_percent": percent_text(s.min_change),
        "group": group_names.get(s.group, s.group) if s.group else None,
        "new_leader": who(s.new_leader) if s.new_leader is not None else [],
        "wins": [
            {
                "name": names.get(key, key),
                "share": decimal_text(share),
                "percent": percent_text(share),
            }
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
                    (
                        {"name": person(s.reviewer), "score": decimal_text(s.score)}
                        for s in submitted
                    ),
                    key=lambda r: (r["name"], r["score"]),
                )
                consensus = (
                    {"score": decimal_text(cell.consensus.score), "reason": cell.consensus.reason}
                    if cell.consensus
                    else None
                )
                cells.append(
                    {
                        "value": score_text(cell.value),
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
                            "value": score_text(cell.value),
                        }
                    )
            cases.append(
                {
                    "title": title,
                    "acceptance": case.text("acceptance"),
                    "weight": decimal_text(case.weight),
                    "metric": {
                        "name": case.text("metric_name"),
                        "unit": case.metric_unit,
                        "direction": case.metric_direction,
                        "direction_label": str(directions[case.metric_direction]),
                        "threshold": decimal_text(case.metric_threshold.normalize()),
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
                "weight": decimal_text(g.weight),
                "weight_share": percent_text(g.weight / total_weight) if total_weight else None,
                "totals": [
                    {
                        "score": decimal_text(totals[c.pk][key].score),
                        "completeness": percent_text(totals[c.pk][key].completeness),
                    }
                    for c in card.candidates
                ],
                "agreement": None if alpha is None else round(alpha, 2),
                "cases": cases,
            }
        )

    has_plan = bool(card.groups)
    scored = any(v is not None for v in card.cell_values.values())
    # One radar chart per comparable group: one chart of every candidate would compare them.
    radars = []
    if has_plan and card.candidates:
        for t in res.by_type:
            radars.append(
                {
                    **_group_heading(t),
                    "svg": radar_chart(
                        axes=[b.plan_group.group.name for b in card.groups],
                        series=[
                            (c.name, [tot.score for tot in totals[c.pk].values()])
                            for c in t.candidates
                        ],
                        title=_("Score by group (0–5)"),
                    ),
                }
            )

    # Robustness of the leader within each comparable group, never across types or test beds
    # (the same grouping as the results page and API: poc.selectors.results_by_type).
    robustness = {
        "several_types": res.several_types,
        "several_groups": res.several_groups,
        "types": [
            {
                **_group_heading(t),
                **_robustness(
                    t.sensitivity,
                    t.wins if scored and t.wins else {},
                    who,
                    names,
                    group_names,
                    t.sufficiency if scored else None,
                    t.bootstrap,
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
        "radar_svg": "",  # before one chart per comparable group (older reports)
        "radars": radars,
        "bed_equivalences": [
            {
                "first_test_bed": e.first_label,
                "second_test_bed": e.second_label,
                "candidates": [e.first.name, e.second.name],
                "reason": e.reason,
                "by": person(e.declared_by),
            }
            for e in res.equivalences
        ],
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
        named = named_leaders(t.leaders, t.bootstrap)
        rows = [
            {
                "profile": _("This plan's weights"),
                "cells": [
                    {**_overall(res.overall[c.pk]), "leads": str(c.pk) in named} for c in candidates
                ],
                "leaders": leaders(named),
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
                **_group_heading(t),
                "candidates": [{"name": c.name, "rank": rank} for c, rank in t.ranked],
                "profiles": rows,
            }
        )
    return {
        "scored": scored and bool(card.groups),
        "several_types": res.several_types,
        "several_groups": res.several_groups,
        "types": types,
    }
