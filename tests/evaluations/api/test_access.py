"""Evaluations API, who sees and changes what: members only (others get 404), roles
from the rules."""

import pytest

from common import roles
from evaluations.models import (
    ContextAnswer,
    Decision,
    MemberRole,
    QuestionAnswer,
    Status,
)
from tests.conftest import make_user
from tests.evaluations.api.support import (
    READ_ONLY,
    READERS,
    signed_in,
    url,
)

pytestmark = pytest.mark.django_db


# --- who sees and changes what ---------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/evaluations/", "/api/evaluations/{pk}/"])
def test_anonymous_is_refused(api, evaluation, path):
    response = api.get(path.format(pk=evaluation.pk))
    assert response.status_code in (401, 403)
    assert api.post("/api/evaluations/", {"title": "x"}, format="json").status_code in (401, 403)


@pytest.mark.parametrize("role", [*READERS, "outsider"])
def test_detail_is_for_members_only(api, evaluation, people, role):
    response = signed_in(api, people[role]).get(url(evaluation))
    if role == "outsider":
        assert response.status_code == 404
        return
    assert response.status_code == 200
    body = response.json()
    assert body["title"] == "GPU platform 2027"
    assert body["scenarios"] == ["training"]
    assert body["my_role"] == role
    assert response["ETag"] == f'"{body["version"]}"'


@pytest.mark.parametrize(
    "role,expected", [("owner", 200), ("editor", 200), ("reviewer", 403), ("viewer", 403)]
)
def test_patch_by_role(api, evaluation, people, role, expected):
    response = signed_in(api, people[role]).patch(
        url(evaluation), {"title": f"Renamed by {role}", "version": 1}, format="json"
    )
    assert response.status_code == expected, response.json()
    evaluation.refresh_from_db()
    if expected == 200:
        assert evaluation.title == f"Renamed by {role}"
        assert response.json()["version"] == 2 and response["ETag"] == '"2"'
    else:
        assert evaluation.title == "GPU platform 2027"
        assert "role" in response.json()["detail"]


@pytest.mark.parametrize(
    "role,expected",
    [("owner", 201), ("editor", 403), ("reviewer", 403), ("viewer", 403), ("outsider", 404)],
)
def test_only_the_owner_adds_members(api, evaluation, people, role, expected):
    make_user(roles.REVIEWER, username="newbie")
    response = signed_in(api, people[role]).post(
        url(evaluation, "members/"), {"username": "newbie", "role": "reviewer"}, format="json"
    )
    assert response.status_code == expected
    added = evaluation.memberships.filter(user__username="newbie").exists()
    assert added == (expected == 201)
    if expected == 201:
        assert response.json()["role"] == "reviewer"


@pytest.mark.parametrize(
    "role,expected",
    [("owner", 200), ("editor", 200), ("reviewer", 403), ("viewer", 403), ("outsider", 404)],
)
def test_transition_by_role(api, evaluation, people, role, expected):
    response = signed_in(api, people[role]).post(
        url(evaluation, "transition/"), {"status": "poc"}, format="json"
    )
    assert response.status_code == expected
    evaluation.refresh_from_db()
    assert evaluation.status == (Status.POC if expected == 200 else Status.DRAFT)


def every_endpoint(evaluation, candidate, membership):
    e, c, m = evaluation.pk, candidate.pk, membership.pk
    base = f"/api/evaluations/{e}/"
    return [
        ("get", base, None),
        ("patch", base, {"title": "Mine now", "version": 1}),
        ("post", base + "transition/", {"status": "poc"}),
        ("get", base + "members/", None),
        ("post", base + "members/", {"username": "outsider", "role": "owner"}),
        ("patch", base + f"members/{m}/", {"role": "viewer"}),
        ("delete", base + f"members/{m}/", None),
        ("get", base + "context/", None),
        ("get", base + "context/hpc_batch_queues/", None),
        ("put", base + "context/hpc_batch_queues/", {"value": "yes"}),
        ("get", base + "suggestions/", None),
        ("post", base + "suggestions/accept/", {}),
        ("get", base + "candidates/", None),
        ("post", base + "candidates/", {"solution": "volcano", "reason": "Batch"}),
        ("get", base + f"candidates/{c}/", None),
        ("post", base + f"candidates/{c}/eliminate/", {"reason": "No", "version": 1}),
        ("post", base + f"candidates/{c}/restore/", {"version": 1}),
        ("get", base + f"candidates/{c}/answers/", None),
        ("get", base + f"candidates/{c}/answers/long_term_team/", None),
        (
            "put",
            base + f"candidates/{c}/answers/long_term_team/",
            {"parties": ["internal"], "explanation": "Mine"},
        ),
        ("get", base + "decision/", None),
        ("put", base + "decision/", {"chosen": [c], "rationale": "Mine"}),
        ("get", base + "reminders/", None),
        ("get", base + "history/", None),
    ]


def test_an_outsider_gets_404_everywhere_and_changes_nothing(api, evaluation, people, slurm):
    membership = evaluation.memberships.get(user=people[MemberRole.VIEWER])
    outsider = signed_in(api, people["outsider"])
    for method, path, body in every_endpoint(evaluation, slurm, membership):
        response = getattr(outsider, method)(path, body, format="json")
        assert response.status_code == 404, (method, path, response.status_code)
    evaluation.refresh_from_db()
    assert evaluation.title == "GPU platform 2027" and evaluation.status == Status.DRAFT
    assert evaluation.memberships.count() == 4
    assert not ContextAnswer.objects.exists() and not QuestionAnswer.objects.exists()
    assert list(evaluation.candidates.values_list("status", flat=True)) == ["shortlisted"]
    assert not Decision.objects.exists()


@pytest.mark.parametrize("role", READ_ONLY)
def test_reviewers_and_viewers_read_everything_but_change_nothing(
    api, evaluation, people, slurm, role
):
    membership = evaluation.memberships.get(user=people[MemberRole.EDITOR])
    client = signed_in(api, people[role])
    for method, path, body in every_endpoint(evaluation, slurm, membership):
        response = getattr(client, method)(path, body, format="json")
        expected = 200 if method == "get" else 403
        assert response.status_code == expected, (method, path, response.status_code)
    evaluation.refresh_from_db()
    assert evaluation.title == "GPU platform 2027" and evaluation.status == Status.DRAFT
    assert not ContextAnswer.objects.exists() and not QuestionAnswer.objects.exists()
    assert evaluation.candidates.count() == 1 and not Decision.objects.exists()
    assert evaluation.memberships.get(pk=membership.pk).role == MemberRole.EDITOR
