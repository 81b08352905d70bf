"""`manage.py demo`: one complete demo evaluation per language, loaded through the services,
once (tests/common/test_demo_languages.py compares the languages)."""

from decimal import Decimal
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import Count

from catalog.models import Solution
from evaluations.demo import DEMO_TITLE
from evaluations.models import (
    Candidate,
    CandidateStatus,
    ContextAnswer,
    ContextQuestion,
    Decision,
    Evaluation,
    FiveQuestion,
    MemberRole,
    Membership,
    QuestionAnswer,
    Status,
)
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from poc.models import ConflictDeclaration, Consensus, PlanCase, Score, TestCase
from poc.selectors import scorecard
from responsibility.models import Area, AreaRow, Cell, CostInput, CostSettings
from responsibility.selectors import evaluation_matrices
from responsibility.support.selectors import comparison as support_comparison
from responsibility.support.terms import TERMS as SUPPORT_TERMS

pytestmark = pytest.mark.django_db

User = get_user_model()


def run_demo(**options) -> str:
    out = StringIO()
    call_command("demo", stdout=out, **options)
    return out.getvalue()


def counts() -> dict[str, int]:
    models = [
        Evaluation,
        Membership,
        ContextAnswer,
        Candidate,
        QuestionAnswer,
        Decision,
        AreaRow,
        Cell,
        CostSettings,
        CostInput,
        PlanCase,
        Score,
        Consensus,
        User,
    ]
    result = {m.__name__: m.objects.count() for m in models}
    for model in (Evaluation, Candidate, QuestionAnswer, AreaRow, Score, Consensus):
        result[f"history:{model.__name__}"] = model.history.count()
    return result


def test_demo_loads_one_complete_evaluation_once():
    before = Evaluation.objects.count()
    output = run_demo(language="en")

    assert Evaluation.objects.count() == before + 1
    evaluation = Evaluation.objects.get(title=DEMO_TITLE)
    assert evaluation.organisation == "AI infrastructure (demo)"
    assert evaluation.status == Status.POC
    assert evaluation.private_deployment_required
    assert f"Demo evaluation {evaluation.pk} loaded" in output
    # Users are created with random passwords that are never printed.
    assert "changepassword" in output
    assert "password=" not in output

    roles = {m.user.username: m.role for m in evaluation.memberships.select_related("user")}
    assert roles == {
        "techlead": MemberRole.OWNER,
        "reviewer": MemberRole.REVIEWER,
        "reviewer2": MemberRole.REVIEWER,
        "reviewer3": MemberRole.REVIEWER,
        "procurement": MemberRole.VIEWER,
    }
    assert evaluation.context_answers.count() == 10
    # Private deployment and compliance: the boxes ticked at creation are the demo's answers.
    assert evaluation.compliance_required
    assert set(
        evaluation.context_answers.filter(
            question__key__in=["private_deployment", "compliance_regime"]
        ).values_list("value", flat=True)
    ) == {"yes"}

    shortlisted = list(evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED))
    eliminated = list(evaluation.candidates.filter(status=CandidateStatus.ELIMINATED))
    assert len(shortlisted) >= 5
    assert [c.solution.slug for c in eliminated] == ["cloud-managed-gpu"]
    assert eliminated[0].elimination_reason
    assert all(c.rules.exists() for c in shortlisted if not c.is_stack)
    (stack,) = [c for c in shortlisted if c.is_stack]  # the combined route newcomers see
    assert [layer.solution.slug for layer in stack.stack_layers] == [
        "kubernetes-gpu",
        "volcano",
        "enterprise-container-platform",
    ]
    assert stack.solution.slug == "enterprise-container-platform" and stack.reason
    stack_areas = set(
        stack.area_rows.filter(area__stack_only=True).values_list("area__key", flat=True)
    )
    # The integration between its layers, and who owns the controls two or more layers claim
    # natively: quota (Volcano, the platform), tenancy (Kubernetes, the platform) and RBAC.
    assert stack_areas == {
        "layers_implements",
        "layers_accepts",
        "layers_compatibility",
        "layer_owner_quota",
        "layer_owner_tenancy",
        "layer_owner_rbac",
    }

    answered, total = evaluation_data(evaluation).progress_totals()
    assert total == len(shortlisted) * FiveQuestion.objects.filter(is_active=True).count()
    assert answered == total

    for candidate in evaluation.candidates.all():
        assert AreaRow.objects.filter(candidate=candidate).exists(), candidate
        assert CostInput.objects.filter(candidate=candidate).exists(), candidate
    assert CostSettings.objects.get(evaluation=evaluation).currency == "CNY"
    # Every route starts from a fully assigned matrix (AR where one party owns and does the
    # work), so the "prices compared, responsibilities not" reminder favours none of them.
    coverage = {m.candidate.name: m.result.coverage for m in evaluation_matrices(evaluation)}
    assert set(coverage.values()) == {Decimal("100.0")}, coverage
    assert Cell.objects.filter(row__candidate__evaluation=evaluation, letter="AR").exists()
    keys = {r.key for r in reminders_for(evaluation_data(evaluation))}
    assert "price-without-responsibilities" not in keys
    # Support terms side by side: Run:ai's complete, the enterprise platform's with gaps.
    table = support_comparison(evaluation)
    recorded = {
        c.solution.slug: len(table.by_candidate.get(c.pk, {}))
        for c in table.candidates
        if not c.is_stack
    }
    assert recorded["runai"] == len(SUPPORT_TERMS)
    assert 0 < recorded["enterprise-container-platform"] < len(SUPPORT_TERMS)
    assert any(cell.best for line in table.lines for cell in line.cells)

    cases = PlanCase.objects.filter(evaluation=evaluation).count()
    assert cases > 0
    per_cell = (
        Score.objects.filter(case__evaluation=evaluation)
        .exclude(submitted_at=None)
        .values("case", "candidate")
        .annotate(n=Count("pk"))
    )
    assert len(per_cell) == cases * len(shortlisted)
    assert {row["n"] for row in per_cell} == {3}

    owner = User.objects.get(username="techlead")
    card = scorecard(evaluation, owner, see_all=True)
    disagreements = [cell for cell in card.cells() if cell.disagreement]
    assert len(disagreements) >= 3
    assert len(card.open_disagreements) >= 1
    assert Consensus.objects.filter(case__evaluation=evaluation).count() == 2
    # Written through the services: the history names the acting demo users.
    assert evaluation.history.filter(history_user=owner).exists()
    scorers = set(
        Score.history.filter(case__evaluation=evaluation).values_list(
            "history_user__username", flat=True
        )
    )
    assert scorers == {"reviewer", "reviewer2", "reviewer3"}
    # Every scorer declared for every shortlisted candidate; one declared conflict, allowed by
    # the owner with a reason, so that reviewer's scores of it stand.
    declarations = ConflictDeclaration.objects.filter(evaluation=evaluation)
    assert declarations.count() == 3 * len(card.candidates)
    [conflict] = declarations.filter(has_conflict=True)
    assert conflict.member.username == "reviewer2" and conflict.candidate.solution.slug == "runai"
    assert conflict.allowed and conflict.allowance_reason and conflict.decided_by == owner
    assert Score.objects.filter(reviewer=conflict.member, candidate=conflict.candidate).exists()

    decision = Decision.objects.get(evaluation=evaluation)
    assert decision.chosen.count() == 1
    assert decision.rationale and decision.decided_on
    assert decision.decided_by == "Architecture review board"

    # A second run finds the demo and changes nothing.
    snapshot, version = counts(), evaluation.version
    again = run_demo(language="en")
    assert "already exists" in again
    assert counts() == snapshot
    evaluation.refresh_from_db()
    assert evaluation.version == version


def test_demo_reuses_the_seeded_demo_users():
    call_command("seed_demo_users", stdout=StringIO())
    techlead = User.objects.get(username="techlead")
    users = User.objects.count()

    output = run_demo()

    assert "reviewer2, reviewer3" in output
    assert User.objects.count() == users + 2
    evaluation = Evaluation.objects.get(title=DEMO_TITLE)
    assert evaluation.memberships.get(role=MemberRole.OWNER).user == techlead
    assert evaluation.created_by == techlead


def test_demo_names_every_missing_seeded_library_and_loads_nothing():
    for model in (ContextQuestion, FiveQuestion, Area, TestCase):
        model.objects.all().delete()
    Solution.objects.filter(slug="runai").delete()

    with pytest.raises(CommandError) as refused:
        run_demo()

    # Each app's step names what it builds on, in one message, the catalog last.
    assert str(refused.value) == (
        "Seeded content is missing (context questions, five questions, responsibility areas, "
        "POC test cases, catalog solutions). Run: python manage.py seed"
    )
    assert not Evaluation.objects.exists()
