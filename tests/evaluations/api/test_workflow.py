"""Evaluations API, the workflow: status moves, the decided gate, reopening."""

import pytest

from evaluations import services
from evaluations.models import (
    Candidate,
    CandidateStatus,
    Decision,
    FiveQuestion,
    MemberRole,
    Status,
)
from tests.evaluations.api.support import (
    decide,
    signed_in,
    url,
)
from tests.factories import add_candidates, answer_all

pytestmark = pytest.mark.django_db


# --- workflow --------------------------------------------------------------------------------


def test_marking_decided_too_early_lists_what_is_missing(api, evaluation, owner, slurm):
    answer_all(slurm, owner)
    add_candidates(evaluation, owner, "volcano")
    services.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc")
    response = signed_in(api, owner).post(
        url(evaluation, "transition/"), {"status": "decided"}, format="json"
    )
    assert response.status_code == 409, response.json()
    missing = response.json()["missing"]
    assert "There is no decision record." in missing
    assert len([m for m in missing if m.startswith("Volcano")]) == FiveQuestion.objects.count()
    assert not [m for m in missing if m.startswith("Slurm")]
    evaluation.refresh_from_db()
    assert evaluation.status == Status.POC


def test_an_invalid_transition_is_a_conflict_naming_the_allowed_ones(api, evaluation, owner):
    response = signed_in(api, owner).post(
        url(evaluation, "transition/"), {"status": "archived"}, format="json"
    )
    assert response.status_code == 409
    assert "Allowed next" in response.json()["detail"]
    evaluation.refresh_from_db()
    assert evaluation.status == Status.DRAFT


def test_the_whole_workflow_through_the_api(api, evaluation, owner):
    client = signed_in(api, owner)
    for key in ("hpc_batch_queues", "k8s_batch_jobs"):
        assert (
            client.put(url(evaluation, f"context/{key}/"), {"value": "yes"}, format="json")
        ).status_code == 201
    suggestions = client.get(url(evaluation, "suggestions/")).json()
    suggested = {s["solution"]["slug"]: s for s in suggestions}
    assert {"slurm", "volcano"} <= set(suggested)
    assert suggested["slurm"]["rules"][0]["key"] == "hpc-team-batch-queues"
    assert suggested["slurm"]["already_candidate"] is None
    accepted = client.post(
        url(evaluation, "suggestions/accept/"), {"solutions": ["slurm", "volcano"]}, format="json"
    )
    assert accepted.status_code == 201
    assert {c["origin"] for c in accepted.json()} == {"suggested"}
    ids = {c["solution"]["slug"]: c["id"] for c in accepted.json()}
    suggestions = client.get(url(evaluation, "suggestions/")).json()
    assert {s["solution"]["slug"]: s["already_candidate"] for s in suggestions}["slurm"] == ids[
        "slurm"
    ]
    # Volcano goes; Slurm gets its five answers.
    eliminated = client.post(
        url(evaluation, f"candidates/{ids['volcano']}/eliminate/"),
        {"reason": "No Kubernetes team", "version": 1},
        format="json",
    )
    assert eliminated.status_code == 200 and eliminated.json()["status"] == "eliminated"
    for question in FiveQuestion.objects.filter(is_active=True):
        saved = client.put(
            url(evaluation, f"candidates/{ids['slurm']}/answers/{question.key}/"),
            {
                "parties": ["internal"],
                "assessment": "yes",
                "budget": "people",
                "explanation": "Checked",
            },
            format="json",
        )
        assert saved.status_code == 201, saved.json()
    answers = client.get(url(evaluation, f"candidates/{ids['slurm']}/answers/")).json()
    assert answers["is_complete"] and answers["answered"] == answers["total"]
    decision = client.put(
        url(evaluation, "decision/"),
        {
            "chosen": [ids["slurm"]],
            "rationale": "Runs on the queues we have.",
            "decided_on": "2026-11-30",
            "decided_by": "Architecture board",
        },
        format="json",
    )
    assert decision.status_code == 201 and decision["ETag"] == '"1"'
    assert decision.json()["chosen_solutions"] == ["slurm"]
    poc = client.post(url(evaluation, "transition/"), {"status": "poc"}, format="json")
    assert poc.status_code == 200 and poc.json()["status"] == "poc"
    # The method: the type carrying the main responsibility is decided before the tools.
    refused = client.post(url(evaluation, "transition/"), {"status": "decided"}, format="json")
    assert refused.status_code == 409
    assert [m for m in refused.json()["missing"] if m.startswith("No type has been decided")]
    hpc = Candidate.objects.get(pk=ids["slurm"]).solution.solution_type.slug
    step = client.get(url(evaluation, "type/"))
    typed = client.put(
        url(evaluation, "type/"),
        {"type": hpc, "reason": "The HPC team runs it.", "version": int(step["ETag"].strip('"'))},
        format="json",
    )
    assert typed.status_code == 200, typed.json()
    decided = client.post(url(evaluation, "transition/"), {"status": "decided"}, format="json")
    assert decided.status_code == 200, decided.json()
    assert decided.json()["status"] == "decided" and decided.json()["is_sealed"]


def test_a_sealed_evaluation_refuses_writes_until_reopened(api, evaluation, owner):
    evaluation = decide(evaluation, owner)
    slurm = evaluation.candidates.get(solution__slug="slurm")
    client = signed_in(api, owner)
    writes = [
        ("patch", url(evaluation), {"title": "After the fact", "version": evaluation.version}),
        ("put", url(evaluation, "context/ray_workloads/"), {"value": "yes"}),
        ("post", url(evaluation, "candidates/"), {"solution": "kuberay", "reason": "Late"}),
        (
            "put",
            url(evaluation, f"candidates/{slurm.pk}/answers/budget_focus/"),
            {"budget": "software", "explanation": "x", "version": 1},
        ),
        (
            "post",
            url(evaluation, f"candidates/{slurm.pk}/eliminate/"),
            {"reason": "x", "version": 1},
        ),
        ("put", url(evaluation, "decision/"), {"rationale": "Changed", "version": 1}),
    ]
    for method, path, body in writes:
        response = getattr(client, method)(path, body, format="json")
        assert response.status_code == 409, (path, response.status_code)
        assert "sealed" in response.json()["detail"]
    assert Decision.objects.get().rationale == "The HPC team already runs batch queues."
    no_reason = client.post(url(evaluation, "transition/"), {"status": "poc"}, format="json")
    assert no_reason.status_code == 400 and "reason" in no_reason.json()
    reopened = client.post(
        url(evaluation, "transition/"),
        {"status": "poc", "reason": "The vendor changed its price"},
        format="json",
    )
    assert reopened.status_code == 200 and reopened.json()["status"] == "poc"
    assert (
        client.patch(
            url(evaluation), {"title": "Round two", "version": reopened.json()["version"]}
        ).status_code
        == 200
    )


def test_only_the_owner_reopens(api, evaluation, owner, people):
    evaluation = decide(evaluation, owner)
    response = signed_in(api, people[MemberRole.EDITOR]).post(
        url(evaluation, "transition/"), {"status": "poc", "reason": "I want to"}, format="json"
    )
    assert response.status_code == 403
    evaluation.refresh_from_db()
    assert evaluation.status == Status.DECIDED


def test_eliminate_and_restore_with_etags(api, evaluation, owner, slurm):
    client = signed_in(api, owner)
    detail = client.get(url(evaluation, f"candidates/{slurm.pk}/"))
    assert detail.status_code == 200 and detail.json()["solution"]["slug"] == "slurm"
    no_reason = client.post(
        url(evaluation, f"candidates/{slurm.pk}/eliminate/"),
        {"reason": "  "},
        format="json",
        HTTP_IF_MATCH=detail["ETag"],
    )
    assert no_reason.status_code == 400 and "reason" in no_reason.json()
    assert Candidate.objects.get().status == CandidateStatus.SHORTLISTED
    gone = client.post(
        url(evaluation, f"candidates/{slurm.pk}/eliminate/"),
        {"reason": "No HPC team"},
        format="json",
        HTTP_IF_MATCH=detail["ETag"],
    )
    assert gone.status_code == 200 and gone["ETag"] == '"2"'
    assert gone.json()["elimination_reason"] == "No HPC team"
    assert gone.json()["eliminated_by"] == "owner"
    twice = client.post(
        url(evaluation, f"candidates/{slurm.pk}/eliminate/"),
        {"reason": "Again", "version": 2},
        format="json",
    )
    assert twice.status_code == 409 and "already eliminated" in twice.json()["detail"]
    stale = client.post(
        url(evaluation, f"candidates/{slurm.pk}/restore/"), {}, HTTP_IF_MATCH=detail["ETag"]
    )
    assert stale.status_code == 412 and stale.json()["current"]["status"] == "eliminated"
    back = client.post(url(evaluation, f"candidates/{slurm.pk}/restore/"), {"version": 2})
    assert back.status_code == 200 and back.json()["status"] == "shortlisted"
