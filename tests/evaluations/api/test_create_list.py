"""Evaluations API, creating and listing: the new evaluation, filters, and list queries that
do not grow."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from evaluations import services
from evaluations.models import (
    Evaluation,
    FiveQuestion,
    MemberRole,
)
from tests.evaluations.api.support import signed_in
from tests.factories import add_candidates, answer_all, make_evaluation

pytestmark = pytest.mark.django_db


# --- creating and listing --------------------------------------------------------------------

NEW_EVALUATION = {
    "title": "Inference platform",
    "organisation": "Search team",
    "scenarios": ["inference", "platform-governance"],
    "private_deployment_required": True,
    "plans_hybrid": True,
    "unified_view_owner": "Platform team",
    "notes": "Budget approved for 2027.",
}


def test_a_tech_lead_creates_an_evaluation_and_owns_it(api, tech_lead):
    response = signed_in(api, tech_lead).post("/api/evaluations/", NEW_EVALUATION, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["my_role"] == "owner" and body["status"] == "draft" and body["version"] == 1
    assert sorted(body["scenarios"]) == ["inference", "platform-governance"]
    assert response["Location"] == body["url"] == f"/api/evaluations/{body['id']}/"
    evaluation = Evaluation.objects.get(pk=body["id"])
    assert evaluation.private_deployment_required and evaluation.plans_hybrid
    assert evaluation.unified_view_owner == "Platform team"
    assert evaluation.memberships.get().user == tech_lead
    assert api.get(body["url"]).status_code == 200


def test_procurement_cannot_create(api, procurement):
    response = signed_in(api, procurement).post("/api/evaluations/", NEW_EVALUATION, format="json")
    assert response.status_code == 403
    assert "tech leads" in response.json()["detail"]
    assert not Evaluation.objects.exists()


@pytest.mark.parametrize(
    "change,field,message",
    [
        ({"scenarios": ["training", "quantum"]}, "scenarios", "quantum"),
        ({"scenarios": []}, "scenarios", "at least one primary scenario"),
        ({"title": "   "}, "title", "blank"),
        ({"title": "x" * 201}, "title", "200 characters"),
    ],
)
def test_bad_new_evaluations_are_refused_with_a_message(api, tech_lead, change, field, message):
    response = signed_in(api, tech_lead).post(
        "/api/evaluations/", {**NEW_EVALUATION, **change}, format="json"
    )
    assert response.status_code == 400
    assert message in str(response.json()[field])
    assert not Evaluation.objects.exists()


def test_the_list_shows_my_evaluations_with_progress_and_reminders(api, evaluation, owner, people):
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    answer_all(slurm, owner)
    services.candidate_eliminate(
        user=owner, candidate=volcano, reason="No batch team", expected_version=1
    )
    make_evaluation(people["outsider"], title="Not shared with me")
    response = signed_in(api, people[MemberRole.VIEWER]).get("/api/evaluations/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1
    (item,) = body["results"]
    questions = FiveQuestion.objects.filter(is_active=True).count()
    assert item["title"] == "GPU platform 2027" and item["my_role"] == "viewer"
    assert item["scenarios"] == ["training"] and item["status"] == "draft"
    assert item["candidate_count"] == 1
    assert item["progress"] == {"answered": questions, "total": questions}
    # One shortlisted candidate: "fewer than three candidates".
    assert item["open_reminders"] >= 1


def test_the_list_filters_by_status_and_text(api, owner):
    make_evaluation(owner, title="Training cluster", organisation="Research")
    inference = make_evaluation(owner, title="Inference fleet", organisation="Search")
    services.evaluation_transition(user=owner, evaluation=inference, to_status="poc")
    client = signed_in(api, owner)

    def titles(**params):
        response = client.get("/api/evaluations/", params)
        assert response.status_code == 200
        return sorted(e["title"] for e in response.json()["results"])

    assert titles() == ["Inference fleet", "Training cluster"]
    rows = client.get("/api/evaluations/").json()["results"]
    assert [row["candidate_count"] for row in rows] == [0, 0]  # none shortlisted yet
    assert titles(status="poc") == ["Inference fleet"]
    assert titles(q="research") == ["Training cluster"]
    assert titles(q="fleet", status="draft") == []
    assert client.get("/api/evaluations/", {"status": "done"}).status_code == 400


def list_queries(client) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/api/evaluations/")
    assert response.status_code == 200
    return len(queries)


def test_list_queries_do_not_grow_with_evaluations_or_candidates(
    api, owner, django_assert_max_num_queries
):
    client = signed_in(api, owner)

    def add(n):
        for i in range(n):
            evaluation = make_evaluation(owner, title=f"Evaluation {i}")
            candidates = add_candidates(evaluation, owner, "slurm", "volcano", "kuberay")
            answer_all(candidates[0], owner)

    add(2)
    # A fixed cost (matrices, costs, constraint claims and reminders ride along); what matters
    # is that it does not grow with the number of evaluations or candidates, asserted below.
    # (+1: the areas the who-questions ask about, for the answers-and-matrix reminder; +1: the
    # test beds, for the reminder when candidates were tested on different ones.)
    # Cold: every row's status is computed and stored (+8: reading the stored ones, the stamps,
    # making any missing (and dropping a digest left without one), claiming the rows to store
    # (advisory locks), storing in a savepoint).
    with django_assert_max_num_queries(36):
        assert len(client.get("/api/evaluations/").json()["results"]) == 2
    # Warm: the stored status is current, nothing of the evaluations' data is read (the
    # candidates are counted in the page's query, the scenarios come in one more).
    with django_assert_max_num_queries(6):
        assert len(client.get("/api/evaluations/").json()["results"]) == 2
    warm = list_queries(client)
    add(4)  # four rows to compute, two stored
    cold = list_queries(client)
    assert len(client.get("/api/evaluations/").json()["results"]) == 6
    assert list_queries(client) == warm
    changed = Evaluation.objects.filter(title="Evaluation 1").first()
    answer_all(changed.candidates.order_by("pk")[1], owner)
    assert list_queries(client) == cold  # one row to compute costs what four did
