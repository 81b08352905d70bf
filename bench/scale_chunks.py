"""The bulk evaluations of bench/scale_data.py: every row of a few evaluations at a time, written
with bulk_create (so they carry no history records), in one transaction per chunk."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from bench.scale_shapes import (
    CUSTOM_CASES,
    EXPLANATION,
    NOTES,
    PARTY_KEYS,
    STACKS,
    STEPS,
    TEAMS,
    TEN,
    TITLES,
    VIEWER,
    Shape,
    prefill,
)


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
