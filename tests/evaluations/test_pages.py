"""Evaluation pages: members only, quick inline editing, conflicts, gate, seal, query budgets."""

import datetime
import html
import re

import pytest
from django.urls import reverse

from catalog.models import Scenario, Solution
from evaluations import services
from evaluations.models import (
    Candidate,
    Evaluation,
    FiveQuestion,
    MemberRole,
    QuestionAnswer,
    Status,
)
from tests.factories import add_candidates, answer_all, follow_method, make_evaluation

pytestmark = pytest.mark.django_db

PAGES = [
    "evaluation_detail",
    "evaluation_edit",
    "evaluation_context",
    "evaluation_shortlist",
    "evaluation_questions",
    "evaluation_decision",
    "evaluation_members",
    "evaluation_history",
]


def url(name, evaluation, **kw):
    return reverse(f"evaluations:{name}", kwargs={"pk": evaluation.pk, **kw})


def scenario_pk(slug="training") -> str:
    """A scenario's key as the form posts it (looked up: sequences move on between runs)."""
    return str(Scenario.objects.get(slug=slug).pk)


@pytest.mark.parametrize("page", PAGES)
def test_members_read_every_page_and_others_get_404(client, evaluation, people, page):
    for role in (MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER):
        client.force_login(people[role])
        assert client.get(url(page, evaluation)).status_code == 200, (role, page)
    client.force_login(people["outsider"])
    assert client.get(url(page, evaluation)).status_code == 404
    client.logout()
    response = client.get(url(page, evaluation))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_outsider_cannot_post_anywhere(client, evaluation, people, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    client.force_login(people["outsider"])
    posts = [
        (url("evaluation_detail", evaluation), {"status": "poc"}),
        (url("evaluation_edit", evaluation), {"title": "x"}),
        (
            url("context_answer_save", evaluation, key="ray_workloads"),
            {"ray_workloads-value": "yes"},
        ),
        (url("evaluation_shortlist", evaluation), {"action": "add"}),
        (url("answer_save", evaluation, cid=slurm.pk, key="long_term_team"), {}),
        (url("evaluation_decision", evaluation), {}),
        (url("evaluation_members", evaluation), {"action": "add", "username": "outsider"}),
    ]
    for path, data in posts:
        assert client.post(path, data).status_code == 404, path
    assert not evaluation.memberships.filter(user=people["outsider"]).exists()


def test_the_evaluation_list_and_home_show_only_my_evaluations(client, owner, people, evaluation):
    make_evaluation(people["outsider"], title="Somebody else's secret")
    client.force_login(people[MemberRole.VIEWER])
    for path in (reverse("home"), reverse("evaluations:evaluation_list")):
        body = client.get(path).content.decode()
        assert evaluation.title in body and "secret" not in body


@pytest.mark.parametrize("n_candidates", [1, 6])
def test_list_and_overview_query_budgets_do_not_grow(
    client, owner, evaluation, n_candidates, django_assert_max_num_queries
):
    slugs = list(Solution.objects.values_list("slug", flat=True)[:n_candidates])
    candidates = add_candidates(evaluation, owner, *slugs)
    for c in candidates:
        answer_all(c, owner)
    for i in range(n_candidates):
        make_evaluation(owner, title=f"Other {i}")
    client.force_login(owner)
    # Fixed costs: every app's reminders ride on the same prefetches; the budget is the same
    # for 1 and 6 candidates (and as many evaluations). Cold: each row's status is computed and
    # stored; then the home page finds it current and reads none of the evaluations' data.
    with django_assert_max_num_queries(40):
        assert client.get(reverse("evaluations:evaluation_list")).status_code == 200
    with django_assert_max_num_queries(11):
        assert client.get(reverse("home")).status_code == 200
    for page in ("evaluation_detail", "evaluation_shortlist", "evaluation_questions"):
        # 44: the shortlist asks once whether any POC score exists (POC verification); the
        # who-questions' areas ride along for the answers-and-matrix reminder.
        with django_assert_max_num_queries(44):
            assert client.get(url(page, evaluation)).status_code == 200


def test_tech_lead_creates_an_evaluation_and_procurement_cannot(client, owner, people):
    client.force_login(owner)
    bad = client.post(reverse("evaluations:evaluation_create"), {"title": "", "organisation": ""})
    assert bad.status_code == 400
    assert b"Choose at least one primary scenario." in bad.content
    ok = client.post(
        reverse("evaluations:evaluation_create"),
        {"title": "Inference platform", "organisation": "Search", "scenarios": [scenario_pk()]},
    )
    assert ok.status_code == 302
    client.force_login(people[MemberRole.VIEWER])
    assert client.get(reverse("evaluations:evaluation_create")).status_code == 403


def test_context_answer_saves_inline_and_drives_suggestions(client, owner, evaluation):
    client.force_login(owner)
    path = url("context_answer_save", evaluation, key="ray_workloads")
    response = client.post(
        path,
        {"ray_workloads-value": "yes", "ray_workloads-version": "0"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "Saved" in body and 'hx-swap-oob="true"' in body
    shortlist = client.get(url("evaluation_shortlist", evaluation)).content.decode()
    assert "KubeRay" in shortlist
    # A second, stale save (still claiming version 0) is refused and shows the saved answer.
    stale = client.post(
        path,
        {"ray_workloads-value": "no", "ray_workloads-version": "0"},
        headers={"HX-Request": "true"},
    )
    assert stale.status_code == 409
    assert "Someone else saved this" in stale.content.decode()
    assert evaluation.context_answers.get(question__key="ray_workloads").value == "yes"


def test_the_requirement_box_and_its_context_question_show_one_answer(client, owner):
    client.force_login(owner)
    created = client.post(
        reverse("evaluations:evaluation_create"),
        {
            "title": "On premises",
            "organisation": "Platform",
            "scenarios": [scenario_pk()],
            "private_deployment_required": "on",
        },
    )
    assert created.status_code == 302
    evaluation = Evaluation.objects.get(title="On premises")
    context = client.get(url("evaluation_context", evaluation)).content.decode()
    assert re.search(r'name="private_deployment-value" value="yes"[^>]*checked', context)
    edit = client.get(url("evaluation_edit", evaluation)).content.decode()
    assert re.search(r'type="checkbox" name="private_deployment_required"[^>]*checked', edit)
    assert not re.search(r'type="checkbox" name="compliance_required"[^>]*checked', edit)

    # Answered on the context page while the edit form is open elsewhere...
    client.post(
        url("context_answer_save", evaluation, key="compliance_regime"),
        {"compliance_regime-value": "yes", "compliance_regime-version": "0"},
    )
    edit = client.get(url("evaluation_edit", evaluation)).content.decode()
    assert re.search(r'type="checkbox" name="compliance_required"[^>]*checked', edit)
    evaluation.refresh_from_db()
    # ...the stale form, whose box showed it unticked and was left alone, does not undo it;
    # clearing the ticked private deployment box answers that question no.
    saved = client.post(
        url("evaluation_edit", evaluation),
        {
            "title": "On premises",
            "organisation": "Platform",
            "scenarios": [scenario_pk()],
            "initial-private_deployment_required": "True",
            "initial-compliance_required": "False",
            "version": evaluation.version,
        },
    )
    assert saved.status_code == 302
    answers = dict(evaluation.context_answers.values_list("question__key", "value"))
    assert answers["compliance_regime"] == "yes" and answers["private_deployment"] == "no"


def test_shortlist_accept_add_and_eliminate(client, owner, evaluation):
    services.context_answer_save(
        user=owner,
        evaluation=evaluation,
        question=evaluation.context_answers.model.question.field.related_model.objects.get(
            key="hpc_batch_queues"
        ),
        value="yes",
        expected_version=None,
    )
    client.force_login(owner)
    page = url("evaluation_shortlist", evaluation)
    assert client.post(page, {"action": "accept"}).status_code == 302
    slurm = evaluation.candidates.get(solution__slug="slurm")
    assert slurm.rules.filter(key="hpc-team-batch-queues").exists()
    no_reason = client.post(page, {"action": "add", "solution": "volcano", "reason": ""})
    assert no_reason.status_code == 400 and b"Say why" in no_reason.content
    twice = client.post(page, {"action": "add", "solution": "slurm", "reason": "again"})
    assert twice.status_code == 400
    assert (
        client.post(
            page, {"action": "add", "solution": "volcano", "reason": "K8s batch"}
        ).status_code
        == 302
    )
    eliminate = {"action": "eliminate", "candidate": slurm.pk, "version": slurm.version}
    assert client.post(page, {**eliminate, "reason": ""}).status_code == 400
    assert client.post(page, {**eliminate, "reason": "No HPC skills"}).status_code == 302
    body = client.get(page).content.decode()
    assert "No HPC skills" in body  # kept and shown, not deleted
    assert Candidate.objects.filter(evaluation=evaluation).count() == 2


def test_answer_conflict_shows_the_current_value(client, owner, evaluation, people):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    question = FiveQuestion.objects.get(key="long_term_team")
    path = url("answer_save", evaluation, cid=slurm.pk, key=question.key)
    prefix = f"c{slurm.pk}-long_term_team"

    def post(user, explanation, version):
        client.force_login(user)
        return client.post(
            path,
            {
                f"{prefix}-party": "internal",
                f"{prefix}-assessment": "yes",
                f"{prefix}-explanation": explanation,
                f"{prefix}-version": version,
            },
            headers={"HX-Request": "true"},
        )

    first = post(owner, "HPC team keeps it", 0)
    assert first.status_code == 200 and "Complete" in first.content.decode()
    assert post(people[MemberRole.EDITOR], "Editor's view", 1).status_code == 200
    stale = post(owner, "Owner's stale view", 1)
    assert stale.status_code == 409
    body = html.unescape(stale.content.decode())
    assert "Someone else saved this" in body and "Editor's view" in body
    assert (
        QuestionAnswer.objects.get(candidate=slurm, question=question).explanation
        == "Editor's view"
    )
    bad = post(people[MemberRole.EDITOR], "x", 2)
    assert bad.status_code == 200
    client.force_login(people[MemberRole.VIEWER])
    assert (
        client.post(path, {f"{prefix}-assessment": "no", f"{prefix}-version": 3}).status_code == 403
    )


def test_gate_refusal_lists_what_is_missing_then_seal_and_reopen(client, owner, evaluation):
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    answer_all(slurm, owner)
    services.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc")
    client.force_login(owner)
    refused = client.post(url("evaluation_detail", evaluation), {"status": "decided"})
    assert refused.status_code == 409
    body = refused.content.decode()
    assert "Volcano" in body and "There is no decision record." in body
    # each missing item links to the place that puts it right
    questions = url("evaluation_questions", evaluation)
    assert f'href="{questions}#answer-{volcano.pk}-long_term_team"' in body
    assert f'href="{url("evaluation_decision", evaluation)}"' in body
    # grouped by where they are fixed, each group with its count and a link to start
    groups = re.findall(
        r'<h3>(.*?) <span class="tag" data-testid="gate-count">(\d+)</span>\s*<a class="button '
        r'small" href="([^"]+)"',
        body,
    )
    assert [(label, int(n)) for label, n, _link in groups] == [
        ("Type decision", 1),
        ("Five questions", 5),
        ("Decision record", 1),
    ]
    assert groups[0][2] == f"{url('evaluation_shortlist', evaluation)}#main-type"
    assert groups[1][2] == f"{questions}#answer-{volcano.pk}-long_term_team"
    answer_all(volcano, owner)
    response = client.post(
        url("evaluation_decision", evaluation),
        {
            "chosen": [slurm.pk],
            "rationale": "Existing HPC team",
            "decided_on": "2026-11-30",
            "decided_by": "Platform board",
            "version": 0,
        },
    )
    assert response.status_code == 302
    follow_method(evaluation, owner, chosen=[slurm])
    assert (
        client.post(url("evaluation_detail", evaluation), {"status": "decided"}).status_code == 302
    )
    evaluation.refresh_from_db()
    assert evaluation.status == Status.DECIDED
    page = client.get(url("evaluation_edit", evaluation))
    assert b"sealed" in page.content
    edit = client.post(
        url("evaluation_edit", evaluation),
        {
            "title": "x",
            "organisation": "y",
            "scenarios": [scenario_pk()],
            "version": evaluation.version,
        },
    )
    assert edit.status_code == 409
    no_reason = client.post(url("evaluation_detail", evaluation), {"status": "poc"})
    assert no_reason.status_code == 400
    reopened = client.post(
        url("evaluation_detail", evaluation), {"status": "poc", "reason": "New vendor quote"}
    )
    assert reopened.status_code == 302
    history = client.get(url("evaluation_history", evaluation)).content.decode()
    assert "New vendor quote" in history


def test_members_page_owner_only_changes(client, evaluation, people):
    page = url("evaluation_members", evaluation)
    client.force_login(people[MemberRole.EDITOR])
    assert (
        client.post(page, {"action": "add", "username": "outsider", "role": "viewer"}).status_code
        == 403
    )
    client.force_login(people[MemberRole.OWNER])
    unknown = client.post(page, {"action": "add", "username": "nobody", "role": "viewer"})
    assert unknown.status_code == 400 and b"Nobody is called" in unknown.content
    assert (
        client.post(page, {"action": "add", "username": "outsider", "role": "viewer"}).status_code
        == 302
    )
    client.force_login(people["outsider"])
    assert client.get(url("evaluation_detail", evaluation)).status_code == 200


def test_history_tab_in_both_languages(client, owner, evaluation):
    services.evaluation_update(
        user=owner, evaluation=evaluation, expected_version=evaluation.version, title="Renamed"
    )
    client.force_login(owner)
    body = client.get(url("evaluation_history", evaluation)).content.decode()
    assert "Renamed" in body and "GPU platform 2027" in body and "title" in body
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    body = client.get(url("evaluation_history", evaluation)).content.decode()
    assert "标题" in body and "Renamed" in body


def test_reminders_fire_and_clear(client, owner, evaluation):
    client.force_login(owner)

    def keys():
        response = client.get(url("evaluation_detail", evaluation))
        return set(__import__("re").findall(r'data-key="([^"]+)"', response.content.decode()))

    assert "few-candidates" in keys()
    gke, runai, volcano = add_candidates(evaluation, owner, "cloud-managed-gpu", "runai", "volcano")
    assert "few-candidates" not in keys()
    services.evaluation_update(
        user=owner,
        evaluation=evaluation,
        expected_version=evaluation.version,
        private_deployment_required=True,
        plans_hybrid=True,
    )
    assert {f"private-deployment-ignored:{gke.pk}", "hybrid-without-owner"} <= keys()
    answer_all(gke, owner)
    evaluation.refresh_from_db()
    services.evaluation_update(
        user=owner,
        evaluation=evaluation,
        expected_version=evaluation.version,
        unified_view_owner="Platform team",
    )
    assert not {f"private-deployment-ignored:{gke.pk}", "hybrid-without-owner"} & keys()
    services.candidate_eliminate(user=owner, candidate=runai, reason="Cost", expected_version=1)
    services.candidate_eliminate(
        user=owner, candidate=gke, reason="Cloud", expected_version=gke.version
    )
    assert "few-candidates" in keys()
    _ = (volcano, datetime)


def test_an_inline_answer_updates_the_candidates_progress(client, owner, evaluation):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    client.force_login(owner)
    page = client.get(url("evaluation_questions", evaluation)).content.decode()
    assert f'id="progress-{slurm.pk}"' in page and "0 / 5" in page
    prefix = f"c{slurm.pk}-long_term_team"
    saved = client.post(
        url("answer_save", evaluation, cid=slurm.pk, key="long_term_team"),
        {
            f"{prefix}-parties": ["internal", "security"],
            f"{prefix}-explanation": "Two engineers",
            f"{prefix}-version": 0,
        },
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert f'id="progress-{slurm.pk}"' in saved and 'hx-swap-oob="true"' in saved
    assert ">1 / 5</span>" in saved
