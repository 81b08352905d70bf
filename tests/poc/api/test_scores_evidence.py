"""POC API, my score and its evidence: submitted scores are final, versions are checked, scores
outside the rubric are refused, evidence is checked, hashed and served as an attachment."""

import hashlib
from decimal import Decimal as D

import pytest
from django.test import override_settings

from poc import services
from poc.models import Evidence, Score
from tests.factories import (
    add_candidates,
    make_evaluation,
    unused_pk,
)
from tests.poc.api.support import (
    cell_url,
    client_for,
    download,
    file_bytes,
    put_score,
    upload,
    url,
)

pytestmark = pytest.mark.django_db


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
