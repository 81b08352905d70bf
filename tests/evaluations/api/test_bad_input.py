"""Evaluations API, bad input: the services' errors as 400/403/409 with messages a user can
act on."""

import pytest

from evaluations.models import (
    ContextAnswer,
    Decision,
    MemberRole,
    Membership,
)
from tests.evaluations.api.support import (
    client_for,
    signed_in,
    url,
)
from tests.factories import add_candidates, make_evaluation

pytestmark = pytest.mark.django_db


# --- bad input -------------------------------------------------------------------------------


def test_unknown_ids_and_keys_are_named(api, evaluation, owner, slurm):
    client = signed_in(api, owner)
    assert client.get(url(evaluation, "candidates/999999/")).status_code == 404
    assert client.get(url(evaluation, "candidates/999999/answers/")).status_code == 404
    assert client.get(url(evaluation, "members/999999/")).status_code == 404
    assert client.get("/api/evaluations/999999/").status_code == 404
    question = client.put(url(evaluation, "context/no_such_fact/"), {"value": "yes"})
    assert question.status_code == 404 and "no_such_fact" in question.json()["detail"]
    five = client.put(
        url(evaluation, f"candidates/{slurm.pk}/answers/no_such_question/"),
        {"assessment": "yes"},
    )
    assert five.status_code == 404 and "no_such_question" in five.json()["detail"]
    solution = client.post(
        url(evaluation, "candidates/"), {"solution": "mainframe", "reason": "Why not"}
    )
    assert solution.status_code == 400 and "mainframe" in str(solution.json()["solution"])
    member = client.post(url(evaluation, "members/"), {"username": "nobody", "role": "viewer"})
    assert member.status_code == 400 and "nobody" in str(member.json()["username"])
    role = client.post(url(evaluation, "members/"), {"username": "owner", "role": "boss"})
    assert role.status_code == 400 and "boss" in str(role.json()["role"])
    status = client.post(url(evaluation, "transition/"), {"status": "done"})
    assert status.status_code == 400 and "done" in str(status.json()["status"])
    value = client.put(url(evaluation, "context/ray_workloads/"), {"value": "maybe"})
    assert value.status_code == 400 and "maybe" in str(value.json()["value"])
    assert evaluation.candidates.count() == 1 and not ContextAnswer.objects.exists()


def test_accepting_unknown_or_unsuggested_solutions_is_refused(api, evaluation, owner):
    client = signed_in(api, owner)
    client.put(url(evaluation, "context/hpc_batch_queues/"), {"value": "yes"})
    unknown = client.post(
        url(evaluation, "suggestions/accept/"), {"solutions": ["slurm", "nope"]}, format="json"
    )
    assert unknown.status_code == 400 and "nope" in str(unknown.json()["solutions"])
    unsuggested = client.post(
        url(evaluation, "suggestions/accept/"), {"solutions": ["runai"]}, format="json"
    )
    assert unsuggested.status_code == 400 and "Not suggested" in str(unsuggested.json())
    assert not evaluation.candidates.exists()
    everything = client.post(url(evaluation, "suggestions/accept/"), {}, format="json")
    assert everything.status_code == 201
    assert [c["solution"]["slug"] for c in everything.json()] == ["slurm"]
    again = client.post(url(evaluation, "suggestions/accept/"), {}, format="json")
    assert again.status_code == 200 and again.json() == []


def test_a_candidate_cannot_be_added_twice_or_without_a_reason(api, evaluation, owner, slurm):
    client = signed_in(api, owner)
    twice = client.post(url(evaluation, "candidates/"), {"solution": "slurm", "reason": "Again"})
    assert twice.status_code == 400 and "already a candidate" in str(twice.json()["solution"])
    no_reason = client.post(url(evaluation, "candidates/"), {"solution": "volcano", "reason": ""})
    assert no_reason.status_code == 400 and "Say why" in str(no_reason.json()["reason"])
    assert list(evaluation.candidates.values_list("solution__slug", flat=True)) == ["slurm"]


def test_a_decision_cannot_choose_another_evaluations_candidate(api, evaluation, owner, slurm):
    other = make_evaluation(owner, title="Other")
    (foreign,) = add_candidates(other, owner, "volcano")
    response = signed_in(api, owner).put(
        url(evaluation, "decision/"),
        {"chosen": [slurm.pk, foreign.pk], "rationale": "Both"},
        format="json",
    )
    assert response.status_code == 400
    assert str(foreign.pk) in str(response.json()["chosen"])
    assert not Decision.objects.exists()


def test_a_bad_scenario_in_a_patch_saves_nothing(api, evaluation, owner):
    response = signed_in(api, owner).patch(
        url(evaluation),
        {"title": "Half", "scenarios": ["training", "quantum"], "version": 1},
        format="json",
    )
    assert response.status_code == 400 and "quantum" in str(response.json()["scenarios"])
    status = signed_in(api, owner).patch(
        url(evaluation), {"status": "decided", "version": 1}, format="json"
    )
    assert status.status_code == 400 and "transition" in str(status.json()["status"])
    evaluation.refresh_from_db()
    assert evaluation.title == "GPU platform 2027" and evaluation.version == 1


def test_members_change_roles_and_one_owner_remains(api, evaluation, people):
    owner_client = signed_in(api, people[MemberRole.OWNER])
    editor = evaluation.memberships.get(user=people[MemberRole.EDITOR])
    mine = evaluation.memberships.get(user=people[MemberRole.OWNER])
    by_editor = client_for(people[MemberRole.EDITOR]).patch(
        url(evaluation, f"members/{mine.pk}/"), {"role": "viewer"}, format="json"
    )
    assert by_editor.status_code == 403
    demote = owner_client.patch(url(evaluation, f"members/{mine.pk}/"), {"role": "editor"})
    assert demote.status_code == 409 and "at least one owner" in demote.json()["detail"]
    leave = owner_client.delete(url(evaluation, f"members/{mine.pk}/"))
    assert leave.status_code == 409
    promoted = owner_client.patch(url(evaluation, f"members/{editor.pk}/"), {"role": "owner"})
    assert promoted.status_code == 200 and promoted.json()["role"] == "owner"
    assert owner_client.delete(url(evaluation, f"members/{mine.pk}/")).status_code == 204
    assert not Membership.objects.filter(pk=mine.pk).exists()
    # The former owner is now an outsider.
    assert owner_client.get(url(evaluation)).status_code == 404


def test_adding_an_existing_member_is_refused(api, evaluation, people):
    response = signed_in(api, people[MemberRole.OWNER]).post(
        url(evaluation, "members/"), {"username": "viewer-user", "role": "editor"}
    )
    assert response.status_code == 400 and "already a member" in str(response.json())
    membership = evaluation.memberships.get(user=people[MemberRole.VIEWER])
    assert membership.role == MemberRole.VIEWER
