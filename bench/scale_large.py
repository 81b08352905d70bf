"""The large evaluation of bench/scale_data.py (8 candidates × 60 cases × 3 reviewers, as
bench/report_render.py builds): written through the services, so it has its change history, with
a report run that is rendering, and found again by its title."""

from __future__ import annotations

from bench.builders import add_custom_cases, create_evaluation, fill_candidates, score_every_cell
from bench.scale_shapes import (
    CUSTOM_CASES,
    EXPLANATION,
    LARGE_TITLE,
    NOTES,
    OWNER,
    STACKS,
    STEPS,
    VIEWER,
    LargeShape,
)


def make_large(users: dict, shape: LargeShape, rng) -> tuple[object, dict]:
    """The large evaluation, through the services (history included), scores in bulk."""

    from catalog.models import Solution
    from evaluations import services as ev
    from evaluations.models import (
        Status,
    )
    from poc import services as poc
    from poc.models import Evidence, Score, TestCase, TestGroup

    if not 2 <= shape.candidates <= 8:
        raise ValueError("the large evaluation has 2 to 8 candidates (7 solutions and a stack)")
    owner = users[OWNER]
    reviewers = [users[f"scale-reviewer-{n:02d}"] for n in range(1, shape.reviewers + 1)]
    evaluation = create_evaluation(owner, LARGE_TITLE, reviewers, users[VIEWER])

    solutions = {s.slug: s for s in Solution.objects.filter(is_active=True)}
    for s in list(solutions.values())[: shape.candidates - 1]:
        ev.candidate_add(
            user=owner, evaluation=evaluation, solution=s, reason=f"纳入比较：{s.name}"
        )
    name, roles, main = STACKS[0]
    ev.candidate_compose_stack(
        user=owner,
        evaluation=evaluation,
        name=name,
        reason="开源批调度在下，企业平台在上：统一视图、权限、审计与服务。",
        layers={role: solutions[slug] for role, slug in roles.items()},
        main=main,
    )
    candidates = list(evaluation.candidates.order_by("pk"))

    # Five answers, a prefilled matrix and cost inputs per candidate.
    fill_candidates(owner, evaluation, candidates, EXPLANATION)

    evaluation = ev.evaluation_transition(user=owner, evaluation=evaluation, to_status=Status.POC)
    groups = list(TestGroup.objects.order_by("order", "pk"))
    library = list(TestCase.objects.filter(is_active=True))
    if shape.cases >= len(library):
        poc.plan_init(user=owner, evaluation=evaluation)
    else:
        for case in library[: shape.cases]:
            poc.plan_case_add_library(user=owner, evaluation=evaluation, case=case)
    cases = add_custom_cases(
        owner, evaluation, groups, max(0, shape.cases - len(library)), CUSTOM_CASES, STEPS
    )
    # Every reviewer scores every case for every candidate; about 8% of the cells have a
    # reviewer far off, so the disagreement and consensus tables fill too.
    scored = score_every_cell(owner, cases, candidates, reviewers, rng, NOTES, batch_size=2000)
    # Evidence rows behind a few scores. The pages list them; only a download would read the
    # file, so none is written (the bench leaves MEDIA_ROOT alone).
    Evidence.objects.bulk_create(
        Evidence(
            score=score,
            file=f"evidence/scale/record-{i + 1}.txt",
            original_name=f"测试记录-{i + 1}.txt",
            content_type="text/plain",
            size=1024,
            sha256=f"{i:064x}",
            uploaded_by=score.reviewer,
        )
        for i, score in enumerate(
            Score.objects.filter(case__evaluation=evaluation).order_by("pk")[::97][:16]
        )
    )
    ev.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=[candidates[-1]],
        rationale="草稿：组合方案在治理与国产化上领先，待 POC 结束后确认。",
        decided_on=None,
        decided_by="技术评审委员会",
        expected_version=None,
    )
    poll_run(evaluation)
    from responsibility.models import AreaRow, Cell

    return evaluation, {
        "candidates": len(candidates),
        "cases": len(cases),
        "scores": scored,
        "rows": AreaRow.objects.filter(candidate__evaluation=evaluation).count(),
        "cells": Cell.objects.filter(row__candidate__evaluation=evaluation).count(),
    }


def poll_run(evaluation):
    """A report run of the evaluation that is rendering (its list page polls while one is),
    with a real snapshot; made if there is none, put back to rendering if it finished."""
    from django.utils import timezone

    from reports import sections
    from reports.models import ReportRun, RunStatus
    from reports.snapshot import build_snapshot, snapshot_sha256

    run = ReportRun.objects.filter(evaluation=evaluation).order_by("-pk").first()
    if run is None:
        snapshot = build_snapshot(
            evaluation, language="en", generated_at=timezone.now().isoformat()
        )
        run = ReportRun.objects.create(
            evaluation=evaluation,
            requested_by=evaluation.created_by,
            language="en",
            sections=list(sections.ALL),
            snapshot=snapshot,
            snapshot_sha256=snapshot_sha256(snapshot),
        )
    ReportRun.objects.filter(pk=run.pk).update(
        status=RunStatus.RENDERING, progress=40, started_at=timezone.now(), finished_at=None
    )
    return run


def large_evaluation():
    """The large evaluation, or None when the data is not there."""
    from evaluations.models import Evaluation

    return Evaluation.objects.filter(title=LARGE_TITLE, created_by__username=OWNER).first()
