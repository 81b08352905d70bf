"""A report's POC appendices: the test cases of the plan, the evidence files behind submitted
scores, and the declared conflicts of interest with the owner's decisions on them."""

from __future__ import annotations

from common.report_values import decimal_text, iso_datetime, person
from evaluations.models import Evaluation

from ..conflicts import vendors_of
from ..models import ConflictDeclaration, Direction, Evidence
from ..rubric import bands_text
from ..selectors import Results


def test_cases_part(context) -> list[dict]:
    return _test_cases(context.results)


def evidence_part(context) -> list[dict]:
    return _evidence(context.evaluation)


def conflicts_part(context) -> list[dict]:
    return _conflicts(context.evaluation)


def _test_cases(res: Results) -> list[dict]:
    directions = dict(Direction.choices)
    return [
        {
            "group": block.plan_group.group.name,
            "title": row.case.text("title"),
            "steps": row.case.text("steps"),
            "acceptance": row.case.text("acceptance"),
            "weight": decimal_text(row.case.weight),
            "metric": {
                "name": row.case.text("metric_name"),
                "unit": row.case.metric_unit,
                "direction_label": str(directions[row.case.metric_direction]),
                "threshold": decimal_text(row.case.metric_threshold.normalize()),
                "bands": bands_text(row.case),
            }
            if row.case.has_metric
            else None,
        }
        for block in res.card.groups
        for row in block.rows
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
            "uploaded_by": person(ev.uploaded_by),
            "uploaded_at": iso_datetime(ev.uploaded_at),
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
    rows = sorted(rows, key=lambda d: (d.candidate.name, person(d.member) or "", d.pk))
    return [
        {
            "candidate": d.candidate.name,
            "member": person(d.member),
            # The vendors from the catalog in the report's language (`d.vendors` keeps them as
            # the member's page named them, in the member's language).
            "vendors": vendors_of(d.candidate),
            "has_conflict": d.has_conflict,
            "description": d.description,
            "declared_at": iso_datetime(d.declared_at),
            "allowed": d.allowed,
            "allowance_reason": d.allowance_reason,
            "decided_by": person(d.decided_by),
            "decided_at": iso_datetime(d.decided_at),
        }
        for d in rows
    ]
