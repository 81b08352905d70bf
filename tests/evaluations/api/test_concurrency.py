"""Evaluations API, optimistic concurrency through version or If-Match."""

import pytest

from evaluations import services
from evaluations.models import (
    Candidate,
    CandidateStatus,
    ContextAnswer,
    MemberRole,
    QuestionAnswer,
)
from tests.evaluations.api.support import (
    client_for,
    signed_in,
    url,
)

pytestmark = pytest.mark.django_db


# --- concurrency -----------------------------------------------------------------------------


def test_a_stale_version_in_the_body_is_refused_with_the_saved_value(api, evaluation, people):
    editor = client_for(people[MemberRole.EDITOR])
    assert (
        editor.patch(url(evaluation), {"title": "Editor's title", "version": 1}, format="json")
    ).status_code == 200
    response = signed_in(api, people[MemberRole.OWNER]).patch(
        url(evaluation), {"title": "Owner's title", "version": 1}, format="json"
    )
    assert response.status_code == 409
    body = response.json()
    assert "Someone else saved this" in body["detail"]
    assert body["current"]["title"] == "Editor's title" and body["current"]["version"] == 2
    evaluation.refresh_from_db()
    assert evaluation.title == "Editor's title"


def test_if_match_mismatch_is_412_and_a_match_saves(api, evaluation, owner):
    client = signed_in(api, owner)
    etag = client.get(url(evaluation))["ETag"]
    saved = client.patch(url(evaluation), {"notes": "First"}, format="json", HTTP_IF_MATCH=etag)
    assert saved.status_code == 200 and saved["ETag"] == '"2"'
    stale = client.patch(url(evaluation), {"notes": "Second"}, format="json", HTTP_IF_MATCH=etag)
    assert stale.status_code == 412
    assert stale.json()["current"]["notes"] == "First"
    evaluation.refresh_from_db()
    assert evaluation.notes == "First"


def test_an_unparseable_or_contradicting_precondition_is_400(api, evaluation, owner):
    client = signed_in(api, owner)
    bad = client.patch(url(evaluation), {"notes": "x"}, format="json", HTTP_IF_MATCH="latest")
    assert bad.status_code == 400 and "If-Match" in bad.json()["detail"]
    both = client.patch(
        url(evaluation), {"notes": "x", "version": 2}, format="json", HTTP_IF_MATCH='"1"'
    )
    assert both.status_code == 400 and "version" in both.json()
    evaluation.refresh_from_db()
    assert evaluation.notes == ""


def test_updating_without_a_precondition_is_428(api, evaluation, owner, slurm):
    client = signed_in(api, owner)
    context = url(evaluation, "context/hpc_batch_queues/")
    # Creating needs no precondition ...
    assert client.put(context, {"value": "yes"}, format="json").status_code == 201
    services.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=[],
        rationale="",
        decided_on=None,
        decided_by="",
        expected_version=None,
    )
    # ... updating a saved row does.
    for method, path, body in [
        ("patch", url(evaluation), {"title": "No version"}),
        ("put", context, {"value": "no"}),
        ("post", url(evaluation, f"candidates/{slurm.pk}/eliminate/"), {"reason": "Too old"}),
        ("put", url(evaluation, "decision/"), {"rationale": "No version"}),
    ]:
        response = getattr(client, method)(path, body, format="json")
        assert response.status_code == 428, (path, response.status_code)
        assert "If-Match" in response.json()["detail"]
    assert ContextAnswer.objects.get().value == "yes"
    evaluation.refresh_from_db()
    assert evaluation.title == "GPU platform 2027"
    assert Candidate.objects.get().status == CandidateStatus.SHORTLISTED


def test_two_editors_answering_the_same_question(api, evaluation, people, slurm):
    path = url(evaluation, f"candidates/{slurm.pk}/answers/long_term_team/")
    owner = client_for(people[MemberRole.OWNER])
    editor = signed_in(api, people[MemberRole.EDITOR])
    assert owner.get(path)["ETag"] == '"0"'
    first = {"parties": ["internal"], "explanation": "Team of four"}
    created = owner.put(path, first, format="json", HTTP_IF_MATCH='"0"')
    assert created.status_code == 201 and created["ETag"] == '"1"'
    # The editor also saw no answer yet: a second "create" must not overwrite the first.
    late = {"parties": ["vendor"], "explanation": "Vendor", "version": 0}
    response = editor.put(path, late, format="json")
    assert response.status_code == 409
    assert response.json()["current"]["explanation"] == "Team of four"
    update = editor.put(path, {**late, "version": 1}, format="json")
    assert update.status_code == 200 and update.json()["answer"]["parties"] == ["vendor"]
    assert QuestionAnswer.objects.get().explanation == "Vendor"


def test_context_if_match_on_an_unsaved_answer_is_412(api, evaluation, owner):
    response = signed_in(api, owner).put(
        url(evaluation, "context/ray_workloads/"),
        {"value": "yes"},
        format="json",
        HTTP_IF_MATCH='"3"',
    )
    assert response.status_code == 412
    assert not ContextAnswer.objects.exists()
