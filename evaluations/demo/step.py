"""evaluations' demo step: the evaluation, its members and context answers, and the shortlist
(the suggestions the demo has answers for, the cloud candidate and the stack), written through
the services as the owner. The higher apps' steps price, answer, score and decide it."""

from __future__ import annotations

from django.core.management.base import CommandError

from catalog.models import Scenario, Solution
from common.demo import DemoState
from evaluations import services as evaluation_services
from evaluations.models import CandidateStatus, ContextQuestion, Evaluation, FiveQuestion
from evaluations.selectors import shortlist_suggest

from . import DEMO_TITLES, FILES, STACK_KEY, demo_key, demo_owner


def load(state: DemoState) -> None:
    data, t = FILES.data, FILES.texts(state.language)
    users = state.users
    lead = demo_owner(state)
    evaluation = evaluation_services.evaluation_create(
        user=lead,
        title=t["title"],
        organisation=t["organisation"],
        scenarios=Scenario.objects.filter(slug__in=data["scenarios"]),
        private_deployment_required=True,
        compliance_required=True,
        localisation_required=True,
        notes=t["notes"],
    )
    for username, member_role in data["members"].items():
        evaluation_services.member_add(
            user=lead, evaluation=evaluation, member=users[username], role=member_role
        )

    questions = {q.key: q for q in ContextQuestion.objects.filter(is_active=True)}
    for question_key, value in data["context"].items():
        if question_key in questions:
            evaluation_services.context_answer_save(
                user=lead,
                evaluation=evaluation,
                question=questions[question_key],
                value=value,
                detail=t["context"][question_key],
                expected_version=None,  # the constraints may have answered it already
            )

    # The lead takes the suggestions the demo has answers for; the building blocks the rules
    # also suggest (Kueue next to Volcano, HAMi for the Ascend cards) stay suggested.
    shortlist = data["shortlist"]
    wanted = [s.solution.pk for s in shortlist_suggest(evaluation) if s.solution.slug in shortlist]
    candidates = {
        c.solution.slug: c
        for c in evaluation_services.candidates_accept_suggestions(
            user=lead, evaluation=evaluation, solution_ids=wanted
        )
    }
    cloud = evaluation_services.candidate_add(
        user=lead,
        evaluation=evaluation,
        solution=Solution.objects.get(slug=data["cloud"]),
        reason=t["cloud"]["reason"],
    )
    stack = evaluation_services.candidate_compose_stack(
        user=lead,
        evaluation=evaluation,
        name=t["stack"]["name"],
        reason=t["stack"]["reason"],
        layers={
            role: Solution.objects.get(slug=slug) for role, slug in data["stack"]["layers"].items()
        },
        main=data["stack"]["main"],
    )
    shortlisted = [c for slug, c in candidates.items() if slug in shortlist] + [stack]
    if len(shortlisted) < 6:
        raise CommandError(
            "The catalog rules suggested fewer candidates than the demo expects: "
            f"{', '.join(sorted(candidates)) or 'none'}."
        )
    order = {k: i for i, k in enumerate(shortlist)}
    shortlisted.sort(key=lambda c: order.get(demo_key(c), len(order)))

    state.evaluation = evaluation
    state.candidates = candidates
    state.cloud = cloud
    state.shortlisted = shortlisted


def existing(language: str) -> int | None:
    """The key of `language`'s demo evaluation if it is loaded (found by its title)."""
    evaluation = Evaluation.objects.filter(title=DEMO_TITLES[language]).first()
    return evaluation.pk if evaluation is not None else None


def missing_questions() -> list[str]:
    """The question libraries the demo answers, when they are not seeded."""
    return [
        name
        for name, model in [
            ("context questions", ContextQuestion),
            ("five questions", FiveQuestion),
        ]
        if not model.objects.exists()
    ]


def missing_solutions() -> list[str]:
    """The catalog solutions the demo shortlists, when any is not seeded."""
    data = FILES.data
    slugs = {*data["shortlist"], *data["stack"]["layers"].values(), data["cloud"]} - {STACK_KEY}
    if Solution.objects.filter(slug__in=slugs).count() < len(slugs):
        return ["catalog solutions"]
    return []


def summary(state: DemoState) -> str:
    candidates = state.evaluation.candidates
    shortlisted = candidates.filter(status=CandidateStatus.SHORTLISTED).count()
    eliminated = candidates.filter(status=CandidateStatus.ELIMINATED).count()
    return f"{shortlisted} shortlisted and {eliminated} eliminated candidate(s)"
