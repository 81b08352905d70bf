"""Evaluations API, reads: what each endpoint returns."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from evaluations import services
from evaluations.models import (
    ContextQuestion,
    FiveQuestion,
    MemberRole,
    QuestionAnswer,
)
from tests.evaluations.api.support import (
    client_for,
    signed_in,
    url,
)
from tests.factories import add_candidates, add_member, answer_all, make_evaluation

pytestmark = pytest.mark.django_db


# --- reads -----------------------------------------------------------------------------------


def test_context_lists_every_active_question_with_its_answer(api, evaluation, owner):
    client = signed_in(api, owner)
    saved = client.put(
        url(evaluation, "context/single_cloud/"), {"value": "yes", "detail": " Aliyun "}
    )
    assert saved.status_code == 201 and saved["ETag"] == '"1"'
    ContextQuestion.objects.filter(key="ray_workloads").update(is_active=False)
    items = client.get(url(evaluation, "context/")).json()
    keys = [i["key"] for i in items]
    assert keys == list(
        ContextQuestion.objects.filter(is_active=True).values_list("key", flat=True)
    )
    by_key = {i["key"]: i for i in items}
    assert by_key["single_cloud"]["answer"]["value"] == "yes"
    assert by_key["single_cloud"]["answer"]["detail"] == "Aliyun"
    assert by_key["single_cloud"]["answer"]["updated_by"] == "owner"
    assert by_key["hpc_batch_queues"]["answer"] is None
    assert "ray_workloads" not in by_key


def test_answers_show_what_is_missing(api, evaluation, owner, slurm):
    client = signed_in(api, owner)
    client.put(
        url(evaluation, f"candidates/{slurm.pk}/answers/long_term_team/"),
        {"parties": ["internal"], "explanation": ""},
        format="json",
    )
    body = client.get(url(evaluation, f"candidates/{slurm.pk}/answers/")).json()
    by_key = {q["key"]: q for q in body["questions"]}
    assert not body["is_complete"] and body["answered"] == 0
    assert body["total"] == FiveQuestion.objects.filter(is_active=True).count()
    assert by_key["long_term_team"]["missing"] == ["explanation"]
    assert by_key["long_term_team"]["answer"]["parties"] == ["internal"]
    assert by_key["incident_triage"]["answer"] is None
    assert by_key["incident_triage"]["missing"] == ["who", "explanation"]
    assert by_key["budget_focus"]["scale"] == "budget"
    assert by_key["budget_focus"]["missing"] == ["what the budget weighs more", "explanation"]
    assert by_key["compliance_evidence"]["missing"] == ["assessment", "explanation"]


def test_answering_an_eliminated_candidate_is_a_conflict(api, evaluation, owner, slurm):
    services.candidate_eliminate(user=owner, candidate=slurm, reason="Gone", expected_version=1)
    response = signed_in(api, owner).put(
        url(evaluation, f"candidates/{slurm.pk}/answers/long_term_team/"),
        {"parties": ["internal"], "explanation": "x"},
        format="json",
    )
    assert response.status_code == 409 and "restore it first" in response.json()["detail"]
    assert not QuestionAnswer.objects.exists()


def test_decision_reads_empty_until_saved(api, evaluation, owner):
    response = signed_in(api, owner).get(url(evaluation, "decision/"))
    assert response.status_code == 200 and response["ETag"] == '"0"'
    assert response.json()["version"] == 0 and response.json()["chosen"] == []


def test_reminders_come_from_the_evaluation_data(api, evaluation, owner, slurm):
    client = signed_in(api, owner)
    reminders = client.get(url(evaluation, "reminders/")).json()
    keys = [r["key"] for r in reminders]
    assert "few-candidates" in keys and "hybrid-without-owner" not in keys
    few = next(r for r in reminders if r["key"] == "few-candidates")
    assert few["severity"] == "medium" and few["fix_url"] and few["fix_label"]
    client.patch(url(evaluation), {"plans_hybrid": True, "version": 1}, format="json")
    reminders = client.get(url(evaluation, "reminders/")).json()
    assert reminders[0]["key"] == "hybrid-without-owner" and reminders[0]["severity"] == "high"


def test_history_says_who_changed_what_newest_first(api, evaluation, people, slurm):
    owner = people[MemberRole.OWNER]
    client = signed_in(api, owner)
    client.patch(url(evaluation), {"title": "Renamed", "version": 1}, format="json")
    client.post(
        url(evaluation, f"candidates/{slurm.pk}/eliminate/"),
        {"reason": "No HPC team", "version": 1},
        format="json",
    )
    viewer = client_for(people[MemberRole.VIEWER])
    response = viewer.get(url(evaluation, "history/"), {"limit": 2})
    assert response.status_code == 200
    body = response.json()
    assert body["count"] >= 6 and len(body["results"]) == 2
    eliminated, renamed = body["results"]
    assert eliminated["model"] == "candidate" and eliminated["object"] == "Slurm"
    assert eliminated["who"] == "owner" and eliminated["action"] == "changed"
    changes = {c["field"]: (c["old"], c["new"]) for c in eliminated["changes"]}
    assert changes["status"] == ("shortlisted", "eliminated")
    assert changes["elimination_reason"] == ("", "No HPC team")
    assert renamed["model"] == "evaluation"
    assert [(c["field"], c["old"], c["new"]) for c in renamed["changes"]] == [
        ("title", "GPU platform 2027", "Renamed")
    ]
    everything = viewer.get(url(evaluation, "history/"), {"limit": 100}).json()["results"]
    when = [e["when"] for e in everything]
    assert when == sorted(when, reverse=True)
    members = [e for e in everything if e["model"] == "membership"]
    assert {e["object"] for e in members} >= {"owner", "viewer-user"}
    scenarios = [c for e in everything if e["model"] == "evaluation" for c in e["changes"]]
    assert any(c["field"] == "scenarios" and c["new"] for c in scenarios)


def test_history_queries_do_not_grow_with_its_length(api, evaluation, owner):
    client = signed_in(api, owner)

    def history_queries():
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url(evaluation, "history/"), {"limit": 500})
        assert response.status_code == 200
        return len(queries), response.json()["count"]

    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner)
    answer_all(slurm, owner, assessment="partly")
    few, short = history_queries()
    for candidate in add_candidates(evaluation, owner, "volcano", "kuberay", "runai"):
        answer_all(candidate, owner)
        answer_all(candidate, owner, assessment="partly")
    many, long = history_queries()
    assert long > short + 30
    assert many == few


def test_the_list_shows_my_role_in_each_evaluation(api, evaluation, people):
    other = make_evaluation(people["outsider"], title="Outsider's")
    add_member(other, people[MemberRole.VIEWER], MemberRole.EDITOR)
    client = signed_in(api, people[MemberRole.VIEWER])
    roles_by_title = {
        e["title"]: e["my_role"] for e in client.get("/api/evaluations/").json()["results"]
    }
    assert roles_by_title == {evaluation.title: "viewer", "Outsider's": "editor"}


def test_the_schema_lists_the_evaluation_endpoints(api, tech_lead):
    response = signed_in(api, tech_lead).get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in [
        "/api/evaluations/",
        "/api/evaluations/{id}/",
        "/api/evaluations/{id}/transition/",
        "/api/evaluations/{evaluation_pk}/members/{id}/",
        "/api/evaluations/{evaluation_pk}/context/{question_key}/",
        "/api/evaluations/{evaluation_pk}/suggestions/accept/",
        "/api/evaluations/{evaluation_pk}/candidates/{id}/eliminate/",
        "/api/evaluations/{evaluation_pk}/candidates/{candidate_pk}/answers/{question_key}/",
        "/api/evaluations/{evaluation_pk}/decision/",
        "/api/evaluations/{evaluation_pk}/reminders/",
        "/api/evaluations/{evaluation_pk}/history/",
    ]:
        assert path in paths, path
    assert {"get", "post"} <= set(paths["/api/evaluations/"])
    assert "patch" in paths["/api/evaluations/{id}/"]
