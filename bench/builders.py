"""What the benches share to build a large evaluation: its own POC cases, and every reviewer's
score on every cell with a few disagreements settled by consensus. Both benches measure the same
shape of evaluation (bench/report_render.py, and the large one of bench/scale_data.py)."""

from __future__ import annotations

from decimal import Decimal


def add_custom_cases(owner, evaluation, groups, count: int, topics, steps: str) -> list:
    """`count` own cases spread over `groups`, titled from `topics` ((title, acceptance with
    {n}) pairs), every third with a metric; returns every case of the plan in order."""
    from poc import services as poc
    from poc.models import Direction

    for n in range(count):
        title, acceptance = topics[n % len(topics)]
        metric = n % 3 == 0
        poc.plan_case_add_custom(
            user=owner,
            evaluation=evaluation,
            group=groups[n % len(groups)],
            title=f"{title}（场景 {n + 1}）",
            acceptance=acceptance.format(n=5 + n % 7),
            steps=steps,
            weight=Decimal(2 + n % 4),
            metric_name="恢复耗时" if metric else "",
            metric_unit="s" if metric else "",
            metric_direction=Direction.LOWER if metric else "",
            metric_threshold=Decimal(60 + 10 * (n % 5)) if metric else None,
        )
    return list(evaluation.poc_cases.order_by("group__order", "order", "pk"))


def score_every_cell(owner, cases, candidates, reviewers, rng, notes, *, batch_size: int) -> int:
    """Every reviewer's submitted score on every case of every candidate, written in bulk; about
    8% of the cells have a reviewer far off, and six of those get a consensus. Returns the
    number of scores."""
    from django.db import transaction
    from django.utils import timezone

    from poc import services as poc
    from poc.models import Outcome, Score

    now = timezone.now()
    quality = {c.pk: rng.uniform(2.0, 4.5) for c in candidates}
    rows, disagreeing = [], []
    for case in cases:
        for c in candidates:
            base = quality[c.pk] + rng.uniform(-1.0, 1.0)
            outlier = rng.random() < 0.08
            if outlier:
                disagreeing.append((case, c))
            for j, reviewer in enumerate(reviewers):
                value = base + rng.uniform(-0.5, 0.5) + (2.0 if outlier and j == 2 else 0)
                value = Decimal(round(min(5.0, max(0.0, value)) * 2) / 2).quantize(Decimal("0.1"))
                rows.append(
                    Score(
                        case=case,
                        candidate=c,
                        reviewer=reviewer,
                        score=value,
                        outcome=Outcome.PASSED if value >= 3 else Outcome.FAILED,
                        notes=rng.choice(notes),
                        submitted_at=now,
                    )
                )
    with transaction.atomic():
        Score.objects.bulk_create(rows, batch_size=batch_size)
    for case, c in disagreeing[:6]:
        poc.consensus_record(
            user=owner,
            case=case,
            candidate=c,
            score="3.5",
            reason="评审会讨论后一致认为：第三位评审的环境配置有误，以复测结果为准。",
            expected_version=None,
        )
    return len(rows)


def fill_candidates(owner, evaluation, candidates, explanation: str) -> None:
    """Five answers (`explanation` formatted with {who} and {n}), a prefilled matrix and cost
    inputs for every candidate, and the evaluation's cost settings."""
    from evaluations import services as ev
    from evaluations.models import Assessment, BudgetFocus, FiveQuestion
    from responsibility import services as resp

    parties = ["internal", "vendor", "cloud", "business"]
    budgets = [BudgetFocus.PEOPLE, BudgetFocus.SOFTWARE, BudgetFocus.BOTH]
    assessments = [Assessment.YES, Assessment.PARTLY, Assessment.NO, Assessment.YES]
    questions = list(FiveQuestion.objects.filter(is_active=True))
    for n, c in enumerate(candidates):
        for i, q in enumerate(questions):
            party = parties[(n + i) % len(parties)]
            ev.answer_save(
                user=owner,
                candidate=c,
                question=q,
                parties=[party],
                assessment=assessments[(n * 2 + i) % len(assessments)],
                budget=budgets[(n + i) % len(budgets)],
                explanation=explanation.format(who=party, n=i + 1),
                evidence_url=f"https://wiki.example.test/eval/{c.pk}/{q.key}",
                expected_version=None,
            )
        resp.matrix_prefill(user=owner, candidate=c)
        resp.cost_input_save(
            user=owner,
            candidate=c,
            expected_version=None,
            licence_per_year=Decimal(120000 + 35000 * n),
            vendor_services_per_year=Decimal(40000 + 5000 * (n % 3)),
            gpu_count=8 * (n % 3),
            gpu_hours_per_year=Decimal(2000 if n % 3 else 0),
            gpu_price_per_hour=Decimal("18.50"),
            utilisation=Decimal("0.65"),
            hardware_one_off=Decimal(800000 if n % 2 else 0),
            hardware_per_year=Decimal(60000 if n % 2 else 0),
            one_off=Decimal(50000 + 10000 * n),
        )
    resp.cost_settings_save(
        user=owner,
        evaluation=evaluation,
        expected_version=None,
        years=5,
        currency="CNY",
        fte_cost_per_year=Decimal("450000"),
    )


def create_evaluation(owner, title: str, reviewers: list, viewer):
    """The benches' evaluation before its candidates: training and inference, every hard
    constraint, its reviewers and a viewer, and every context question answered."""
    from catalog.models import Scenario
    from evaluations import services as ev
    from evaluations.models import AnswerValue, ContextQuestion, MemberRole

    evaluation = ev.evaluation_create(
        user=owner,
        title=title,
        organisation="AI 平台部",
        scenarios=Scenario.objects.filter(slug__in=["training", "inference"]),
        private_deployment_required=True,
        compliance_required=True,
        localisation_required=True,
        plans_hybrid=True,
        unified_view_owner="平台架构组",
        notes="本次评估覆盖训练与推理两类负载，重点关注国产化与多租户治理。",
    )
    for user in reviewers:
        ev.member_add(user=owner, evaluation=evaluation, member=user, role=MemberRole.REVIEWER)
    ev.member_add(user=owner, evaluation=evaluation, member=viewer, role=MemberRole.VIEWER)
    for i, q in enumerate(ContextQuestion.objects.filter(is_active=True)):
        value = [AnswerValue.YES, AnswerValue.NO, AnswerValue.UNKNOWN][i % 3]
        ev.context_answer_save(
            user=owner,
            evaluation=evaluation,
            question=q,
            value=value,
            detail="见附件说明" if value == AnswerValue.YES else "",
            expected_version=None,
        )
    return evaluation
