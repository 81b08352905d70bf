"""POC API, who sees and changes what: the library for every signed-in user, members only
(others get 404), roles from the rules, sealed evaluations read-only."""

from decimal import Decimal as D

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evaluations.models import Evaluation, MemberRole, Status
from poc import services
from poc.models import Consensus, Evidence, Score, TestCase, TestGroup
from tests.poc.api.support import (
    READERS,
    cell_url,
    client_for,
    put_score,
    upload,
    url,
)

pytestmark = pytest.mark.django_db


# --- the library -----------------------------------------------------------------------------


def test_any_signed_in_user_reads_the_library(people):
    outsider = client_for(people["outsider"])
    groups = outsider.get("/api/poc/groups/").json()
    assert [g["key"] for g in groups] == list(TestGroup.objects.values_list("key", flat=True))
    cases = outsider.get("/api/poc/cases/", {"group": "governance"}).json()
    assert cases and {c["group"] for c in cases} == {"governance"}
    assert len(cases) == TestCase.objects.filter(group__key="governance", is_active=True).count()
    every = outsider.get("/api/poc/cases/").json()
    latency = next(c for c in every if c["key"] == "preemption_latency")
    assert latency["metric"]["direction"] == "lower" and D(latency["metric"]["threshold"]) == 60
    profiles = {p["key"]: p for p in outsider.get("/api/poc/profiles/").json()}
    training = {w["group"]: D(w["weight"]) for w in profiles["training_heavy"]["weights"]}
    assert training["batch_training"] == D("45")
    assert client_for().get("/api/poc/groups/").status_code in (401, 403)
    assert outsider.post("/api/poc/groups/", {"key": "x"}).status_code == 405


# --- who sees and changes what ---------------------------------------------------------------


def every_endpoint(evaluation, poc):
    case, slurm = poc["case"], poc["slurm"]
    evidence = Evidence.objects.first()
    group = case.group.key
    return [
        ("get", url(evaluation, "plan/"), None),
        ("post", url(evaluation, "plan/init/"), {}),
        ("post", url(evaluation, "plan/cases/"), {"library_case": "long_run_soak"}),
        ("get", url(evaluation, f"plan/cases/{case.pk}/"), None),
        ("patch", url(evaluation, f"plan/cases/{case.pk}/"), {"weight": "9", "version": 1}),
        ("delete", url(evaluation, f"plan/cases/{case.pk}/"), None),
        ("patch", url(evaluation, f"plan/groups/{group}/"), {"weight": "9", "version": 1}),
        ("post", url(evaluation, "plan/profile/"), {"profile": "balanced"}),
        ("get", url(evaluation, "scorecard/"), None),
        ("get", cell_url(evaluation, case, slurm, "score/"), None),
        ("put", cell_url(evaluation, case, slurm, "score/"), {"score": "3"}),
        ("post", url(evaluation, "submit/"), {}),
        ("put", cell_url(evaluation, case, slurm, "consensus/"), {"score": "3", "reason": "x"}),
        ("get", url(evaluation, f"evidence/{evidence.pk}/"), None),
        ("get", url(evaluation, "results/"), None),
        ("get", url(evaluation, "scorecard.xlsx"), None),
    ]


def snapshot(evaluation):
    return (
        list(evaluation.poc_cases.values_list("pk", "weight", "version")),
        list(evaluation.poc_groups.values_list("pk", "weight", "version")),
        list(Score.objects.values_list("pk", "score", "version", "submitted_at")),
        Consensus.objects.count(),
    )


def test_an_outsider_gets_404_everywhere_and_changes_nothing(evaluation, people, poc):
    r1 = poc["r1"]
    services.score_save(
        user=r1, case=poc["case"], candidate=poc["slurm"], score="4", expected_version=0
    )
    assert upload(r1, evaluation, poc["case"], poc["slurm"], "log.txt", b"ok").status_code == 201
    before = snapshot(evaluation)
    outsider = client_for(people["outsider"])
    for method, path, body in every_endpoint(evaluation, poc):
        response = getattr(outsider, method)(path, body)
        assert response.status_code == 404, (method, path, response.status_code)
    evidence_path = cell_url(evaluation, poc["case"], poc["slurm"], "evidence/")
    posted = outsider.post(
        evidence_path, {"file": SimpleUploadedFile("x.txt", b"x")}, format="multipart"
    )
    assert posted.status_code == 404
    assert snapshot(evaluation) == before and Evidence.objects.count() == 1


@pytest.mark.parametrize("role", READERS)
def test_every_member_reads_the_plan_scorecard_results_and_workbook(evaluation, people, poc, role):
    client = client_for(people[role])
    for path in ["plan/", "scorecard/", "results/", "scorecard.xlsx"]:
        response = client.get(url(evaluation, path))
        assert response.status_code == 200, (path, response.status_code)
    plan = client.get(url(evaluation, "plan/")).json()
    assert len(plan["cases"]) == evaluation.poc_cases.count()


def test_a_viewer_reads_but_cannot_score_submit_or_attach(evaluation, people, poc):
    viewer = people[MemberRole.VIEWER]
    case, slurm = poc["case"], poc["slurm"]
    card = client_for(viewer).get(url(evaluation, "scorecard/")).json()
    assert card["can_score"] is False and card["can_record_consensus"] is False
    response = put_score(viewer, evaluation, case, slurm, score="3")
    assert response.status_code == 403
    assert "does not allow" in response.json()["detail"]
    assert client_for(viewer).post(url(evaluation, "submit/"), {}).status_code == 403
    assert upload(viewer, evaluation, case, slurm, "a.txt", b"x").status_code == 403
    assert not Score.objects.exists() and not Evidence.objects.exists()


def test_a_reviewer_cannot_change_the_plan(evaluation, poc):
    reviewer = client_for(poc["r1"])
    case = poc["case"]
    before = snapshot(evaluation)
    for method, path, body in [
        ("post", url(evaluation, "plan/init/"), {}),
        ("post", url(evaluation, "plan/cases/"), {"group": "governance", "title": "T"}),
        ("patch", url(evaluation, f"plan/cases/{case.pk}/"), {"weight": "9", "version": 1}),
        ("patch", url(evaluation, "plan/groups/governance/"), {"weight": "9", "version": 1}),
        ("delete", url(evaluation, f"plan/cases/{case.pk}/"), None),
        ("post", url(evaluation, "plan/profile/"), {"profile": "training_heavy"}),
    ]:
        response = getattr(reviewer, method)(path, body)
        assert response.status_code == 403, (method, path, response.status_code)
    assert snapshot(evaluation) == before


def test_a_sealed_evaluation_is_read_only(evaluation, owner, poc):
    Evaluation.objects.filter(pk=evaluation.pk).update(status=Status.ARCHIVED)
    response = put_score(poc["r1"], evaluation, poc["case"], poc["slurm"], score="3")
    assert response.status_code == 409 and "sealed" in response.json()["detail"]
    assert client_for(owner).post(url(evaluation, "plan/init/")).status_code == 409
    assert client_for(poc["r1"]).get(url(evaluation, "scorecard/")).status_code == 200
    assert not Score.objects.exists()
