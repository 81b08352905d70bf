"""Write one demo evaluation through the services, acting as the demo users.

Every language's demo is built the same way from data.py; only the texts differ (texts.py). The
catalog's own texts (solution names in the rationale) are read in the demo's language."""

from __future__ import annotations

import random
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.utils import timezone, translation

from catalog.models import Scenario, Solution
from common.roles import user_roles
from common.services import generate_password, user_create
from evaluations import services as evaluation_services
from evaluations.models import (
    Assessment,
    BudgetFocus,
    ContextQuestion,
    Evaluation,
    FiveQuestion,
    MemberRole,
)
from evaluations.selectors import shortlist_suggest
from poc import conflicts as poc_conflicts
from poc import scoring as poc_scoring
from poc import services as poc_services
from poc.models import Direction, Outcome, TestCase
from poc.selectors import scorecard
from poc.testbeds import bed_save
from responsibility import services as responsibility_services
from responsibility.models import Area, Party

from . import data
from .texts import texts


def key(candidate) -> str:
    """The demo's tables are keyed by solution slug, and by STACK_KEY for the stack."""
    return data.STACK_KEY if candidate.is_stack else candidate.solution.slug


def _dec(value) -> Decimal:
    return Decimal(str(value))


def _half(value: float) -> float:
    """Round to the rubric's half points and keep within 0–5."""
    return min(5.0, max(0.0, round(value * 2) / 2))


def check_seeded() -> None:
    """Fail with the command to run when the seeded content the demo builds on is missing."""
    missing = [
        name
        for name, model in [
            ("context questions", ContextQuestion),
            ("five questions", FiveQuestion),
            ("responsibility areas", Area),
            ("POC test cases", TestCase),
        ]
        if not model.objects.exists()
    ]
    slugs = {*data.ANSWERS, *data.STACK_LAYERS.values(), data.CLOUD_SLUG} - {data.STACK_KEY}
    if Solution.objects.filter(slug__in=slugs).count() < len(slugs):
        missing.append("catalog solutions")
    if missing:
        raise CommandError(
            f"Seeded content is missing ({', '.join(missing)}). Run: python manage.py seed"
        )


def demo_users() -> tuple[dict, list[str]]:
    """The demo users by username, created if missing (the names of those created)."""
    User = get_user_model()
    users, created = {}, []
    for username, role, first, last, _member_role in data.DEMO_USERS:
        user = User.objects.filter(username=username).first()
        if user is not None and role not in user_roles(user):
            # Never widen an existing account's rights behind an operator's back.
            raise CommandError(
                f"A user named {username!r} exists without the {role} role the demo gives "
                f"it. Add the role (python manage.py shell, or the admin) or rename the user."
            )
        if user is None:
            user = user_create(
                username=username,
                roles=[role],
                password=generate_password(username=username, first_name=first, last_name=last),
                first_name=first,
                last_name=last,
            )
            created.append(username)
        users[username] = user
    return users, created


class DemoLoader:
    """Loads the demo evaluation of one language (call inside a transaction)."""

    def __init__(self, language: str):
        self.language = language
        self.t = texts(language)

    def load(self) -> tuple[Evaluation, list[str]]:
        with translation.override(self.language):
            return self._load()

    def _load(self) -> tuple[Evaluation, list[str]]:
        t = self.t
        users, created = demo_users()
        lead = users["techlead"]
        evaluation = evaluation_services.evaluation_create(
            user=lead,
            title=t["title"],
            organisation=t["organisation"],
            scenarios=Scenario.objects.filter(slug__in=data.SCENARIOS),
            private_deployment_required=True,
            compliance_required=True,
            localisation_required=True,
            notes=t["notes"],
        )
        for username, _role, _first, _last, member_role in data.DEMO_USERS:
            if member_role != MemberRole.OWNER:
                evaluation_services.member_add(
                    user=lead, evaluation=evaluation, member=users[username], role=member_role
                )

        questions = {q.key: q for q in ContextQuestion.objects.filter(is_active=True)}
        for question_key, value in data.CONTEXT.items():
            if question_key in questions:
                evaluation_services.context_answer_save(
                    user=lead,
                    evaluation=evaluation,
                    question=questions[question_key],
                    value=value,
                    detail=t["context"][question_key],
                    expected_version=None,  # the constraints may have answered it already
                )

        # The lead takes the suggestions the demo has answers for; the building blocks the
        # rules also suggest (Kueue next to Volcano, HAMi for the Ascend cards) stay suggested.
        wanted = [
            s.solution.pk for s in shortlist_suggest(evaluation) if s.solution.slug in data.ANSWERS
        ]
        candidates = {
            c.solution.slug: c
            for c in evaluation_services.candidates_accept_suggestions(
                user=lead, evaluation=evaluation, solution_ids=wanted
            )
        }
        cloud = evaluation_services.candidate_add(
            user=lead,
            evaluation=evaluation,
            solution=Solution.objects.get(slug=data.CLOUD_SLUG),
            reason=t["cloud"]["reason"],
        )
        stack = evaluation_services.candidate_compose_stack(
            user=lead,
            evaluation=evaluation,
            name=t["stack"]["name"],
            reason=t["stack"]["reason"],
            layers={
                role: Solution.objects.get(slug=slug) for role, slug in data.STACK_LAYERS.items()
            },
            main="governance",
        )
        shortlisted = [c for slug, c in candidates.items() if slug in data.ANSWERS] + [stack]
        if len(shortlisted) < 6:
            raise CommandError(
                "The catalog rules suggested fewer candidates than the demo expects: "
                f"{', '.join(sorted(candidates)) or 'none'}."
            )
        order = {k: i for i, k in enumerate(data.SCORING_ORDER)}
        shortlisted.sort(key=lambda c: order.get(key(c), len(order)))

        # Costs and the starting matrix for every candidate, the cloud one included: it was
        # priced before being ruled out.
        responsibility_services.cost_settings_save(
            user=lead, evaluation=evaluation, expected_version=0, **data.COST_SETTINGS
        )
        for candidate in [*shortlisted, cloud]:
            responsibility_services.matrix_prefill(user=lead, candidate=candidate)
            responsibility_services.cost_input_save(
                user=lead,
                candidate=candidate,
                expected_version=0,
                **{k: _dec(v) for k, v in data.COSTS[key(candidate)].items()},
            )
        cloud = evaluation_services.candidate_eliminate(
            user=lead,
            candidate=cloud,
            reason=t["cloud"]["elimination"],
            expected_version=cloud.version,
        )

        self._answer(lead, shortlisted)
        self._edit_matrices(lead, candidates)

        evaluation_services.evaluation_transition(
            user=lead, evaluation=evaluation, to_status="poc", reason=t["poc_start_reason"]
        )
        poc_services.plan_init(user=lead, evaluation=evaluation)
        self._test_beds(lead, shortlisted)
        self._score(evaluation, users, shortlisted)
        self._decide(evaluation, lead, shortlisted)
        return evaluation, created

    def _answer(self, lead, shortlisted) -> None:
        explanations = self.t["answers"]
        for question in FiveQuestion.objects.filter(is_active=True):
            for candidate in shortlisted:
                k = key(candidate)
                who, value, link = data.ANSWERS[k].get(question.key, data.FALLBACK_ANSWER)
                explanation = explanations[k].get(question.key, self.t["answer_fallback"])
                evaluation_services.answer_save(
                    user=lead,
                    candidate=candidate,
                    question=question,
                    parties=[who] if isinstance(who, str) else list(who),
                    assessment=value if value in Assessment.values else Assessment.UNKNOWN,
                    budget=value if value in BudgetFocus.values else BudgetFocus.UNKNOWN,
                    explanation=explanation,
                    evidence_url=link,
                    expected_version=0,
                )

    def _edit_matrices(self, lead, candidates) -> None:
        parties = {p.key: p for p in Party.objects.filter(evaluation=None)}
        areas = {a.key: a for a in Area.objects.filter(is_active=True)}
        notes = self.t["matrix_notes"]
        for slug, area_key, kind, payload in data.MATRIX_EDITS:
            candidate, area = candidates.get(slug), areas.get(area_key)
            if candidate is None or area is None:
                continue
            if kind == "cell":
                responsibility_services.cell_set(
                    user=lead,
                    candidate=candidate,
                    area=area,
                    party=parties[payload["party"]],
                    letter=payload["letter"],
                    expected_version=None,
                )
                continue
            letters = payload.get("letters")
            responsibility_services.row_update(
                user=lead,
                candidate=candidate,
                area=area,
                expected_version=None,
                letters=(
                    {parties[k]: v for k, v in letters.items()} if letters is not None else None
                ),
                note=notes.get(slug, {}).get(area_key),
                internal_fte=payload.get("internal_fte"),
            )

    def _test_beds(self, lead, shortlisted) -> None:
        """Where each candidate's POC ran (data.TEST_BEDS, with the texts of this language)."""
        words = self.t["test_beds"]
        for candidate in shortlisted:
            k = key(candidate)
            if k in data.TEST_BEDS:
                bed = {**data.TEST_BEDS[k], **words.get(k, {})}
                bed_save(user=lead, candidate=candidate, expected_version=0, **bed)

    # --- POC ---------------------------------------------------------------------------------

    def _score(self, evaluation, users, shortlisted) -> None:
        rng = random.Random(data.SEED)
        cases = list(
            evaluation.poc_cases.select_related("group", "source_case").order_by(
                "group__order", "order", "pk"
            )
        )
        for case in cases:
            case.evaluation = evaluation  # one instance: role checks are cached on it
        base = {}
        for case in cases:
            for candidate in shortlisted:
                bias = data.BIAS[key(candidate)].get(case.group.key, 3.0)
                base[case.pk, candidate.pk] = _half(bias + rng.uniform(-0.7, 0.7))
        self._declare(evaluation, users, shortlisted)
        planned_notes = self.t["disagreements"]
        for index, username in enumerate(data.SCORERS):
            reviewer = users[username]
            for case in cases:
                case_key = case.source_case.key if case.source_case else ""
                for candidate in shortlisted:
                    planned = data.DISAGREEMENTS.get(key(candidate), {}).get(case_key)
                    if planned is not None:
                        value, measured = planned[0][index]
                        measured = _dec(measured) if measured is not None else None
                        note = planned_notes[key(candidate)][case_key]["notes"][index]
                    else:
                        value = _half(base[case.pk, candidate.pk] + rng.choice([-0.5, 0, 0, 0.5]))
                        measured = (
                            self._measured(case, value, rng)
                            if case.has_metric and rng.random() < 0.6
                            else None
                        )
                        note = self._note(case, candidate, value, measured)
                    poc_services.score_save(
                        user=reviewer,
                        case=case,
                        candidate=candidate,
                        score=_dec(value),
                        measured_value=measured,
                        outcome=self._outcome(candidate, case, value),
                        notes=note,
                        submit=True,
                        expected_version=0,
                    )
        lead = users["techlead"]
        by_key = {c.source_case.key: c for c in cases if c.source_case}
        by_slug = {key(c): c for c in shortlisted}
        for slug, planned_cases in data.DISAGREEMENTS.items():
            for case_key, (_scores, agreed) in planned_cases.items():
                if agreed is None or case_key not in by_key or slug not in by_slug:
                    continue
                poc_services.consensus_record(
                    user=lead,
                    case=by_key[case_key],
                    candidate=by_slug[slug],
                    score=_dec(agreed),
                    reason=planned_notes[slug][case_key]["consensus"],
                    expected_version=0,
                )

    def _declare(self, evaluation, users, shortlisted) -> None:
        """Each scorer's declarations (poc.conflicts); the declared conflict is allowed."""
        who, slug = data.DECLARED_CONFLICT
        words = self.t["conflict"]
        for username in data.SCORERS:
            for candidate in shortlisted:
                candidate.evaluation = evaluation
                conflict = username == who and key(candidate) == slug
                declaration = poc_conflicts.declaration_save(
                    user=users[username],
                    candidate=candidate,
                    has_conflict=conflict,
                    description=words["relationship"] if conflict else "",
                    expected_version=0,
                )
                if conflict:
                    poc_conflicts.allowance_grant(
                        user=users["techlead"],
                        declaration=declaration,
                        reason=words["allowance"],
                        expected_version=declaration.version,
                    )

    @staticmethod
    def _outcome(candidate, case, value: float) -> str:
        if value >= 3:
            return Outcome.PASSED
        if key(candidate) == "slurm" and case.group.key == "inference_serving":
            return Outcome.BLOCKED if value <= 1 else Outcome.FAILED
        return Outcome.FAILED

    @staticmethod
    def _measured(case, value: float, rng: random.Random) -> Decimal | None:
        """A measurement in the rubric band of the score (poc.scoring.measured_bands), or None
        when the metric has no such band (a zero threshold has only "meets" and "misses")."""
        bands = poc_scoring.measured_bands(case.metric_direction, case.metric_threshold)
        target = Decimal(min(5, int(value)))
        limits = {score: limit for limit, score in bands.steps}
        better = -1 if case.metric_direction == Direction.LOWER else 1
        scale = abs(case.metric_threshold) or Decimal(50)
        if target == 0:
            worst = limits.get(Decimal(1), case.metric_threshold)
            raw = float(worst) - better * float(scale) * rng.uniform(0.1, 1.0)
        elif target in limits:
            inner = float(limits[target])
            outer = limits.get(target + 1)
            outer = float(outer) if outer is not None else inner + better * float(scale) * 0.3
            raw = inner + (outer - inner) * rng.uniform(0.1, 0.9)
        else:
            return None
        if case.metric_unit == "%" and not 0 <= raw <= 100:
            return None
        measured = _dec(round(raw, 1))
        return measured if poc_services.measured_to_score(case, measured) == target else None

    def _note(self, case, candidate, value: float, measured: Decimal | None) -> str:
        words = self.t["score_notes"]
        if measured is not None:
            unit = f" {case.metric_unit}" if case.metric_unit else ""
            return words["measured"].format(value=measured, unit=unit)
        if key(candidate) == "slurm" and case.group.key == "inference_serving":
            return words["slurm_inference"]
        if value < 2.5:
            return words["not_met"]
        if value >= 4.5:
            return words["excellent"]
        return ""

    # --- decision ----------------------------------------------------------------------------

    def _decide(self, evaluation, lead, shortlisted) -> None:
        card = scorecard(evaluation, lead, see_all=True)
        ranked = sorted(
            shortlisted,
            key=lambda c: card.overall(c).raw_score or Decimal("0"),
            reverse=True,
        )
        best, second = ranked[0], ranked[1]
        words = self.t["decision"]
        rationale = words["rationale"].format(
            best=best.name,
            score=card.overall(best).score,
            second=second.name,
            second_score=card.overall(second).score,
            why=words["why"].get(key(best), words["why_fallback"]),
        )
        evaluation_services.decision_save(
            user=lead,
            evaluation=evaluation,
            chosen=[best],
            rationale=rationale,
            decided_on=timezone.localdate(),
            decided_by=words["decided_by"],
            expected_version=0,
        )
