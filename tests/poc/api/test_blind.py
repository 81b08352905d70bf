"""POC API, blind scoring exactly as on the scorecard page: scores, evidence, totals, results
and the workbook hidden until I submit, and open once the evaluation is sealed."""

import hashlib
from io import BytesIO

import openpyxl
import pytest
from django.test import Client
from django.urls import reverse

from evaluations.models import Evaluation, MemberRole, Status
from tests.poc.api.support import (
    client_for,
    download,
    file_bytes,
    put_score,
    scorecard_cell,
    upload,
    url,
)

pytestmark = pytest.mark.django_db


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
