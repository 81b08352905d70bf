"""Suggestions are grouped by solution type. Once a type is decided its group comes first and the
others are marked outside it: still shown and addable, but only with a reason (page and API
alike, enforced by the service)."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.models import Solution, SolutionType
from evaluations import services
from evaluations.models import ContextQuestion
from evaluations.selectors import shortlist_suggest
from evaluations.types import suggestions_by_type
from tests.factories import make_evaluation

pytestmark = pytest.mark.django_db

# Facts whose rules suggest open-source tools (Slurm, KubeRay, and HAMi and Volcano for mixed
# accelerators), a cloud service and an enterprise platform.
FACTS = (
    "hpc_batch_queues",
    "ray_workloads",
    "single_cloud",
    "heterogeneous_accelerators",
    "governance_localised",
)


@pytest.fixture
def evaluation(owner):
    evaluation = make_evaluation(owner, scenarios=("training",))
    for key in FACTS:
        services.context_answer_save(
            user=owner,
            evaluation=evaluation,
            question=ContextQuestion.objects.get(key=key),
            value="yes",
            expected_version=None,
        )
    return evaluation


def decide(evaluation, owner, slug):
    evaluation.refresh_from_db()
    services.evaluation_type_decide(
        user=owner,
        evaluation=evaluation,
        solution_type=SolutionType.objects.get(slug=slug),
        reason="A platform team runs it long term.",
        expected_version=evaluation.version,
    )
    evaluation.refresh_from_db()


def groups(evaluation):
    evaluation.refresh_from_db()
    return [
        (g.solution_type.slug, g.outside, [s.solution.slug for s in g.items])
        for g in suggestions_by_type(shortlist_suggest(evaluation), evaluation.main_type_id)
    ]


def pk(slug):
    return Solution.objects.get(slug=slug).pk


def type_order(*slugs):
    order = list(SolutionType.objects.values_list("slug", flat=True))
    return sorted(slugs, key=order.index)


def test_suggestions_are_grouped_by_type_in_catalog_order(evaluation):
    found = groups(evaluation)
    assert [slug for slug, _outside, _items in found] == type_order(
        "open-source", "cloud-managed", "enterprise-platform"
    )
    assert not any(outside for _slug, outside, _items in found)
    open_source = dict((slug, items) for slug, _o, items in found)["open-source"]
    assert set(open_source) == {"slurm", "kuberay", "hami", "volcano"}


def test_the_chosen_type_comes_first_and_the_others_are_outside_it(evaluation, owner):
    decide(evaluation, owner, "enterprise-platform")
    found = groups(evaluation)
    assert found[0] == ("enterprise-platform", False, ["enterprise-container-platform"])
    assert [(slug, outside) for slug, outside, _items in found[1:]] == [
        (slug, True) for slug in type_order("open-source", "cloud-managed")
    ]
    flags = {s.solution.slug: s.outside_main_type for s in shortlist_suggest(evaluation)}
    assert flags == {
        "enterprise-container-platform": False,
        "slurm": True,
        "kuberay": True,
        "hami": True,
        "volcano": True,
        "cloud-managed-gpu": True,
    }


def test_accepting_outside_the_chosen_type_needs_a_reason(evaluation, owner):
    decide(evaluation, owner, "enterprise-platform")
    with pytest.raises(ValidationError) as refused:
        services.candidates_accept_suggestions(
            user=owner, evaluation=evaluation, solution_ids=[pk("slurm")]
        )
    message = refused.value.message_dict["reason"][0]
    assert "Outside the chosen type (Enterprise platform)" in message and "Slurm" in message
    # Accepting everything at once is refused too, and nothing is half-added.
    with pytest.raises(ValidationError):
        services.candidates_accept_suggestions(user=owner, evaluation=evaluation)
    assert not evaluation.candidates.exists()

    inside = services.candidates_accept_suggestions(
        user=owner, evaluation=evaluation, solution_ids=[pk("enterprise-container-platform")]
    )
    assert [c.reason for c in inside] == [""]
    added = services.candidates_accept_suggestions(
        user=owner,
        evaluation=evaluation,
        solution_ids=[pk("slurm")],
        reason="  Our HPC team keeps its batch queues.  ",
    )
    assert [(c.solution.slug, c.reason) for c in added] == [
        ("slurm", "Our HPC team keeps its batch queues.")
    ]


def test_without_a_type_decision_no_reason_is_needed(evaluation, owner):
    added = services.candidates_accept_suggestions(user=owner, evaluation=evaluation)
    assert len(added) == 6 and all(c.reason == "" for c in added)


def test_adding_by_hand_outside_the_chosen_type_names_the_type(evaluation, owner):
    decide(evaluation, owner, "cloud-managed")
    with pytest.raises(ValidationError) as refused:
        services.candidate_add(
            user=owner,
            evaluation=evaluation,
            solution=Solution.objects.get(slug="runai"),
            reason="",
        )
    assert "Outside the chosen type (Cloud-managed" in refused.value.message_dict["reason"][0]


def test_the_page_groups_marks_and_asks_for_a_reason(client, evaluation, owner):
    decide(evaluation, owner, "enterprise-platform")
    client.force_login(owner)
    path = reverse("evaluations:evaluation_shortlist", kwargs={"pk": evaluation.pk})
    body = client.get(path).content.decode()
    section = body[body.index('data-testid="suggestions"') : body.index('data-testid="candidates"')]
    headings = [section.index(f"suggestion-group-{t}") for t in ("enterprise-platform",)]
    headings += [section.index(f"suggestion-group-{t}") for t in ("open-source", "cloud-managed")]
    assert headings[0] < min(headings[1:])
    chosen = section[headings[0] : min(headings[1:])]
    assert "outside the chosen type" not in chosen
    outside = section[section.index("suggestion-group-open-source") :].split("</h3>")[0]
    assert 'data-testid="outside-type"' in outside
    slurm_row = section[section.index("suggestion-slurm") :].split("</tr>")[0]
    # No browser bubble: the server answers an empty reason with its message, which takes the
    # place of the page's earlier messages.
    assert 'name="reason"' in slurm_row and "required" not in slurm_row
    ecp_row = section[section.index("suggestion-enterprise-container-platform") :]
    assert 'name="reason"' not in ecp_row.split("</tr>")[0]
    # "Accept all" takes only the chosen type's suggestions.
    accept_all = section[: section.index('data-testid="accept-all"')].rsplit("<form", 1)[1]
    assert f'value="{pk("enterprise-container-platform")}"' in accept_all
    assert f'value="{pk("slurm")}"' not in accept_all

    done = client.post(
        path, {"action": "accept", "solution": pk("enterprise-container-platform")}, follow=True
    )
    assert "1 suggested candidate(s) added." in done.content.decode()
    refused = client.post(path, {"action": "accept", "solution": pk("slurm")}, follow=True)
    assert "Outside the chosen type" in refused.content.decode()
    assert "suggested candidate(s) added" not in refused.content.decode()
    assert list(evaluation.candidates.values_list("solution__slug", flat=True)) == [
        "enterprise-container-platform"
    ]
    client.post(path, {"action": "accept", "solution": pk("slurm"), "reason": "HPC team stays."})
    assert evaluation.candidates.get(solution__slug="slurm").reason == "HPC team stays."


def test_the_api_gives_each_suggestion_its_type_and_whether_it_is_outside(evaluation, owner):
    decide(evaluation, owner, "enterprise-platform")
    api = APIClient()
    api.force_authenticate(owner)
    base = f"/api/evaluations/{evaluation.pk}/suggestions/"
    rows = api.get(base).json()
    assert rows[0]["solution"]["slug"] == "enterprise-container-platform"
    assert rows[0]["type"]["slug"] == "enterprise-platform"
    assert rows[0]["outside_main_type"] is False
    assert {r["solution"]["slug"]: r["outside_main_type"] for r in rows[1:]} == {
        "slurm": True,
        "kuberay": True,
        "hami": True,
        "volcano": True,
        "cloud-managed-gpu": True,
    }
    # Grouped like the page: each type's suggestions together, the others in catalog order.
    types = [r["type"]["slug"] for r in rows]
    assert list(dict.fromkeys(types)) == [
        "enterprise-platform",
        *type_order("open-source", "cloud-managed"),
    ]
    assert types == sorted(types, key=list(dict.fromkeys(types)).index)

    refused = api.post(base + "accept/", {"solutions": ["slurm"]}, format="json")
    assert refused.status_code == 400 and "Outside the chosen type" in str(refused.json())
    added = api.post(
        base + "accept/", {"solutions": ["slurm"], "reason": "HPC stays."}, format="json"
    )
    assert added.status_code == 201 and added.json()[0]["reason"] == "HPC stays."

    schema = api.get("/api/schema/", {"format": "json"}).json()
    suggestion = schema["components"]["schemas"]["Suggestion"]["properties"]
    assert suggestion["outside_main_type"]["type"] == "boolean"
    assert "outside_main_type" in suggestion and "type" in suggestion
    accept = schema["components"]["schemas"]["AcceptSuggestions"]["properties"]
    assert "reason" in accept
