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
from tests.method_steps import follow_method

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


def compose_stack(evaluation, owner, name, main, **layers):
    """A stack candidate: `layers` maps a layer (e.g. batch_queue) to a catalog slug; `main` is
    the layer whose type carries the main responsibility."""
    from catalog.models import Solution
    from evaluations import services

    return services.candidate_compose_stack(
        user=owner,
        evaluation=evaluation,
        name=name,
        reason="Composed for the test.",
        layers={role: Solution.objects.get(slug=slug) for role, slug in layers.items()},
        main=main,
    )


def answer_all(candidate, user, *, assessment="yes", party="internal", budget="people"):
    """Complete answers to every active question for one candidate (each on its scale)."""
    from evaluations.models import FiveQuestion
    from evaluations.services import answer_save

    return [
        answer_save(
            user=user,
            candidate=candidate,
            question=q,
            parties=[party],
            assessment=assessment,
            budget=budget,
            explanation=f"Checked {q.key}",
            expected_version=None,
        )
        for q in FiveQuestion.objects.filter(is_active=True)
    ]


def declare_none(evaluation, *users):
    """Each user declares no conflict of interest with every shortlisted candidate they have
    not declared for yet: what a member does before their first score (poc.conflicts). Returns
    the new declarations."""
    from evaluations.models import CandidateStatus
    from poc.conflicts import declaration_save

    candidates = evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED)
    return [
        declaration_save(user=user, candidate=candidate, has_conflict=False, expected_version=0)
        for user in users
        for candidate in candidates.exclude(conflict_declarations__member=user).select_related(
            "evaluation", "solution"
        )
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
    declare_none(evaluation, colleague)
    poc_services.score_save(
        user=colleague, case=case, candidate=candidate, score=score, expected_version=None
    )
    poc_services.scores_submit(user=colleague, evaluation=evaluation)
    return case, candidate


def decide(evaluation, owner, *candidates):
    """Record the decision choosing `candidates` and mark the evaluation decided (from draft or
    POC), with the reason the POC gate asks for when cells are open."""
    import datetime

    from evaluations import services as ev

    evaluation.refresh_from_db()
    if evaluation.status == "draft":
        ev.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc", reason="Go")
    ev.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=list(candidates),
        rationale="Fits the HPC team.",
        decided_on=datetime.date(2027, 1, 15),
        decided_by="Architecture board",
        expected_version=None,
    )
    follow_method(evaluation, owner, chosen=candidates)
    ev.evaluation_transition(
        user=owner, evaluation=evaluation, to_status="decided", reason="Signed"
    )
    evaluation.refresh_from_db()
    return evaluation


def finished_report(evaluation, user, *, language="en", sections=None, content=b"%PDF-1.4 t"):
    """A report run of the evaluation as it is now, finished without rendering (its PDF is
    `content`): what the worker leaves behind, for tests that only need a finished run."""
    import hashlib

    from django.core.files.base import ContentFile
    from django.utils import timezone

    from reports.models import ReportRun, RunStatus
    from reports.snapshot import build_snapshot, snapshot_sha256

    snapshot = build_snapshot(
        evaluation, language=language, generated_at="2027-01-15T10:00:00+00:00", sections=sections
    )
    run = ReportRun.objects.create(
        evaluation=evaluation,
        requested_by=user,
        language=language,
        sections=snapshot["sections"],
        snapshot=snapshot,
        snapshot_sha256=snapshot_sha256(snapshot),
        status=RunStatus.DONE,
        progress=100,
        pages=1,
        pdf_sha256=hashlib.sha256(content).hexdigest(),
        pdf_size=len(content),
        finished_at=timezone.now(),
    )
    run.pdf.save(f"test-{run.pk}-{language}.pdf", ContentFile(content))
    return run


def unused_pk(model) -> int:
    """A primary key no row of `model` has (never a literal: sequences move on between runs)."""
    from django.db.models import Max

    return (model.objects.aggregate(top=Max("pk"))["top"] or 0) + 1


def make_everything(owner, people, *, sealed=False):
    """An evaluation holding every kind of object a user can create, the odd ones included: an
    own party, a candidate with costs and a prefilled matrix, one with neither, an eliminated
    one; library cases, an own case with a metric and one without; a submitted score with
    evidence, a draft score, a consensus, cells nobody scored; every scoring member's declared
    conflicts of interest (none, but the editor's with one candidate). `sealed` marks it
    decided, with a finished report and approvals in every state (`_approvals`)."""
    import datetime
    from decimal import Decimal

    from django.core.files.uploadedfile import SimpleUploadedFile

    from evaluations import services as ev
    from evaluations.models import MemberRole
    from poc import services as poc
    from poc.conflicts import declaration_save as conflict_save
    from poc.models import TestGroup
    from responsibility import services as resp

    evaluation = make_evaluation(owner, title="Everything", private_deployment_required=True)
    for role in (MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER):
        add_member(evaluation, people[role], role)
    slurm, volcano, cloud = add_candidates(
        evaluation, owner, "slurm", "volcano", "cloud-managed-gpu"
    )
    resp.party_add(user=owner, evaluation=evaluation, name="Integrator Ltd", kind="other")
    resp.matrix_prefill(user=owner, candidate=slurm)  # volcano keeps an empty matrix
    resp.cost_settings_save(
        user=owner, evaluation=evaluation, expected_version=0, years=3, currency="CNY"
    )
    resp.cost_input_save(
        user=owner, candidate=slurm, expected_version=0, one_off=Decimal("100000")
    )  # volcano has no cost inputs
    ev.candidate_eliminate(
        user=owner, candidate=cloud, reason="Must run on premises.", expected_version=None
    )
    for candidate in (slurm, volcano):
        answer_all(candidate, owner)

    ev.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc", reason="Go")
    poc.plan_init(user=owner, evaluation=evaluation)
    group = TestGroup.objects.order_by("order").first()
    measured = poc.plan_case_add_custom(
        user=owner,
        evaluation=evaluation,
        group=group,
        title="Own case with a metric",
        acceptance="Start within the threshold.",
        metric_name="start time",
        metric_unit="s",
        metric_direction="lower",
        metric_threshold=Decimal("30"),
    )
    poc.plan_case_add_custom(
        user=owner,
        evaluation=evaluation,
        group=group,
        title="Own case without a metric",
        acceptance="Works as described.",
    )
    reviewer = people[MemberRole.REVIEWER]
    declare_none(evaluation, owner, people[MemberRole.EDITOR], reviewer)
    conflict_save(  # the editor has a conflict with one candidate (blocked: not allowed)
        user=people[MemberRole.EDITOR],
        candidate=evaluation.candidates.get(pk=volcano.pk),
        has_conflict=True,
        description="Former employee of the vendor.",
        expected_version=1,
    )
    score = poc.score_save(
        user=reviewer,
        case=measured,
        candidate=slurm,
        score=Decimal("4"),
        measured_value=Decimal("20"),
        notes="Fast start.",
        expected_version=None,
    )
    poc.evidence_add(
        user=reviewer, score=score, upload=SimpleUploadedFile("run.txt", b"ok", "text/plain")
    )
    poc.scores_submit(user=reviewer, evaluation=evaluation)
    poc.score_save(  # a draft the reviewer has not submitted
        user=reviewer, case=measured, candidate=volcano, score=Decimal("2"), expected_version=None
    )
    poc.consensus_record(
        user=owner,
        case=measured,
        candidate=slurm,
        score=Decimal("3.5"),
        reason="Agreed after the re-run.",
        expected_version=None,
    )
    ev.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=[slurm],
        rationale="Fits the HPC team.",
        decided_on=datetime.date(2027, 1, 15),
        decided_by="Architecture board",
        expected_version=None,
    )
    if sealed:
        follow_method(evaluation, owner, chosen=[slurm])
        ev.evaluation_transition(
            user=owner, evaluation=evaluation, to_status="decided", reason="Signed"
        )
        _approvals(evaluation, owner, people)
    evaluation.refresh_from_db()
    return evaluation


def _approvals(evaluation, owner, people) -> None:
    """A decided evaluation's approvals, every state once: a finished report; the owner's and
    the viewer's requests pending, the editor's approved, the reviewer's withdrawn."""
    from evaluations.models import MemberRole
    from signoff import services as approvals

    run = finished_report(evaluation, owner)
    asked = {
        role: approvals.approval_request(
            user=owner, evaluation=evaluation, approver=people[role], role=str(role.label)
        )
        for role in (MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER)
    }
    approvals.approval_decide(
        user=people[MemberRole.EDITOR],
        approval=asked[MemberRole.EDITOR],
        decision="approved",
        run_id=run.pk,
        comment="Matches what we agreed.",
        expected_version=None,
    )
    approvals.approval_withdraw(
        user=owner, approval=asked[MemberRole.REVIEWER], expected_version=None
    )
