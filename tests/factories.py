import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from catalog.models import (
    Capability,
    CapabilityClaim,
    CapabilityGroup,
    Scenario,
    Solution,
    SolutionType,
    Source,
    SupportLevel,
)
from common.roles import ADMIN

PASSWORD = "correct-horse-battery-staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.test")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def roles(self, create, extracted, **kwargs):
        if not create or not extracted:
            self.save()
            return
        # get_or_create: a transactional (live-server) test flushes the migration-made groups.
        self.groups.set([Group.objects.get_or_create(name=name)[0] for name in extracted])
        self.is_staff = ADMIN in extracted
        self.save()


class SolutionTypeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = SolutionType

    slug = factory.Sequence(lambda n: f"type-{n}")
    name_en = factory.Sequence(lambda n: f"Type {n}")
    name_zh_hans = factory.Sequence(lambda n: f"类型 {n}")
    fits_en = "Fits"
    fits_zh_hans = "适合"
    boundary_en = "Boundary"
    boundary_zh_hans = "边界"


class ScenarioFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Scenario

    slug = factory.Sequence(lambda n: f"scenario-{n}")
    name_en = factory.Sequence(lambda n: f"Scenario {n}")
    name_zh_hans = factory.Sequence(lambda n: f"场景 {n}")
    description_en = "Description"
    description_zh_hans = "说明"


class SolutionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Solution

    slug = factory.Sequence(lambda n: f"solution-{n}")
    name_en = factory.Sequence(lambda n: f"Solution {n}")
    name_zh_hans = factory.Sequence(lambda n: f"方案 {n}")
    maintainer_en = "Maintainer"
    maintainer_zh_hans = "维护方"
    summary_en = "Summary"
    summary_zh_hans = "概述"
    solution_type = factory.SubFactory(SolutionTypeFactory)
    deployment_modes = factory.LazyFunction(lambda: ["kubernetes"])


class CapabilityGroupFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CapabilityGroup

    slug = factory.Sequence(lambda n: f"group-{n}")
    name_en = factory.Sequence(lambda n: f"Group {n}")
    name_zh_hans = factory.Sequence(lambda n: f"分组 {n}")


class CapabilityFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Capability

    group = factory.SubFactory(CapabilityGroupFactory)
    slug = factory.Sequence(lambda n: f"capability-{n}")
    name_en = factory.Sequence(lambda n: f"Capability {n}")
    name_zh_hans = factory.Sequence(lambda n: f"能力 {n}")


class SourceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Source

    key = factory.Sequence(lambda n: f"SRC-{n}")
    title = factory.Sequence(lambda n: f"Source {n}")


class CapabilityClaimFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CapabilityClaim

    solution = factory.SubFactory(SolutionFactory)
    capability = factory.SubFactory(CapabilityFactory)
    level = SupportLevel.UNKNOWN


# --- evaluations -----------------------------------------------------------------------------


def make_evaluation(owner, *, title="GPU platform 2027", scenarios=("training",), **fields):
    """An evaluation created through the service, as a tech lead would."""
    from catalog.models import Scenario
    from evaluations.services import evaluation_create

    return evaluation_create(
        user=owner,
        title=title,
        organisation=fields.pop("organisation", "AI platform team"),
        scenarios=Scenario.objects.filter(slug__in=scenarios),
        **fields,
    )


def add_member(evaluation, user, role):
    from evaluations.models import Membership

    return Membership.objects.create(evaluation=evaluation, user=user, role=role)


def add_candidates(evaluation, owner, *slugs):
    from catalog.models import Solution
    from evaluations.services import candidate_add

    return [
        candidate_add(
            user=owner,
            evaluation=evaluation,
            solution=Solution.objects.get(slug=slug),
            reason=f"Worth a look: {slug}",
        )
        for slug in slugs
    ]


def answer_all(candidate, user, *, assessment="yes", party="internal"):
    """Complete answers to every active question for one candidate."""
    from evaluations.models import FiveQuestion
    from evaluations.services import answer_save

    return [
        answer_save(
            user=user,
            candidate=candidate,
            question=q,
            party=party,
            assessment=assessment,
            explanation=f"Checked {q.key}",
            expected_version=None,
        )
        for q in FiveQuestion.objects.filter(is_active=True)
    ]


def submit_one_score(evaluation, owner, *, slug="slurm", score="4", username="colleague"):
    """A new reviewer scores and submits one cell of a fresh POC plan; returns (case, candidate)
    so tests can check what the other members may see of it."""
    from common.roles import REVIEWER
    from evaluations.models import MemberRole
    from poc import services as poc_services
    from tests.conftest import make_user

    colleague = make_user(REVIEWER, username=username)
    add_member(evaluation, colleague, MemberRole.REVIEWER)
    poc_services.plan_init(user=owner, evaluation=evaluation)
    case = evaluation.poc_cases.order_by("pk").first()
    candidate = evaluation.candidates.get(solution__slug=slug)
    poc_services.score_save(
        user=colleague, case=case, candidate=candidate, score=score, expected_version=None
    )
    poc_services.scores_submit(user=colleague, evaluation=evaluation)
    return case, candidate
