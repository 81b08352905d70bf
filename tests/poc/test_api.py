"""POC API: members only (others get 404), one plan for every candidate, blind scoring exactly
as on the scorecard page, the services' errors as 400/403/409, optimistic concurrency through
version or If-Match, evidence limits and downloads, results, the .xlsx export and a query count
that does not grow with candidates × cases × reviewers."""

import hashlib
from decimal import Decimal as D
from io import BytesIO

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from common import roles
from evaluations.models import Evaluation, MemberRole, Status
from evaluations.services import candidate_add
from poc import services
from poc.models import Consensus, Evidence, PlanCase, PlanGroup, Score, TestCase, TestGroup
from tests.conftest import make_user
from tests.factories import (
    SolutionFactory,
    add_candidates,
    add_member,
    declare_none,
    make_evaluation,
    unused_pk,
)

pytestmark = pytest.mark.django_db

READERS = [MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER]


def client_for(user=None) -> APIClient:
    client = APIClient()
    client.default_format = "json"
    if user is not None:
        client.force_authenticate(user)
    return client


def url(evaluation, rest=""):
    return f"/api/evaluations/{evaluation.pk}/poc/{rest}"


def cell_url(evaluation, case, candidate, rest):
    return url(evaluation, f"cells/{case.pk}/{candidate.pk}/{rest}")


@pytest.fixture
def poc(evaluation, owner, people):
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    services.plan_init(user=owner, evaluation=evaluation)
    second = make_user(roles.REVIEWER, username="rev2")
    add_member(evaluation, second, MemberRole.REVIEWER)
    declare_none(evaluation, owner, people[MemberRole.EDITOR], people[MemberRole.REVIEWER], second)
    return {
        "slurm": slurm,
        "volcano": volcano,
        "case": evaluation.poc_cases.get(source_case__key="gang_under_contention"),
        "latency": evaluation.poc_cases.get(source_case__key="preemption_latency"),
        "r1": people[MemberRole.REVIEWER],
        "r2": second,
    }


def put_score(user, evaluation, case, candidate, **body):
    return client_for(user).put(cell_url(evaluation, case, candidate, "score/"), body)


def cell_of(body, case, candidate):
    return next(c for c in body["cells"] if c["case"] == case.pk and c["candidate"] == candidate.pk)


def scorecard_cell(user, evaluation, case, candidate):
    response = client_for(user).get(url(evaluation, "scorecard/"))
    assert response.status_code == 200
    return cell_of(response.json(), case, candidate)


def upload(user, evaluation, case, candidate, filename, content, **extra):
    return client_for(user).post(
        cell_url(evaluation, case, candidate, "evidence/"),
        {"file": SimpleUploadedFile(filename, content), **extra},
        format="multipart",
    )


def download(user, evaluation, evidence_id):
    return client_for(user).get(url(evaluation, f"evidence/{evidence_id}/"))


def file_bytes(response) -> bytes:
    return b"".join(response.streaming_content)


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


# --- the plan --------------------------------------------------------------------------------


def test_the_owner_builds_the_plan(evaluation, owner, poc):
    client = client_for(owner)
    plan = client.get(url(evaluation, "plan/")).json()
    assert [g["key"] for g in plan["groups"]] == list(
        TestGroup.objects.values_list("key", flat=True)
    )
    gang = next(c for c in plan["cases"] if c["id"] == poc["case"].pk)
    assert gang["title"] == "Gang scheduling under contention" and gang["acceptance"]
    assert gang["library_case"] == "gang_under_contention"

    # Remove a case, then add it back from the library.
    path = url(evaluation, f"plan/cases/{poc['case'].pk}/")
    assert client.delete(path).status_code == 204
    assert client.get(path).status_code == 404
    added = client.post(url(evaluation, "plan/cases/"), {"library_case": "gang_under_contention"})
    assert added.status_code == 201 and added["ETag"] == '"1"'
    again = client.post(url(evaluation, "plan/cases/"), {"library_case": "gang_under_contention"})
    assert again.status_code == 400 and "already in the plan" in str(again.json())
    assert client.post(url(evaluation, "plan/init/")).json()["added"] == 0

    # An own case with a metric; half a metric is refused.
    own = client.post(
        url(evaluation, "plan/cases/"),
        {
            "group": "governance",
            "title": "Audit export",
            "acceptance": "Exports a day of audit events in under a minute.",
            "weight": "2",
            "metric_name": "Export time",
            "metric_unit": "s",
            "metric_direction": "lower",
            "metric_threshold": "60",
        },
    )
    assert own.status_code == 201, own.json()
    body = own.json()
    assert body["library_case"] is None and body["metric"]["unit"] == "s"
    assert own["Location"] == url(evaluation, f"plan/cases/{body['id']}/")
    half = client.post(
        url(evaluation, "plan/cases/"),
        {"group": "governance", "title": "X", "acceptance": "Y", "metric_direction": "lower"},
    )
    assert half.status_code == 400 and "metric_threshold" in half.json()
    assert client.post(url(evaluation, "plan/cases/"), {"title": "No group"}).status_code == 400

    # Weights change with If-Match; a profile sets the group weights.
    case_path = url(evaluation, f"plan/cases/{body['id']}/")
    etag = client.get(case_path)["ETag"]
    changed = client.patch(case_path, {"weight": "4.5"}, HTTP_IF_MATCH=etag)
    assert changed.status_code == 200 and changed.json()["weight"] == "4.50"
    assert changed["ETag"] == '"2"'
    negative = client.patch(case_path, {"weight": "-1", "version": 2})
    assert negative.status_code == 400 and "weight" in negative.json()
    applied = client.post(url(evaluation, "plan/profile/"), {"profile": "training_heavy"})
    weights = {g["key"]: g["weight"] for g in applied.json()["groups"]}
    assert weights["batch_training"] == "45.00" and weights["inference_serving"] == "10.00"
    group_path = url(evaluation, "plan/groups/batch_training/")
    group = client.get(group_path)
    assert group.status_code == 200 and group.json()["weight"] == "45.00"
    saved = client.patch(group_path, {"weight": "30", "version": group.json()["version"]})
    assert saved.status_code == 200 and saved.json()["weight"] == "30.00"
    assert client.get(url(evaluation, "plan/groups/nope/")).status_code == 404
    assert client.post(url(evaluation, "plan/profile/"), {"profile": "nope"}).status_code == 400


def test_the_plan_is_the_same_for_every_candidate(evaluation, owner, poc):
    client = client_for(owner)
    slurm, volcano = poc["slurm"], poc["volcano"]
    before = PlanCase.objects.count()
    weight_before = poc["case"].weight
    response = client.post(
        url(evaluation, "plan/cases/"),
        {"group": "governance", "title": "Only Slurm", "acceptance": "x", "candidate": slurm.pk},
    )
    assert response.status_code == 400 and "every candidate" in response.json()["candidate"][0]
    assert PlanCase.objects.count() == before
    weight = client.patch(
        url(evaluation, f"plan/cases/{poc['case'].pk}/"),
        {"weight": "0", "version": 1, "candidate": slurm.pk},
    )
    assert weight.status_code == 400
    poc["case"].refresh_from_db()
    assert (poc["case"].weight, poc["case"].version) == (weight_before, 1)

    created = client.post(
        url(evaluation, "plan/cases/"),
        {"group": "governance", "title": "Audit export", "acceptance": "Under a minute."},
    )
    assert created.status_code == 201
    card = client.get(url(evaluation, "scorecard/")).json()
    columns = {c["candidate"] for c in card["cells"] if c["case"] == created.json()["id"]}
    assert columns == {slurm.pk, volcano.pk}


def test_library_texts_follow_the_request_language(evaluation, owner, poc):
    library = TestCase.objects.get(key="gang_under_contention")
    plan = client_for(owner).get(url(evaluation, "plan/"), HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    gang = next(c for c in plan["cases"] if c["id"] == poc["case"].pk)
    assert gang["title"] == library.title_zh_hans != library.title_en
    assert gang["acceptance"] == library.acceptance_zh_hans


# --- blind scoring ---------------------------------------------------------------------------


def test_scores_and_evidence_are_blind_until_i_submit(evaluation, owner, people, poc):
    case, slurm, r1, r2 = poc["case"], poc["slurm"], poc["r1"], poc["r2"]
    first = put_score(r1, evaluation, case, slurm, score="4", notes="Held all 8 ranks")
    assert first.status_code == 201 and first["ETag"] == '"1"'
    evidence = upload(r1, evaluation, case, slurm, "gang.txt", b"all ranks started").json()
    submitted = put_score(
        r1, evaluation, case, slurm, score="4", notes="Held all 8 ranks", submit=True, version=1
    )
    assert submitted.status_code == 200

    hidden = scorecard_cell(r2, evaluation, case, slurm)
    assert hidden["hidden_count"] == 1 and hidden["others"] == []
    assert hidden["value"] is None and hidden["disagreement"] is None and hidden["mine"] is None
    refused = download(r2, evaluation, evidence["id"])
    assert refused.status_code == 404  # as for a file that does not exist: nothing given away

    # A draft is not a submission.
    assert put_score(r2, evaluation, case, slurm, score="1.5").status_code == 201
    assert scorecard_cell(r2, evaluation, case, slurm)["hidden_count"] == 1
    submitted = client_for(r2).post(url(evaluation, "submit/"), {"candidate": slurm.pk})
    assert submitted.status_code == 200 and submitted.json() == {"submitted": 1}

    seen = scorecard_cell(r2, evaluation, case, slurm)
    assert seen["hidden_count"] == 0 and seen["value"] == "2.75" and seen["disagreement"] is True
    (other,) = seen["others"]
    assert other["reviewer"] == r1.username and other["score"] == "4.0"
    assert other["notes"] == "Held all 8 ranks"
    assert [e["sha256"] for e in other["evidence"]] == [
        hashlib.sha256(b"all ranks started").hexdigest()
    ]
    assert seen["mine"]["score"] == "1.5" and seen["mine"]["submitted"] is True
    ok = download(r2, evaluation, evidence["id"])
    assert ok.status_code == 200 and file_bytes(ok) == b"all ranks started"

    # The owner and viewers see every submitted score; nobody sees someone else's draft.
    assert put_score(r1, evaluation, case, poc["volcano"], score="2").status_code == 201
    draft_evidence = upload(r1, evaluation, case, poc["volcano"], "d.txt", b"draft").json()
    for role in (MemberRole.OWNER, MemberRole.VIEWER):
        user = people[role]
        cell = scorecard_cell(user, evaluation, case, slurm)
        assert sorted(o["score"] for o in cell["others"]) == ["1.5", "4.0"]
        assert download(user, evaluation, evidence["id"]).status_code == 200
        draft = scorecard_cell(user, evaluation, case, poc["volcano"])
        assert draft["others"] == [] and draft["value"] is None
        assert download(user, evaluation, draft_evidence["id"]).status_code == 404
    assert scorecard_cell(r1, evaluation, case, poc["volcano"])["mine"]["score"] == "2.0"


def test_totals_and_results_are_blind_too(evaluation, owner, people, poc):
    """A total over one scored cell would give that score away: until I submit my own score
    for a cell, it counts as missing in every total and figure I am shown."""
    case, slurm, r1, r2 = poc["case"], poc["slurm"], poc["r1"], poc["r2"]
    put_score(r1, evaluation, case, slurm, score="4", submit=True)

    def slurm_overall(user, path):
        body = client_for(user).get(url(evaluation, path)).json()
        (total,) = [c for c in body["candidates"] if c["id"] == slurm.pk]
        return body["hidden_cells"], total["overall"]

    for path in ("scorecard/", "results/"):
        assert slurm_overall(owner, path)[0] == 0
        assert slurm_overall(owner, path)[1]["score"] == "4.00"
        assert slurm_overall(people[MemberRole.VIEWER], path)[1]["score"] == "4.00"
        hidden, overall = slurm_overall(r2, path)
        assert hidden == 1 and overall["score"] is None and overall["completeness"] == "0.000"

    def results_page(user) -> str:
        browser = Client()
        browser.force_login(user)
        page = browser.get(reverse("poc:results", kwargs={"pk": evaluation.pk}))
        assert page.status_code == 200
        return page.content.decode()

    assert "4.00" in results_page(owner) and 'data-testid="hidden-cells"' not in results_page(owner)
    html = results_page(r2)
    assert 'data-testid="hidden-cells"' in html and "4.00" not in html

    put_score(r2, evaluation, case, slurm, score="5", submit=True)
    hidden, overall = slurm_overall(r2, "results/")
    assert hidden == 0 and overall["score"] == "4.50"


def test_blindness_ends_when_the_evaluation_is_sealed(evaluation, owner, poc):
    """Nobody can score a sealed evaluation, so there is nothing left to keep independent."""
    case, slurm, r1, r2 = poc["case"], poc["slurm"], poc["r1"], poc["r2"]
    put_score(r1, evaluation, case, slurm, score="4", submit=True)
    assert scorecard_cell(r2, evaluation, case, slurm)["hidden_count"] == 1
    Evaluation.objects.filter(pk=evaluation.pk).update(status=Status.DECIDED)
    cell = scorecard_cell(r2, evaluation, case, slurm)
    assert cell["hidden_count"] == 0 and cell["value"] == "4.00"
    Evaluation.objects.filter(pk=evaluation.pk).update(status=Status.POC)  # reopened
    assert scorecard_cell(r2, evaluation, case, slurm)["hidden_count"] == 1


def test_an_editor_is_blind_like_a_reviewer(evaluation, people, poc):
    case, slurm, editor = poc["case"], poc["slurm"], people[MemberRole.EDITOR]
    put_score(poc["r1"], evaluation, case, slurm, score="5", submit=True)
    assert scorecard_cell(editor, evaluation, case, slurm)["hidden_count"] == 1
    put_score(editor, evaluation, case, slurm, score="5", submit=True)
    cell = scorecard_cell(editor, evaluation, case, slurm)
    assert [o["score"] for o in cell["others"]] == ["5.0"] and cell["value"] == "5.00"


def test_the_workbook_is_blind_like_the_scorecard(evaluation, owner, poc):
    case, slurm, r1, r2 = poc["case"], poc["slurm"], poc["r1"], poc["r2"]
    put_score(r1, evaluation, case, slurm, score="4", submit=True)

    def slurm_score(user):
        response = client_for(user).get(url(evaluation, "scorecard.xlsx"))
        sheet = openpyxl.load_workbook(BytesIO(response.content))[case.group.name]
        header = [c.value for c in sheet[1]]
        row = next(r for r in sheet.iter_rows(min_row=2) if r[0].value == case.source_case.title)
        return row[header.index(slurm.solution.name)].value

    assert slurm_score(owner) == 4
    assert slurm_score(r2) is None
    put_score(r2, evaluation, case, slurm, score="5", submit=True)
    assert slurm_score(r2) == 4.5


# --- my score --------------------------------------------------------------------------------


def test_submitted_scores_are_final_and_versions_are_checked(evaluation, poc):
    case, slurm, r1 = poc["case"], poc["slurm"], poc["r1"]
    path = cell_url(evaluation, case, slurm, "score/")
    client = client_for(r1)
    assert client.get(path)["ETag"] == '"0"'
    assert client.put(path, {"score": "3"}).status_code == 201

    missing = client.put(path, {"score": "3.5"})
    assert missing.status_code == 428 and "If-Match" in missing.json()["detail"]
    stale = client.put(path, {"score": "3.5", "version": 0})
    assert stale.status_code == 409 and stale.json()["current"]["score"] == "3.0"
    etag = client.get(path)["ETag"]
    assert etag == '"1"'
    assert client.put(path, {"score": "3.5"}, HTTP_IF_MATCH='"7"').status_code == 412
    saved = client.put(path, {"score": "3.5", "submit": True}, HTTP_IF_MATCH=etag)
    assert saved.status_code == 200 and saved["ETag"] == '"2"'
    assert saved.json()["mine"]["submitted"] is True

    final = client.put(path, {"score": "1", "version": 2})
    assert final.status_code == 409 and "cannot be changed" in final.json()["detail"]
    row = Score.objects.get()
    assert row.score == D("3.5") and row.version == 2


def test_scores_outside_the_rubric_are_refused(evaluation, poc):
    case, slurm, r1 = poc["case"], poc["slurm"], poc["r1"]
    for bad, message in [("6", "0 to 5"), ("-1", "0 to 5"), ("2.25", "half points")]:
        response = put_score(r1, evaluation, case, slurm, score=bad)
        assert response.status_code == 400, bad
        assert message in response.json()["score"][0], bad
    qualitative = evaluation.poc_cases.filter(metric_direction="").first()
    response = put_score(r1, evaluation, qualitative, slurm, measured_value="3")
    assert response.status_code == 400 and "no metric" in response.json()["measured_value"][0]
    assert put_score(r1, evaluation, case, slurm, outcome="maybe").status_code == 400
    assert not Score.objects.exists()

    trailing_zeros = put_score(r1, evaluation, case, slurm, score="4.00")
    assert trailing_zeros.status_code == 201 and trailing_zeros.json()["mine"]["score"] == "4.0"

    measured = put_score(r1, evaluation, poc["latency"], slurm, measured_value="45")
    assert measured.status_code == 201 and measured.json()["mine"]["score"] == "5.0"


def test_a_score_is_always_my_own(evaluation, poc):
    case, slurm, r1, r2 = poc["case"], poc["slurm"], poc["r1"], poc["r2"]
    put_score(r1, evaluation, case, slurm, score="4", notes="r1's own")
    theirs = Score.objects.get(reviewer=r1)
    response = put_score(r2, evaluation, case, slurm, score="1", reviewer=r1.pk, notes="hijack")
    assert response.status_code == 201
    assert response.json()["mine"]["notes"] == "hijack"
    mine = Score.objects.get(reviewer=r2)
    assert mine.score == D("1") and mine.candidate == slurm
    theirs_now = Score.objects.get(pk=theirs.pk)
    assert (theirs_now.score, theirs_now.notes, theirs_now.version) == (D("4"), "r1's own", 1)


def test_cells_outside_the_evaluation_are_404(evaluation, owner, poc):
    other = make_evaluation(owner, title="Other evaluation")
    (their_candidate,) = add_candidates(other, owner, "kuberay")
    services.plan_init(user=owner, evaluation=other)
    their_case = other.poc_cases.first()
    r1 = poc["r1"]
    assert put_score(r1, evaluation, their_case, poc["slurm"], score="3").status_code == 404
    assert put_score(r1, evaluation, poc["case"], their_candidate, score="3").status_code == 404
    response = client_for(r1).post(url(evaluation, "submit/"), {"candidate": their_candidate.pk})
    assert response.status_code == 400 and "candidate" in response.json()
    assert not Score.objects.exists()


# --- evidence --------------------------------------------------------------------------------


@override_settings(EVIDENCE_MAX_BYTES=100)
def test_evidence_is_checked_hashed_and_served_as_an_attachment(evaluation, poc):
    case, slurm, r1 = poc["case"], poc["slurm"], poc["r1"]
    early = upload(r1, evaluation, case, slurm, "run.txt", b"x")
    assert early.status_code == 400 and "Save your score" in early.json()["file"][0]
    put_score(r1, evaluation, case, slurm, score="3")

    content = b"gang test log\nno partial holds\n"
    response = upload(r1, evaluation, case, slurm, "run-1.txt", content)
    assert response.status_code == 201
    evidence = response.json()
    assert evidence["sha256"] == hashlib.sha256(content).hexdigest()
    assert evidence["name"] == "run-1.txt" and evidence["size"] == len(content)

    too_big = upload(r1, evaluation, case, slurm, "big.txt", b"x" * 101)
    assert too_big.status_code == 400 and "limit" in too_big.json()["file"][0]
    wrong_type = upload(r1, evaluation, case, slurm, "tool.exe", b"MZ")
    assert wrong_type.status_code == 400 and "type" in wrong_type.json()["file"][0]
    for name in ("../x.txt", "dir/file.txt", "..\\x.txt"):
        path = upload(r1, evaluation, case, slurm, "fine.txt", b"x", name=name)
        assert path.status_code == 400 and "path" in path.json()["name"][0], name
    renamed = upload(r1, evaluation, case, slurm, "upload.bin", b"a,b\n", name="results.csv")
    assert renamed.status_code == 201 and renamed.json()["content_type"] == "text/csv"
    assert Evidence.objects.count() == 2

    got = client_for(r1).get(evidence["url"])
    assert got.status_code == 200 and file_bytes(got) == content
    assert (
        got["Content-Disposition"].startswith("attachment")
        and "run-1.txt" in got["Content-Disposition"]
    )
    assert got["X-Content-Type-Options"] == "nosniff"
    assert download(r1, evaluation, unused_pk(Evidence)).status_code == 404


@override_settings(EVIDENCE_MAX_BYTES=2000)
def test_evidence_content_and_names_are_what_they_claim(evaluation, poc):
    case, slurm, r1 = poc["case"], poc["slurm"], poc["r1"]
    put_score(r1, evaluation, case, slurm, score="3")
    disguised = [
        ("chart.png", b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        ("notes.txt", b"  <!DOCTYPE html><html><script>alert(1)</script></html>"),
        ("photo.jpg", b"GIF89a"),
        ("data.json", b"{not json"),
        ("report.pdf", b"%PD"),
        ("log.txt", b"\xff\xfe\x00binary"),
    ]
    for name, content in disguised:
        refused = upload(r1, evaluation, case, slurm, name, content)
        assert refused.status_code == 400 and "content" in refused.json()["file"][0], name
    for name in ("gpj\u202eexe.txt", "zero\u200bwidth.txt", "tab\tname.txt"):
        refused = upload(r1, evaluation, case, slurm, "fine.txt", b"ok", name=name)
        assert refused.status_code == 400 and "characters" in refused.json()["name"][0], name
    real = [
        ("chart.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 8),
        ("data.json", b'{"p99_ms": 41}'),
        ("run.txt", "结果：全部通过".encode()),
    ]
    for name, content in real:
        assert upload(r1, evaluation, case, slurm, name, content).status_code == 201, name
    assert Evidence.objects.count() == 3

    # A body far over the limit is not read to the end before the refusal.
    huge = upload(r1, evaluation, case, slurm, "big.txt", b"x" * 500_000)
    assert huge.status_code == 400 and "first part" in huge.json()["file"][0]
    assert Evidence.objects.count() == 3


def test_evidence_goes_on_my_own_score_only(evaluation, poc):
    case, slurm, r1, r2 = poc["case"], poc["slurm"], poc["r1"], poc["r2"]
    put_score(r1, evaluation, case, slurm, score="3")
    # r2 has no score in the cell: nothing of r1's can be reached through r2's upload.
    response = upload(r2, evaluation, case, slurm, "a.txt", b"x", score=Score.objects.get().pk)
    assert response.status_code == 400
    assert not Evidence.objects.exists()


# --- consensus and results -------------------------------------------------------------------


def test_consensus_is_the_owners_with_a_reason_and_counts(evaluation, owner, people, poc):
    case, slurm, r1, r2 = poc["case"], poc["slurm"], poc["r1"], poc["r2"]
    path = cell_url(evaluation, case, slurm, "consensus/")
    too_early = client_for(owner).put(path, {"score": "3", "reason": "Early"})
    assert (
        too_early.status_code == 409 and "No reviewer has submitted" in too_early.json()["detail"]
    )
    put_score(r1, evaluation, case, slurm, score="5", submit=True)
    put_score(r2, evaluation, case, slurm, score="1", submit=True)
    before = client_for(owner).get(url(evaluation, "results/")).json()
    assert before["candidates"][0]["overall"]["score"] == "3.00"

    by_editor = client_for(people[MemberRole.EDITOR]).put(path, {"score": "3", "reason": "x"})
    assert by_editor.status_code == 403
    no_reason = client_for(owner).put(path, {"score": "3", "reason": "  "})
    assert no_reason.status_code == 400 and "reason" in no_reason.json()
    assert client_for(owner).put(path, {"score": "3"}).status_code == 400
    assert client_for(owner).put(path, {"score": "2.25", "reason": "x"}).status_code == 400
    assert not Consensus.objects.exists()

    recorded = client_for(owner).put(path, {"score": "2", "reason": "Rerun showed a partial hold"})
    assert recorded.status_code == 201 and recorded["ETag"] == '"1"'
    cell = recorded.json()
    assert cell["value"] == "2.00" and cell["consensus"]["reason"] == "Rerun showed a partial hold"
    assert len(cell["others"]) == 2  # the individual scores stay visible
    again = client_for(owner).put(path, {"score": "2.5", "reason": "Second look"})
    assert again.status_code == 428

    res = client_for(r1).get(url(evaluation, "results/")).json()
    totals = {c["id"]: c["overall"] for c in res["candidates"]}
    assert totals[slurm.pk]["score"] == "2.00" and totals[slurm.pk]["percent"] == "40.0"
    assert totals[poc["volcano"].pk]["score"] is None
    assert D("0") < D(totals[slurm.pk]["completeness"]) < D("0.2")
    profiles = {p["key"]: p for p in res["profiles"]}
    assert profiles["training_heavy"]["leaders"] == [slurm.pk]
    assert {f["candidate"] for f in profiles["balanced"]["fit"]} == {slurm.pk, poc["volcano"].pk}
    # One scored cell is far too thin to name a leader: no sensitivity, no win shares (they
    # used to name Slurm the leader in 100 % of the runs), and the reason instead.
    assert res["sensitivity"] is None and res["win_shares"] == []
    thin = res["data_sufficiency"]
    assert thin["enough"] is False and thin["minimum_completeness"] == "0.600"
    assert {t["candidate"] for t in thin["thin"]} == {slurm.pk, poc["volcano"].pk}
    assert "Too few scores to name a leader" in thin["note"] and "Slurm" in thin["note"]
    assert all(t["data_sufficiency"]["enough"] is False for t in res["by_type"])
    assert all(t["sensitivity"] is None for t in res["by_type"])
    # Two reviewers 4 points apart on the only scored cell: no agreement beyond chance.
    assert res["agreement"]["overall"] == 0.0
    by_group = res["agreement"]["by_group"]
    assert by_group[case.group.key] == 0.0
    assert all(v is None for k, v in by_group.items() if k != case.group.key)


def test_consensus_is_hidden_from_a_reviewer_who_has_not_submitted(evaluation, owner, poc):
    case, slurm, r1, r2 = poc["case"], poc["slurm"], poc["r1"], poc["r2"]
    put_score(r1, evaluation, case, slurm, score="5", submit=True)
    services.consensus_record(
        user=owner, case=case, candidate=slurm, score="4", reason="Agreed", expected_version=0
    )
    cell = scorecard_cell(r2, evaluation, case, slurm)
    assert cell["consensus"] is None and cell["value"] is None
    assert scorecard_cell(r1, evaluation, case, slurm)["consensus"]["score"] == "4.0"


# --- the workbook ----------------------------------------------------------------------------


def test_the_workbook_has_a_summary_and_a_sheet_per_group(evaluation, people, poc):
    case, slurm, volcano = poc["case"], poc["slurm"], poc["volcano"]
    put_score(poc["r1"], evaluation, case, slurm, score="4", submit=True)
    response = client_for(people[MemberRole.VIEWER]).get(url(evaluation, "scorecard.xlsx"))
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="scorecard-{evaluation.pk}.xlsx"'
    )
    book = openpyxl.load_workbook(BytesIO(response.content))
    groups = list(PlanGroup.objects.filter(evaluation=evaluation).order_by("group__order"))
    assert book.sheetnames == ["Summary"] + [g.group.name for g in groups]
    summary = book["Summary"]
    assert [c.value for c in summary[1]] == [
        "Group",
        "Group weight",
        slurm.solution.name,
        volcano.solution.name,
    ]
    sheet = book[case.group.name]
    header = [c.value for c in sheet[1]][:3]
    assert header == ["Case", "Acceptance criteria", "Weight"]
    titles = [r[0].value for r in sheet.iter_rows(min_row=2) if r[0].value]
    expected = evaluation.poc_cases.filter(group=case.group).count()
    assert titles[:expected] == [
        c.source_case.title
        for c in evaluation.poc_cases.filter(group=case.group).order_by("order", "pk")
    ]
    # Totals are stored values: a tool that does not recalculate (a viewer, pandas, a mail
    # preview) shows them too. Missing stays empty.
    cells = [c for ws in book.worksheets for row in ws.iter_rows() for c in row]
    assert not [c.coordinate for c in cells if c.data_type == "f"]

    def total(ws, label, name):
        header = [c.value for c in ws[1]]
        row = next(r for r in ws.iter_rows() if str(r[0].value).startswith(label))
        return row[header.index(name)].value

    assert total(sheet, "Weighted score", slurm.solution.name) == 4
    assert total(sheet, "Weighted score", volcano.solution.name) is None
    assert total(summary, "Weighted total", slurm.solution.name) == 4
    assert total(summary, "Weighted total", volcano.solution.name) is None
    group_row = next(r for r in summary.iter_rows() if r[0].value == case.group.name)
    assert group_row[2].value == 4 and group_row[3].value is None


# --- query counts ----------------------------------------------------------------------------


def count_queries(user, path) -> int:
    client = client_for(user)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200
    return len(queries)


def test_queries_do_not_grow_with_candidates_cases_or_reviewers(evaluation, owner, people):
    r1 = people[MemberRole.REVIEWER]
    viewer = people[MemberRole.VIEWER]
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    declare_none(evaluation, r1)
    first = services.plan_case_add_library(
        user=owner, evaluation=evaluation, case=TestCase.objects.get(key="gang_under_contention")
    )
    services.score_save(
        user=r1, case=first, candidate=slurm, score="4", submit=True, expected_version=0
    )
    paths = [url(evaluation, "scorecard/"), url(evaluation, "results/")]
    small = {(u.pk, p): count_queries(u, p) for u in (r1, viewer) for p in paths}

    # Grow to 8 candidates × 27 cases × 3 reviewers, with evidence and consensus.
    services.plan_init(user=owner, evaluation=evaluation)
    add_candidates(
        evaluation,
        owner,
        "volcano",
        "kuberay",
        "runai",
        "kubernetes-gpu",
        "cloud-managed-gpu",
        "enterprise-container-platform",
    )
    candidate_add(user=owner, evaluation=evaluation, solution=SolutionFactory(), reason="Newcomer")
    reviewers = [r1]
    for name in ("rev2", "rev3"):
        user = make_user(roles.REVIEWER, username=name)
        add_member(evaluation, user, MemberRole.REVIEWER)
        reviewers.append(user)
    cases = list(evaluation.poc_cases.all())
    candidates = list(evaluation.candidates.all())
    now = timezone.now()
    Score.objects.bulk_create(
        Score(
            case=case,
            candidate=candidate,
            reviewer=reviewer,
            score=D((i + j + k) % 11) / 2,
            submitted_at=now if (i + k) % 4 else None,
            version=1,
        )
        for i, case in enumerate(cases)
        for j, candidate in enumerate(candidates)
        for k, reviewer in enumerate(reviewers)
        if not (case == first and candidate == slurm and reviewer == r1)
    )
    scores = list(Score.objects.filter(reviewer__in=reviewers[1:]))
    Evidence.objects.bulk_create(
        Evidence(
            score=s,
            file=f"evidence/{s.pk}.txt",
            original_name=f"{s.pk}.txt",
            content_type="text/plain",
            size=1,
            sha256="0" * 64,
            uploaded_by=s.reviewer,
        )
        for s in scores
    )
    Consensus.objects.bulk_create(
        Consensus(case=case, candidate=slurm, score=D("3"), reason="Agreed", decided_by=owner)
        for case in cases[::3]
    )
    assert len(cases) == 27 and len(candidates) == 8 and Score.objects.count() == 27 * 8 * 3

    big = {(u.pk, p): count_queries(u, p) for u in (r1, viewer) for p in paths}
    assert big == small
    card = client_for(viewer).get(url(evaluation, "scorecard/")).json()
    assert len(card["cells"]) == 27 * 8
    assert (
        sum(len(c["others"]) for c in card["cells"])
        == Score.objects.exclude(submitted_at=None).count()
    )


def test_the_schema_lists_the_poc_endpoints(owner):
    paths = client_for(owner).get("/api/schema/", {"format": "json"}).json()["paths"]
    base = "/api/evaluations/{evaluation_pk}/poc/"
    cell = base + "cells/{case_pk}/{candidate_pk}/"
    for path in [
        "/api/poc/groups/",
        "/api/poc/cases/",
        "/api/poc/profiles/",
        base + "plan/",
        base + "plan/init/",
        base + "plan/cases/",
        base + "plan/cases/{case_pk}/",
        base + "plan/groups/{group_key}/",
        base + "plan/profile/",
        base + "scorecard/",
        base + "scorecard.xlsx",
        base + "submit/",
        cell + "score/",
        cell + "consensus/",
        cell + "evidence/",
        base + "evidence/{evidence_pk}/",
        base + "results/",
    ]:
        assert path in paths, path
    assert {"get", "patch", "delete"} <= set(paths[base + "plan/cases/{case_pk}/"])
