"""Realistic scale for the list and tab benches: many evaluations in the database DATABASE_URL
names, with what real organisations accumulate in them.

By default 1,000 evaluations holding at least 200,000 submitted POC scores and about 400,000
responsibility-matrix cells, their cost settings and inputs, five-question and context answers,
memberships, some consensus scores, decisions and status changes. One of them is the large
evaluation (8 candidates × 60 cases × 3 reviewers, as bench/report_render.py builds): it goes
through the services, so it also has its change history and a report run; the others are
written with bulk_create (so they carry no history records) in chunks, one transaction each.

Users (all "scale-*", unusable passwords: the bench signs them in with sessions):

* scale-viewer  procurement, a viewer of every evaluation;
* scale-ten     procurement, a viewer of exactly ten;
* scale-owner   tech lead, the owner of thirty (the large evaluation among them);
* scale-lead-NN tech leads owning the rest; scale-reviewer-NN reviewers scoring them.

    DATABASE_URL=postgres://... .venv/bin/python bench/scale_data.py [--evaluations 1000]
        [--scores 200000] [--reset | --drop]

It refuses to add to an earlier run's data: --reset drops the bench's rows (every evaluation a
scale-* user created, their history records and the scale-* users) and generates again; --drop
only drops them. The seeded content (`manage.py seed`) is loaded first; nothing else is
touched. Import it to call `generate()`, `drop()` or `large_evaluation()` from another script.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.builders import add_custom_cases, fill_candidates, score_every_cell  # noqa: E402

PREFIX = "scale-"
VIEWER = "scale-viewer"
TEN = "scale-ten"
OWNER = "scale-owner"
LARGE_TITLE = "Scale bench: large evaluation (8 candidates × 60 cases × 3 reviewers)"
OWNED = 30  # evaluations scale-owner owns, the large one included
TEN_COUNT = 10
LEADS = 20
REVIEWERS = 30
CHUNK = 50  # evaluations per transaction
SEED = 20270315


@dataclass(frozen=True)
class LargeShape:
    candidates: int = 8  # the seeded solutions and one stack; at most 8
    cases: int = 60  # the library cases first, then cases of its own
    reviewers: int = 3


@dataclass
class Shape:
    """What one bulk evaluation holds, decided before anything is written."""

    index: int
    status: str
    owner: object
    reviewers: list
    solutions: list  # single candidates
    stack: tuple | None  # one entry of STACKS, or None
    eliminated: int  # how many of the singles are eliminated (never the first)
    library_cases: list
    custom_cases: int
    scored_cases: int  # the first n cases are scored by every reviewer for every candidate
    editor: object | None = None
    with_ten: bool = False
    counts: dict = field(default_factory=dict)

    @property
    def cases(self) -> int:
        return len(self.library_cases) + self.custom_cases


# Stacks: (name, {role: solution slug}, main role).
STACKS = [
    ("Volcano + Run:ai", {"batch_queue": "volcano", "governance": "runai"}, "governance"),
    (
        "Slurm + 企业容器平台",
        {"execution": "slurm", "governance": "enterprise-container-platform"},
        "governance",
    ),
    (
        "Kubernetes + cloud burst",
        {"execution": "kubernetes-gpu", "burst": "cloud-managed-gpu"},
        "execution",
    ),
]
TITLES = [
    "GPU 算力调度平台选型",
    "Training cluster scheduler",
    "推理服务平台选型",
    "Research HPC queue replacement",
    "企业 AI 平台治理",
    "Hybrid GPU capacity",
    "国产加速卡调度评估",
    "Inference autoscaling platform",
]
TEAMS = ["AI 平台部", "Platform engineering", "研究院计算中心", "Data science", "基础架构组"]
CUSTOM_CASES = [
    ("国产加速卡混部下的分布式训练", "连续 {n} 小时无掉卡，吞吐下降不超过 5%。"),
    ("Quota borrowing at peak", "Borrowed quota is reclaimed within {n} minutes."),
    ("推理服务灰度发布与回滚", "10% 流量灰度，异常时 {n} 分钟内自动回滚且无请求丢失。"),
    ("Failed GPU node isolation", "A failed node is cordoned within {n} minutes."),
    ("按部门的成本分摊报表", "报表按部门、项目、用户三级汇总，与账单误差小于 {n}%。"),
    ("Audit log export", "Every submission and quota change is logged for {n} days."),
    ("长周期作业的检查点与续跑", "中断后从最近检查点续跑，损失不超过 {n} 分钟的训练进度。"),
    ("Hybrid burst to the cloud", "Cloud nodes join within {n} minutes when local GPUs run out."),
]
STEPS = (
    "1. 准备测试租户与配额；\n2. 按脚本提交作业并记录时间戳；\n"
    "3. 注入故障或负载；\n4. 比对验收标准。"
)
NOTES = ["符合预期。", "Needs the vendor to explain.", "有一次重试。", "Logs complete.", "", ""]
EXPLANATION = (
    "由{who}负责，已在测试环境验证，并核对了厂商文档与现场演示记录；"
    "故障分诊流程、联系人和响应时限已写入运维手册（第 {n} 节）。"
)
PARTY_KEYS = ["internal", "vendor", "cloud", "business", "security"]
STATUSES = ["draft"] * 15 + ["poc"] * 55 + ["decided"] * 22 + ["archived"] * 8


# --- users -----------------------------------------------------------------------------------


def scale_users():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(username__startswith=PREFIX)


def make_users() -> dict:
    """The bench's users with their roles (bulk: no password hashing)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from common import roles

    User = get_user_model()
    people = [
        (VIEWER, roles.PROCUREMENT, "Viewer", "采购"),
        (TEN, roles.PROCUREMENT, "Ten", "采购"),
        (OWNER, roles.TECH_LEAD, "Owner", "陈"),
        *[(f"scale-lead-{n:02d}", roles.TECH_LEAD, f"Lead {n}", "李") for n in range(1, LEADS + 1)],
        *[
            (f"scale-reviewer-{n:02d}", roles.REVIEWER, f"Reviewer {n}", "王")
            for n in range(1, REVIEWERS + 1)
        ],
    ]
    users = []
    for username, _role, first, last in people:
        user = User(username=username, first_name=first, last_name=last)
        user.set_unusable_password()
        users.append(user)
    User.objects.bulk_create(users)
    users = {u.username: u for u in User.objects.filter(username__in=[p[0] for p in people])}
    groups = {g.name: g for g in Group.objects.filter(name__in=roles.ROLES)}
    Through = User.groups.through
    Through.objects.bulk_create(
        Through(user_id=users[username].pk, group_id=groups[role].pk)
        for username, role, _first, _last in people
    )
    return users


# --- plans -----------------------------------------------------------------------------------


def plan_shapes(count: int, scores: int, users: dict, reference: dict, rng) -> list[Shape]:
    """The shapes of `count` bulk evaluations whose submitted scores add up to at least
    `scores` (cases are added, scored, to random evaluations until they do)."""
    solutions = reference["solutions"]
    library = reference["library"]
    leads = [u for name, u in sorted(users.items()) if name.startswith("scale-lead-")]
    reviewers = [u for name, u in sorted(users.items()) if name.startswith("scale-reviewer-")]
    owned = max(0, min(OWNED - 1, count))  # the large evaluation is scale-owner's too
    ten = set(range(0, count, max(1, count // TEN_COUNT))[:TEN_COUNT])
    shapes = []
    for i in range(count):
        status = rng.choice(STATUSES)
        n_single = min(len(solutions), rng.choice([2, 3, 3, 4, 4, 5, 5, 5, 6, 6, 7, 7]))
        n_library = rng.randint(8, len(library)) if status != "draft" else 0
        n_custom = rng.randint(0, 12) if status != "draft" else 0
        n_cases = n_library + n_custom
        # In POC a part of the cases is scored; decided and archived: all; draft: no plan.
        scored = rng.randint(n_cases // 3, n_cases) if status == "poc" else n_cases
        owner = users[OWNER] if i < owned else leads[i % len(leads)]
        others = [u for u in leads if u != owner]
        shapes.append(
            Shape(
                index=i,
                status=status,
                owner=owner,
                reviewers=rng.sample(reviewers, rng.choice([2, 3, 3])),
                solutions=rng.sample(solutions, n_single),
                stack=rng.choice(STACKS) if rng.random() < 0.15 else None,
                eliminated=rng.choice([0, 0, 1]) if status in ("decided", "archived") else 0,
                library_cases=sorted(rng.sample(library, n_library), key=lambda c: c.order),
                custom_cases=n_custom,
                scored_cases=scored,
                editor=rng.choice(others) if rng.random() < 0.2 else None,
                with_ten=i in ten,
            )
        )
    total = sum(submitted(s) for s in shapes)
    scorable = [s for s in shapes if s.status != "draft"]
    while total < scores and scorable:
        s = rng.choice(scorable)
        before = submitted(s)
        if s.scored_cases < s.cases:
            s.scored_cases += 1
        else:
            s.custom_cases += 1
            s.scored_cases += 1
        total += submitted(s) - before
    return shapes


def scored_candidates(shape: Shape) -> int:
    return len(shape.solutions) - shape.eliminated + (1 if shape.stack else 0)


def submitted(shape: Shape) -> int:
    if shape.status == "draft":
        return 0
    return shape.scored_cases * scored_candidates(shape) * len(shape.reviewers)


# --- bulk evaluations ------------------------------------------------------------------------


def reference_data() -> dict:
    from catalog.models import Scenario, Solution
    from evaluations.models import ContextQuestion, FiveQuestion
    from poc.models import TestCase, TestGroup
    from responsibility.models import Area, Party

    return {
        "solutions": list(
            Solution.objects.filter(is_active=True).select_related("solution_type").order_by("pk")
        ),
        "scenarios": list(Scenario.objects.order_by("pk")),
        "context_questions": list(ContextQuestion.objects.filter(is_active=True)),
        "five_questions": list(FiveQuestion.objects.filter(is_active=True)),
        "library": list(TestCase.objects.filter(is_active=True).select_related("group")),
        "groups": list(TestGroup.objects.order_by("order", "pk")),
        "areas": list(Area.objects.filter(is_active=True).order_by("group__order", "order")),
        "parties": {p.key: p for p in Party.objects.filter(evaluation=None)},
        "prefill": {},  # type slug or stack name -> (letters, effort), filled as needed
    }


def prefill(reference: dict, candidate) -> tuple[dict, dict]:
    """The starting letters for a candidate, computed once per type or stack combination."""
    from responsibility.services import prefill_for_candidate

    key = candidate.stack_name or candidate.solution.solution_type.slug
    if key not in reference["prefill"]:
        reference["prefill"][key] = prefill_for_candidate(candidate)
    return reference["prefill"][key]


class ChunkWriter:
    """Every row of a few bulk evaluations, model by model with bulk_create (one INSERT per
    model and batch), in one transaction. Each step reads the primary keys the one before it
    got back from the database."""

    def __init__(self, shapes: list[Shape], users: dict, reference: dict, rng, now):
        self.shapes = shapes
        self.users = users
        self.reference = reference
        self.rng = rng
        self.now = now
        self.by_slug = {s.slug: s for s in reference["solutions"]}
        self.counts = dict.fromkeys(
            ["evaluations", "candidates", "scores", "draft_scores", "rows", "cells", "consensus"], 0
        )

    def write(self) -> dict:
        from django.db import transaction

        with transaction.atomic():
            self.evaluations()
            self.members_and_context()
            self.candidates()
            self.answers_costs_and_matrices()
            self.plans()
            self.scores()
            self.decisions()
            self.spread_dates()
        return self.counts

    def evaluations(self) -> None:
        from evaluations.models import Evaluation

        rng, evaluations = self.rng, []
        for s in self.shapes:
            decided_type = s.status != "draft" and rng.random() < 0.6
            evaluations.append(
                Evaluation(
                    title=f"{TITLES[s.index % len(TITLES)]} #{s.index + 1:04d}",
                    organisation=TEAMS[s.index % len(TEAMS)],
                    localisation_required=rng.random() < 0.4,
                    plans_hybrid=rng.random() < 0.25,
                    unified_view_owner="平台架构组" if rng.random() < 0.5 else "",
                    notes="Generated for the scale bench." if s.index % 3 == 0 else "",
                    main_type=s.solutions[0].solution_type if decided_type else None,
                    main_type_reason="团队已有该类平台的运维经验。" if decided_type else "",
                    status=s.status,
                    created_by=s.owner,
                )
            )
        Evaluation.objects.bulk_create(evaluations)
        self.counts["evaluations"] = len(evaluations)
        self.pairs = list(zip(self.shapes, evaluations, strict=True))
        Scenarios = Evaluation.scenarios.through
        Scenarios.objects.bulk_create(
            Scenarios(evaluation_id=e.pk, scenario_id=sc.pk)
            for _s, e in self.pairs
            for sc in rng.sample(self.reference["scenarios"], rng.choice([1, 1, 2]))
        )

    def members_and_context(self) -> None:
        from evaluations.models import AnswerValue, ContextAnswer, MemberRole, Membership

        members, answers = [], []
        viewer, ten = self.users[VIEWER], self.users[TEN]
        values = [AnswerValue.YES, AnswerValue.NO, AnswerValue.NO, AnswerValue.UNKNOWN]
        for s, e in self.pairs:
            members.append(Membership(evaluation=e, user=s.owner, role=MemberRole.OWNER))
            members.append(Membership(evaluation=e, user=viewer, role=MemberRole.VIEWER))
            if s.with_ten:
                members.append(Membership(evaluation=e, user=ten, role=MemberRole.VIEWER))
            if s.editor is not None:
                members.append(Membership(evaluation=e, user=s.editor, role=MemberRole.EDITOR))
            members += [
                Membership(evaluation=e, user=r, role=MemberRole.REVIEWER) for r in s.reviewers
            ]
            questions = self.reference["context_questions"]
            if s.status == "draft":
                questions = questions[: self.rng.randint(3, len(questions))]
            for q in questions:
                value = self.rng.choice(values)
                answers.append(
                    ContextAnswer(
                        evaluation=e,
                        question=q,
                        value=value,
                        detail="见附件说明" if value == AnswerValue.YES and q.detail_label else "",
                        updated_by=s.owner,
                    )
                )
        Membership.objects.bulk_create(members)
        ContextAnswer.objects.bulk_create(answers)

    def candidates(self) -> None:
        from evaluations.models import Candidate, CandidateLayer, CandidateOrigin, CandidateStatus

        candidates = []
        for s, e in self.pairs:
            for n, solution in enumerate(s.solutions):
                out = 0 < n <= s.eliminated
                candidates.append(
                    Candidate(
                        evaluation=e,
                        solution=solution,
                        status=CandidateStatus.ELIMINATED if out else CandidateStatus.SHORTLISTED,
                        origin=CandidateOrigin.MANUAL,
                        reason=f"纳入比较：{solution.name_zh_hans or solution.name}",
                        elimination_reason="不满足私有化部署要求。" if out else "",
                        eliminated_by=s.owner if out else None,
                        eliminated_at=self.now if out else None,
                        added_by=s.owner,
                    )
                )
            if s.stack:
                name, roles, main = s.stack
                candidates.append(
                    Candidate(
                        evaluation=e,
                        solution=self.by_slug[roles[main]],
                        stack_name=name,
                        origin=CandidateOrigin.MANUAL,
                        reason="开源调度在下，企业平台在上：统一视图、权限与审计。",
                        added_by=s.owner,
                    )
                )
        Candidate.objects.bulk_create(candidates)
        self.counts["candidates"] = len(candidates)
        layers = []
        for c in candidates:
            if c.stack_name:
                roles = next(r for name, r, _main in STACKS if name == c.stack_name)
                layers += [
                    CandidateLayer(candidate=c, solution=self.by_slug[slug], role=role)
                    for role, slug in roles.items()
                ]
        CandidateLayer.objects.bulk_create(layers)
        self.candidates_of = {}
        for c in candidates:
            self.candidates_of.setdefault(c.evaluation_id, []).append(c)

    def answers_costs_and_matrices(self) -> None:
        from evaluations.models import Assessment, BudgetFocus, CandidateStatus, QuestionAnswer
        from responsibility.models import AreaRow, Cell, CostInput, CostSettings

        rng, reference = self.rng, self.reference
        five, costs, settings, rows = [], [], [], []
        assessments = [Assessment.YES, Assessment.PARTLY, Assessment.NO, Assessment.YES]
        budgets = [BudgetFocus.PEOPLE, BudgetFocus.SOFTWARE, BudgetFocus.BOTH]
        for s, e in self.pairs:
            draft = s.status == "draft"
            if not draft or rng.random() < 0.5:
                settings.append(
                    CostSettings(
                        evaluation=e,
                        years=rng.choice([3, 3, 5]),
                        currency="CNY",
                        fte_cost_per_year=Decimal(rng.choice([450000, 600000, 720000])),
                    )
                )
            for n, c in enumerate(self.candidates_of[e.pk]):
                for i, q in enumerate(reference["five_questions"]):
                    if draft and rng.random() < 0.5:
                        continue
                    party = PARTY_KEYS[(n + i) % 4]
                    five.append(
                        QuestionAnswer(
                            candidate=c,
                            question=q,
                            parties=[party] if q.scale == "parties" else [],
                            assessment=assessments[(n + i) % 4]
                            if q.scale == "assessment"
                            else Assessment.UNKNOWN,
                            budget=budgets[(n + i) % 3]
                            if q.scale == "budget"
                            else BudgetFocus.UNKNOWN,
                            explanation=EXPLANATION.format(who=party, n=i + 1),
                            updated_by=s.owner,
                        )
                    )
                costs.append(
                    CostInput(
                        candidate=c,
                        licence_per_year=Decimal(rng.choice([0, 0, 120000, 250000])),
                        vendor_services_per_year=Decimal(rng.choice([0, 40000, 60000])),
                        gpu_count=rng.choice([0, 0, 8, 16]),
                        gpu_hours_per_year=Decimal(rng.choice([0, 2000, 4000])),
                        gpu_price_per_hour=Decimal("18.50"),
                        utilisation=Decimal("0.65"),
                        one_off=Decimal(50000 + 10000 * n),
                    )
                )
                # Matrices: every shortlisted candidate's once the POC runs, about half before.
                eliminated = c.status != CandidateStatus.SHORTLISTED
                if (eliminated or draft) and rng.random() < 0.5:
                    continue
                letters, effort = prefill(reference, c)
                for area in reference["areas"]:
                    if area.stack_only and not c.stack_name:
                        continue
                    row_letters = dict(letters.get(area.key, {}))
                    if row_letters and rng.random() < 0.03:  # a gap someone has not closed yet
                        row_letters.pop(next(iter(row_letters)))
                    row = AreaRow(candidate=c, area=area, internal_fte=effort.get(area.key, 0))
                    rows.append((row, row_letters))
        CostSettings.objects.bulk_create(settings)
        QuestionAnswer.objects.bulk_create(five, batch_size=2000)
        CostInput.objects.bulk_create(costs, batch_size=2000)
        AreaRow.objects.bulk_create([row for row, _letters in rows], batch_size=2000)
        parties = reference["parties"]
        cells = [
            Cell(row=row, party=parties[key], letter=letter)
            for row, row_letters in rows
            for key, letter in row_letters.items()
            if key in parties
        ]
        Cell.objects.bulk_create(cells, batch_size=5000)
        self.counts["rows"], self.counts["cells"] = len(rows), len(cells)

    def plans(self) -> None:
        from poc.models import PlanCase, PlanGroup

        groups, cases = [], []
        test_groups = self.reference["groups"]
        for s, e in self.pairs:
            if s.status == "draft":
                continue
            groups += [
                PlanGroup(evaluation=e, group=g, weight=g.default_weight) for g in test_groups
            ]
            for order, lib in enumerate(s.library_cases):  # as poc.services.plan_init copies them
                cases.append(
                    PlanCase(
                        evaluation=e,
                        group=lib.group,
                        source_case=lib,
                        title="",
                        acceptance="",
                        weight=lib.default_weight,
                        order=order,
                        metric_unit=lib.metric_unit,
                        metric_direction=lib.metric_direction,
                        metric_threshold=lib.metric_threshold,
                        metric_good=lib.metric_good,
                        metric_excellent=lib.metric_excellent,
                    )
                )
            for n in range(s.custom_cases):
                title, acceptance = CUSTOM_CASES[n % len(CUSTOM_CASES)]
                cases.append(
                    PlanCase(
                        evaluation=e,
                        group=test_groups[n % len(test_groups)],
                        title=f"{title} ({n + 1})",
                        acceptance=acceptance.format(n=5 + n % 7),
                        steps=STEPS,
                        weight=Decimal(2 + n % 4),
                        order=100 + n,
                    )
                )
        PlanGroup.objects.bulk_create(groups)
        PlanCase.objects.bulk_create(cases, batch_size=2000)
        self.cases_of = {}
        for case in cases:
            self.cases_of.setdefault(case.evaluation_id, []).append(case)

    def scores(self) -> None:
        """The first `scored_cases` cases scored by every reviewer for every shortlisted
        candidate; in the case after them one reviewer's drafts. About 4% of the cells have a
        reviewer far off; decided evaluations settled those with a consensus."""
        from evaluations.models import CandidateStatus
        from poc.models import Consensus, Outcome, Score

        rng, scores, consensus = self.rng, [], []
        for s, e in self.pairs:
            if s.status == "draft":
                continue
            shortlisted = [
                c for c in self.candidates_of[e.pk] if c.status == CandidateStatus.SHORTLISTED
            ]
            quality = {c.pk: rng.uniform(2.0, 4.5) for c in shortlisted}
            when = self.now - timedelta(days=rng.randint(1, 700))
            for k, case in enumerate(self.cases_of[e.pk][: s.scored_cases + 1]):
                draft = k == s.scored_cases  # the case under way
                for c in shortlisted:
                    base = quality[c.pk] + rng.uniform(-1.0, 1.0)
                    outlier = not draft and rng.random() < 0.04
                    for j, reviewer in enumerate(s.reviewers[:1] if draft else s.reviewers):
                        value = base + rng.uniform(-0.5, 0.5) + (2.0 if outlier and j == 1 else 0)
                        value = Decimal(round(min(5.0, max(0.0, value)) * 2) / 2)
                        scores.append(
                            Score(
                                case=case,
                                candidate=c,
                                reviewer=reviewer,
                                score=value.quantize(Decimal("0.1")),
                                outcome=Outcome.PASSED if value >= 3 else Outcome.FAILED,
                                notes=rng.choice(NOTES),
                                submitted_at=None if draft else when,
                            )
                        )
                    if outlier and s.status in ("decided", "archived"):
                        consensus.append(
                            Consensus(
                                case=case,
                                candidate=c,
                                score=Decimal("3.5"),
                                reason="评审会讨论后以复测结果为准。",
                                decided_by=s.owner,
                            )
                        )
        Score.objects.bulk_create(scores, batch_size=5000)
        Consensus.objects.bulk_create(consensus)
        self.counts["scores"] = sum(1 for x in scores if x.submitted_at is not None)
        self.counts["draft_scores"] = len(scores) - self.counts["scores"]
        self.counts["consensus"] = len(consensus)

    def decisions(self) -> None:
        """The status changes that led here; decided and archived ones chose a candidate."""
        from evaluations.models import CandidateStatus, Decision, StatusChange

        steps = {"draft": [], "poc": ["poc"], "decided": ["poc", "decided"]}
        steps["archived"] = [*steps["decided"], "archived"]
        decisions, changes = [], []
        for s, e in self.pairs:
            previous = "draft"
            for step in steps[s.status]:
                changes.append(
                    StatusChange(
                        evaluation=e, from_status=previous, to_status=step, changed_by=s.owner
                    )
                )
                previous = step
            if s.status in ("decided", "archived"):
                decisions.append(
                    Decision(
                        evaluation=e,
                        rationale="综合 POC 结果、责任矩阵与五年总拥有成本，评审委员会一致同意。",
                        decided_on=(self.now - timedelta(days=self.rng.randint(1, 600))).date(),
                        decided_by="技术评审委员会",
                        recorded_by=s.owner,
                    )
                )
        StatusChange.objects.bulk_create(changes)
        Decision.objects.bulk_create(decisions)
        Chosen = Decision.chosen.through
        Chosen.objects.bulk_create(
            Chosen(
                decision_id=d.pk,
                candidate_id=next(
                    c.pk
                    for c in self.candidates_of[d.evaluation_id]
                    if c.status == CandidateStatus.SHORTLISTED
                ),
            )
            for d in decisions
        )

    def spread_dates(self) -> None:
        """Over two years, so the lists' order (newest change first) means something."""
        from evaluations.models import Evaluation

        for s, e in self.pairs:
            updated = self.now - timedelta(days=self.rng.randint(0, 700), minutes=s.index)
            Evaluation.objects.filter(pk=e.pk).update(
                created_at=updated - timedelta(days=self.rng.randint(0, 90)), updated_at=updated
            )


# --- the large evaluation ---------------------------------------------------------------------


def make_large(users: dict, shape: LargeShape, rng) -> tuple[object, dict]:
    """The large evaluation, through the services (history included), scores in bulk."""

    from catalog.models import Scenario, Solution
    from evaluations import services as ev
    from evaluations.models import (
        AnswerValue,
        ContextQuestion,
        MemberRole,
        Status,
    )
    from poc import services as poc
    from poc.models import Evidence, Score, TestCase, TestGroup

    if not 2 <= shape.candidates <= 8:
        raise ValueError("the large evaluation has 2 to 8 candidates (7 solutions and a stack)")
    owner = users[OWNER]
    reviewers = [users[f"scale-reviewer-{n:02d}"] for n in range(1, shape.reviewers + 1)]
    evaluation = ev.evaluation_create(
        user=owner,
        title=LARGE_TITLE,
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
    ev.member_add(user=owner, evaluation=evaluation, member=users[VIEWER], role=MemberRole.VIEWER)
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


# --- generate and drop -------------------------------------------------------------------------


class AlreadyGenerated(Exception):
    pass


def generate(
    evaluations: int = 1000,
    scores: int = 200_000,
    *,
    large: LargeShape | None = LargeShape(),
    seed: int = SEED,
    load_seed: bool = True,
    log=print,
) -> dict:
    """Generate the bench's evaluations (the large one among them unless `large` is None) and
    return what was written. Refuses (AlreadyGenerated) when scale-* users exist. `load_seed`:
    load the seeded content first (`manage.py seed`; skip it where it is loaded already)."""
    from django.utils import timezone

    from common.seeding import seed_all

    if scale_users().exists():
        raise AlreadyGenerated(
            "The scale data is already there (scale-* users exist): use it, or drop it first "
            "(bench/scale_data.py --reset, or --drop)."
        )
    started = time.perf_counter()
    rng = random.Random(seed)
    if load_seed:
        seed_all()
    users = make_users()
    reference = reference_data()
    bulk = evaluations - (1 if large else 0)
    shapes = plan_shapes(
        bulk, max(0, scores - (_large_scores(large) if large else 0)), users, reference, rng
    )
    totals: dict[str, int] = {}
    now = timezone.now()
    for start in range(0, len(shapes), CHUNK):
        counts = ChunkWriter(shapes[start : start + CHUNK], users, reference, rng, now).write()
        for key, n in counts.items():
            totals[key] = totals.get(key, 0) + n
        log(
            f"  {totals['evaluations']:>5} evaluations, {totals['scores']:,} scores, "
            f"{totals['cells']:,} cells ({time.perf_counter() - started:.0f} s)"
        )
    if large:
        evaluation, counts = make_large(users, large, rng)
        totals["evaluations"] = totals.get("evaluations", 0) + 1
        totals["scores"] = totals.get("scores", 0) + counts["scores"]
        for key in ("candidates", "rows", "cells"):
            totals[key] = totals.get(key, 0) + counts[key]
        totals["large_evaluation"] = evaluation.pk
        log(f"  large evaluation {evaluation.pk}: {counts} ({time.perf_counter() - started:.0f} s)")
    analyze()
    totals["seconds"] = round(time.perf_counter() - started, 1)
    return totals


def analyze() -> None:
    """Refresh the planner's statistics after the bulk load, as autovacuum would soon after:
    measured straight after a load of this size, PostgreSQL plans the reminders' aggregates as
    scans of every score (about 90 ms instead of 3 ms)."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def _large_scores(shape: LargeShape) -> int:
    return shape.candidates * shape.cases * shape.reviewers


@contextmanager
def delete_signals_muted():
    """Delete without the per-row signals: django-simple-history would otherwise load and
    record every deleted score and cell, and Django could not delete in bulk."""
    from django.db.models import signals

    muted = [signals.pre_delete, signals.post_delete, signals.m2m_changed]
    saved = [(s, s.receivers) for s in muted]
    try:
        for s in muted:
            s.receivers = []
            s.sender_receivers_cache.clear()
        yield
    finally:
        for s, receivers in saved:
            s.receivers = receivers
            s.sender_receivers_cache.clear()


def drop(log=print) -> int:
    """Drop every evaluation a scale-* user created, the history records those users wrote,
    and the users. Returns how many evaluations were dropped."""
    from django.db import transaction
    from simple_history.models import registered_models

    from evaluations.models import Evaluation

    users = scale_users()
    ids = list(Evaluation.objects.filter(created_by__in=users).values_list("pk", flat=True))
    with transaction.atomic(), delete_signals_muted():
        for start in range(0, len(ids), CHUNK):
            Evaluation.objects.filter(pk__in=ids[start : start + CHUNK]).delete()
        user_ids = list(users.values_list("pk", flat=True))
        for model in registered_models.values():
            history = getattr(model, "history", None)  # m2m tables are registered too
            if history is not None:
                history.filter(history_user_id__in=user_ids).delete()
        users.delete()
    log(f"dropped {len(ids)} evaluations and the scale-* users")
    return len(ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--evaluations", type=int, default=1000)
    parser.add_argument("--scores", type=int, default=200_000, help="submitted scores, at least")
    parser.add_argument("--reset", action="store_true", help="drop the bench's rows, then generate")
    parser.add_argument("--drop", action="store_true", help="drop the bench's rows only")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    os.environ.setdefault("DJANGO_DEBUG", "false")  # no query log kept in memory
    if "DATABASE_URL" not in os.environ:
        sys.exit("Set DATABASE_URL to the database to fill (e.g. postgres://.../shortlist_scale).")

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    if args.reset or args.drop:
        drop()
    if args.drop:
        return
    print(f"generating into {connection.vendor} database {connection.settings_dict['NAME']}")
    try:
        totals = generate(args.evaluations, args.scores)
    except AlreadyGenerated as exc:
        sys.exit(str(exc))
    print(
        f"{totals['evaluations']:,} evaluations, {totals['candidates']:,} candidates, "
        f"{totals['scores']:,} submitted scores (+{totals['draft_scores']:,} drafts), "
        f"{totals['rows']:,} matrix rows, {totals['cells']:,} cells, {totals['consensus']} "
        f"consensus; large evaluation {totals.get('large_evaluation')}; {totals['seconds']} s"
    )


if __name__ == "__main__":
    main()
