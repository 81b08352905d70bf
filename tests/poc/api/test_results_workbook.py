"""POC API, consensus, results and the .xlsx workbook."""

from decimal import Decimal as D
from io import BytesIO

import openpyxl
import pytest

from evaluations.models import MemberRole
from poc import services
from poc.models import Consensus, PlanGroup
from tests.poc.api.support import (
    cell_url,
    client_for,
    put_score,
    scorecard_cell,
    url,
)

pytestmark = pytest.mark.django_db


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
    # The groups, ranks and win shares only within a comparable group (their own sheet), then
    # the sheets other apps add (responsibility: the support terms).
    assert book.sheetnames == (
        ["Summary"] + [g.group.name for g in groups] + ["Comparable groups", "Support terms"]
    )
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
