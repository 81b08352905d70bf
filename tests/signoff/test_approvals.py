"""Approvals after the decision: the owner names approvers, each approves or rejects a finished
report of the decided evaluation by its snapshot's SHA-256; reopening voids them. Services
(every refusal), page, API, membership, history, the home page, and the report's sign-off
outside the seal."""

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from common.exceptions import Conflict, Forbidden, StaleEdit
from evaluations import services as ev
from evaluations.history import history_entries, history_timeline
from evaluations.models import MemberRole
from reports import services as report_services
from reports.models import RunStatus
from reports.render import RenderedPdf, report_html
from reports.snapshot import build_snapshot, snapshot_sha256
from signoff import selectors, services
from signoff.models import Approval, ApprovalDecision
from tests.factories import (
    add_candidates,
    add_member,
    answer_all,
    decide,
    finished_report,
    make_evaluation,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def decided(evaluation, owner, people):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner)
    return decide(evaluation, owner, slurm)


@pytest.fixture
def run(decided, owner):
    return finished_report(decided, owner)


def ask(evaluation, owner, user, role=""):
    return services.approval_request(user=owner, evaluation=evaluation, approver=user, role=role)


def approve(approval, user, run, **kwargs):
    kwargs.setdefault("decision", "approved")
    kwargs.setdefault("expected_version", approval.version)
    return services.approval_decide(user=user, approval=approval, run_id=run.pk, **kwargs)


def page(evaluation):
    return reverse("signoff:approvals", kwargs={"pk": evaluation.pk})


def api(name, evaluation, **kwargs):
    return reverse(f"signoff-api:{name}", kwargs={"evaluation_pk": evaluation.pk, **kwargs})


# --- services --------------------------------------------------------------------------------


def test_the_owner_names_members_with_their_app_role_by_default(decided, owner, people):
    viewer, editor = people[MemberRole.VIEWER], people[MemberRole.EDITOR]
    procurement = ask(decided, owner, viewer)
    security = ask(decided, owner, editor, role="  Security   lead ")
    assert procurement.role == "Procurement" and procurement.pending and procurement.version == 1
    assert security.role == "Security lead"
    assert procurement.requested_by == owner and procurement.decision == ApprovalDecision.PENDING


def test_naming_refusals_say_what_to_do(evaluation, decided, owner, people):
    viewer = people[MemberRole.VIEWER]
    with pytest.raises(Forbidden, match="Only the evaluation's owner"):
        ask(decided, people[MemberRole.EDITOR], viewer)
    with pytest.raises(ValidationError, match="Approvers are members"):
        ask(decided, owner, people["outsider"])
    ask(decided, owner, viewer)
    with pytest.raises(ValidationError, match="already has a request in this round"):
        ask(decided, owner, viewer)
    with pytest.raises(ValidationError) as long_role:
        ask(decided, owner, people[MemberRole.EDITOR], role="x" * 101)
    assert "role" in long_role.value.message_dict
    draft = make_evaluation(owner, title="Still a draft")
    with pytest.raises(Conflict, match="while the evaluation is decided"):
        ask(draft, owner, owner)
    assert Approval.objects.filter(evaluation=decided).count() == 1


def test_withdrawing_a_pending_request_and_its_refusals(decided, owner, people, run):
    viewer, editor = people[MemberRole.VIEWER], people[MemberRole.EDITOR]
    pending = ask(decided, owner, viewer)
    with pytest.raises(Forbidden):
        services.approval_withdraw(user=editor, approval=pending, expected_version=1)
    with pytest.raises(StaleEdit):
        services.approval_withdraw(user=owner, approval=pending, expected_version=0)
    gone = services.approval_withdraw(user=owner, approval=pending, expected_version=1)
    assert not gone.active and gone.void_reason == "Withdrawn by the owner." and gone.version == 2
    with pytest.raises(Conflict, match="already withdrawn"):
        services.approval_withdraw(user=owner, approval=gone, expected_version=2)
    again = ask(decided, owner, viewer)  # a withdrawn request frees the member for a new one
    approve(again, viewer, run)
    with pytest.raises(Conflict, match="already decided"):
        services.approval_withdraw(user=owner, approval=again, expected_version=2)


def test_the_approver_approves_a_finished_decided_report_by_its_hash(decided, owner, people, run):
    viewer = people[MemberRole.VIEWER]
    request = ask(decided, owner, viewer)
    done = approve(request, viewer, run, comment="Signed off.")
    assert done.decision == ApprovalDecision.APPROVED and done.decided_at is not None
    assert done.snapshot_sha256 == run.snapshot_sha256 and done.report_run == run
    assert done.report_language == "en" and done.comment == "Signed off." and done.version == 2


def test_deciding_refusals_say_what_to_do(decided, owner, people, run):
    viewer, editor = people[MemberRole.VIEWER], people[MemberRole.EDITOR]
    request = ask(decided, owner, viewer)
    with pytest.raises(Forbidden, match="Only .* decides this request"):
        approve(request, owner, run)
    with pytest.raises(ValidationError) as no_comment:
        approve(request, viewer, run, decision="rejected", comment="  ")
    assert "comment" in no_comment.value.message_dict
    with pytest.raises(ValidationError) as bad_decision:
        approve(request, viewer, run, decision="pending")
    assert "decision" in bad_decision.value.message_dict
    with pytest.raises(StaleEdit):
        approve(request, viewer, run, expected_version=7)

    elsewhere = finished_report(make_evaluation(owner, title="Elsewhere"), owner)
    queued = finished_report(decided, owner)
    queued.status = RunStatus.QUEUED
    queued.save()
    for wrong, message in ((elsewhere, "report of this evaluation"), (queued, "not finished")):
        with pytest.raises(ValidationError, match=message) as refused:
            approve(request, viewer, wrong)
        assert "run" in refused.value.message_dict
    assert Approval.objects.get(pk=request.pk).decision == ApprovalDecision.PENDING

    done = approve(request, viewer, run, decision="rejected", comment="Costs are missing.")
    with pytest.raises(Conflict, match="already decided on this request"):
        approve(done, viewer, run)
    changed = approve(done, viewer, run, comment="Costs added.", change=True)
    assert changed.decision == ApprovalDecision.APPROVED and changed.version == 3
    assert changed.history.first().history_change_reason == "Decision changed."

    editor_request = ask(decided, owner, editor)
    services.approval_withdraw(user=owner, approval=editor_request, expected_version=1)
    with pytest.raises(Conflict, match="voided"):
        approve(Approval.objects.get(pk=editor_request.pk), editor, run)


def test_only_reports_built_while_decided_in_this_round_are_approvable(evaluation, owner, people):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner)
    draft_run = finished_report(evaluation, owner)  # built while the evaluation was a draft
    decided = decide(evaluation, owner, slurm)
    viewer = people[MemberRole.VIEWER]
    request = ask(decided, owner, viewer)
    with pytest.raises(ValidationError, match="not decided"):
        approve(request, viewer, draft_run)
    first_round = finished_report(decided, owner)
    assert selectors.approvable_runs(decided) == [first_round]

    ev.evaluation_transition(user=owner, evaluation=decided, to_status="poc", reason="Costs")
    decided = decide(decided, owner, slurm)
    request = ask(decided, owner, viewer)
    with pytest.raises(ValidationError, match="before the evaluation was last marked decided"):
        approve(request, viewer, first_round)
    assert selectors.approvable_runs(decided) == []
    second_round = finished_report(decided, owner)
    assert approve(request, viewer, second_round).snapshot_sha256


def test_a_report_that_leaves_sections_out_is_not_approvable(decided, owner, people, run):
    partial = finished_report(decided, owner, sections=["summary", "costs"])
    assert selectors.approvable_runs(decided) == [run]
    viewer = people[MemberRole.VIEWER]
    request = ask(decided, owner, viewer)
    with pytest.raises(ValidationError, match="leaves sections out"):
        approve(request, viewer, partial)
    assert approve(request, viewer, run).report_run == run


def test_an_archived_evaluation_is_still_approved_but_takes_no_new_approvers(
    decided, owner, people, run
):
    viewer, editor = people[MemberRole.VIEWER], people[MemberRole.EDITOR]
    request = ask(decided, owner, viewer)
    waiting = ask(decided, owner, editor)
    ev.evaluation_transition(user=owner, evaluation=decided, to_status="archived")
    assert approve(request, viewer, run).decision == ApprovalDecision.APPROVED
    decided.refresh_from_db()
    with pytest.raises(Conflict, match="Approvers are named while the evaluation is decided"):
        ask(decided, owner, people[MemberRole.REVIEWER])
    waiting.evaluation = decided
    with pytest.raises(Conflict, match="Requests are withdrawn while the evaluation is decided"):
        services.approval_withdraw(user=owner, approval=waiting, expected_version=1)


def test_reopening_voids_every_active_approval_with_its_reason(decided, owner, people, run):
    viewer, editor = people[MemberRole.VIEWER], people[MemberRole.EDITOR]
    approved = approve(ask(decided, owner, viewer), viewer, run)
    pending = ask(decided, owner, editor)
    ev.evaluation_transition(
        user=owner, evaluation=decided, to_status="poc", reason="New quote from the vendor"
    )
    for row in Approval.objects.filter(pk__in=[approved.pk, pending.pk]):
        assert row.voided_at is not None and not row.active
        assert "New quote from the vendor" in row.void_reason
    decided.refresh_from_db()
    with pytest.raises(Conflict, match="not decided|Decided|decided"):
        approve(Approval.objects.get(pk=pending.pk), editor, run)
    assert selectors.pending_for(editor) == []


def test_every_step_is_in_the_history(decided, owner, people, run):
    viewer = people[MemberRole.VIEWER]
    request = ask(decided, owner, viewer, role="Procurement")
    approve(request, viewer, run, comment="Fine.")
    ev.evaluation_transition(user=owner, evaluation=decided, to_status="poc", reason="Reopen")
    rows = [r for r in history_timeline(decided) if r["kind"] == "approval"]
    entries = history_entries(decided, rows)
    assert [e.action for e in entries] == ["changed", "changed", "created"]
    assert all(e.object.endswith("— Procurement") for e in entries)
    approved = entries[1]
    assert approved.who == viewer.username
    labels = {c.label: c.new_display for c in approved.changes}
    assert labels["decision"] == "Approved" and labels["snapshot SHA-256"] == run.snapshot_sha256
    assert entries[0].reason == "Reopen"


# --- the report ------------------------------------------------------------------------------


def test_approvals_do_not_change_the_seal_and_print_in_the_signoff(decided, owner, people, run):
    viewer = people[MemberRole.VIEWER]
    before = build_snapshot(decided, language="en", generated_at="2027-01-16T09:00:00+00:00")
    assert before["signoff"] == {"approvals": [], "history": []}
    approve(ask(decided, owner, viewer), viewer, run, comment="OK")
    ask(decided, owner, people[MemberRole.EDITOR], role="Security")
    after = build_snapshot(decided, language="en", generated_at="2027-01-16T09:00:00+00:00")
    assert snapshot_sha256(after) == snapshot_sha256(before) == run.snapshot_sha256
    assert after["appendix"]["history"] == before["appendix"]["history"]
    rows = after["signoff"]["approvals"]
    assert [(r["role"], r["decision"]) for r in rows] == [
        ("Procurement", "approved"),
        ("Security", "pending"),
    ]
    assert rows[0]["sha256"] == run.snapshot_sha256 and rows[0]["language"] == "en"
    assert {e["kind"] for e in after["signoff"]["history"]} == {"approval"}
    assert len(after["signoff"]["history"]) == 3

    html = report_html(after, snapshot_sha256(after), "en", for_pdf=False)
    assert html.count('data-testid="signoff-row"') == 2
    assert "The same as this report's hash on the cover." in html
    assert "Not decided yet." in html
    assert html.count("<tr><td>") >= 2  # a signature line per approver
    # The appendix's history: the sealed counts leave approvals out; they follow, listed apart.
    kinds = {k["kind"] for k in after["appendix"]["history"]["by_kind"]}
    assert "approval" not in kinds and "decision" in kinds
    approvals_table = html.split('data-testid="history-approvals"')[1].split("</table>")[0]
    assert approvals_table.count('class="decisive-approval"') == 3
    zh = build_snapshot(decided, language="zh-hans", generated_at="2027-01-16T09:00:00+00:00")
    zh_html = report_html(zh, snapshot_sha256(zh), "zh-hans", for_pdf=False)
    assert 'id="signoff"' in zh_html and "English" in zh_html  # approved the English report


def test_the_signoff_prints_when_decided_and_a_blank_line_without_approvers(decided, evaluation):
    snapshot = build_snapshot(decided, language="en", generated_at="2027-01-16T09:00:00+00:00")
    html = report_html(snapshot, snapshot_sha256(snapshot), "en", for_pdf=False)
    assert 'id="signoff"' in html and "No approvals have been requested." in html
    assert "<tr><td></td><td></td><td></td></tr>" in html
    draft = make_evaluation(decided.created_by, title="Draft")
    snapshot = build_snapshot(draft, language="en", generated_at="2027-01-16T09:00:00+00:00")
    assert 'id="signoff"' not in report_html(snapshot, "x", "en", for_pdf=False)


def test_a_pdf_is_reused_only_with_the_same_signoff(decided, owner, people, run, monkeypatch):
    monkeypatch.setattr(report_services, "report_enqueue", lambda run_id: True)
    renders = []

    def fake_render(snapshot, sha256, language, **kwargs):
        renders.append(sha256)
        return RenderedPdf(b"%PDF-1.4 " + str(len(renders)).encode(), "f" * 64, 1, [])

    monkeypatch.setattr(report_services, "render_pdf", fake_render)

    def request():
        new, _sent = report_services.report_request(user=owner, evaluation=decided, language="en")
        return report_services.report_render(new.pk)

    reused = request()  # the same seal, sections and (empty) sign-off: the earlier PDF
    assert renders == [] and reused.pdf.read() == run.pdf.read()
    viewer = people[MemberRole.VIEWER]
    approve(ask(decided, owner, viewer), viewer, run)
    signed = request()  # same seal, another sign-off: rendered anew
    assert signed.snapshot_sha256 == run.snapshot_sha256 and renders == [run.snapshot_sha256]
    assert signed.snapshot["signoff"]["approvals"][0]["decision"] == "approved"
    again = request()
    assert len(renders) == 1 and again.pdf.read() == signed.pdf.read()


# --- pages, API, home ------------------------------------------------------------------------


def test_non_members_get_404_on_the_page_and_the_api(client, decided, owner, people, run):
    request = ask(decided, owner, people[MemberRole.VIEWER])
    outsider = people["outsider"]
    client.force_login(outsider)
    assert client.get(page(decided)).status_code == 404
    body = {"action": "withdraw", "id": request.pk, "version": 1}
    assert client.post(page(decided), body).status_code == 404
    rest = APIClient()
    rest.force_authenticate(outsider)
    assert rest.get(api("approval_list", decided)).status_code == 404
    assert rest.get(api("approval_detail", decided, approval_pk=request.pk)).status_code == 404
    decide_url = api("approval_decide", decided, approval_pk=request.pk)
    body = {"decision": "approved", "run": run.pk, "version": 1}
    assert rest.post(decide_url, body, format="json").status_code == 404
    assert Approval.objects.get(pk=request.pk).pending


def test_the_page_names_approvers_and_takes_a_decision(client, decided, owner, people, run):
    viewer = people[MemberRole.VIEWER]
    client.force_login(owner)
    shown = client.get(page(decided)).content.decode()
    assert 'data-testid="request-approval"' in shown and "No approver named yet." in shown
    named = client.post(page(decided), {"action": "request", "approver": viewer.pk, "role": ""})
    assert named.status_code == 302
    request = Approval.objects.get(evaluation=decided, approver=viewer)
    twice = client.post(page(decided), {"action": "request", "approver": viewer.pk})
    assert twice.status_code == 400 and "already has a request" in twice.content.decode()

    client.force_login(viewer)
    mine = client.get(page(decided)).content.decode()
    assert f'value="{run.pk}" checked' in mine  # the latest finished report, chosen already
    assert reverse("reports:report_download", args=[decided.pk, run.pk]) in mine
    body = {"action": "decide", "id": request.pk, "run": run.pk, "decision": "rejected"}
    refused = client.post(page(decided), {**body, "comment": "", "version": 1})
    assert refused.status_code == 400 and "Say why you reject it" in refused.content.decode()
    missing = client.post(page(decided), {**body, "comment": "No."})
    assert missing.status_code == 428
    done = client.post(page(decided), {**body, "decision": "approved", "version": 1})
    assert done.status_code == 302
    request.refresh_from_db()
    assert request.decision == "approved" and request.snapshot_sha256 == run.snapshot_sha256
    shown = client.get(page(decided)).content.decode()
    assert run.snapshot_sha256 in shown and "Change my decision" in shown


def test_the_page_says_when_no_decided_report_exists(client, decided, owner, people):
    viewer = people[MemberRole.VIEWER]
    ask(decided, owner, viewer)
    client.force_login(viewer)
    body = client.get(page(decided)).content.decode()
    assert 'data-testid="no-decided-report"' in body
    assert reverse("reports:report_list", args=[decided.pk]) in body


def test_the_api_lists_names_decides_and_withdraws(decided, owner, people, run):
    viewer, editor = people[MemberRole.VIEWER], people[MemberRole.EDITOR]
    rest = APIClient()
    rest.force_authenticate(owner)
    created = rest.post(api("approval_list", decided), {"approver": viewer.username}, format="json")
    assert created.status_code == 201 and created.json()["role"] == "Procurement"
    assert created["ETag"] == '"1"'
    pk = created.json()["id"]
    twice = rest.post(api("approval_list", decided), {"approver": viewer.username}, format="json")
    assert twice.status_code == 400 and "approver" in twice.json()
    nobody = rest.post(api("approval_list", decided), {"approver": "nobody"}, format="json")
    assert nobody.status_code == 400 and "approver" in nobody.json()

    decide_url = api("approval_decide", decided, approval_pk=pk)
    body = {"decision": "approved", "run": run.pk, "comment": "Fine."}
    assert rest.post(decide_url, {**body, "version": 1}, format="json").status_code == 403
    rest.force_authenticate(viewer)
    listed = rest.get(api("approval_list", decided)).json()
    assert [r["id"] for r in listed["approvable_runs"]] == [run.pk]
    assert rest.post(decide_url, body, format="json").status_code == 428
    stale = rest.post(decide_url, body, format="json", HTTP_IF_MATCH='"0"')
    assert stale.status_code == 412
    done = rest.post(decide_url, body, format="json", HTTP_IF_MATCH='"1"')
    assert done.status_code == 200 and done.json()["snapshot_sha256"] == run.snapshot_sha256
    again = rest.post(decide_url, {**body, "version": 2}, format="json")
    assert again.status_code == 409 and "Change my decision" in again.json()["detail"]

    rest.force_authenticate(owner)
    other = rest.post(api("approval_list", decided), {"approver": editor.username}, format="json")
    withdraw_url = api("approval_withdraw", decided, approval_pk=other.json()["id"])
    gone = rest.post(withdraw_url, {"version": 1}, format="json")
    assert gone.status_code == 200 and gone.json()["active"] is False


def test_the_home_page_lists_my_waiting_requests_in_one_query(client, owner, people, decided):
    viewer = people[MemberRole.VIEWER]
    client.force_login(viewer)
    home = reverse("home")
    with CaptureQueriesContext(connection) as none:
        assert "Approval requests" not in client.get(home).content.decode()
    ask(decided, owner, viewer, role="Procurement")
    for i in range(3):
        other = make_evaluation(owner, title=f"Other decided {i}")
        (slurm,) = add_candidates(other, owner, "slurm")
        answer_all(slurm, owner)
        add_member(other, viewer, MemberRole.VIEWER)
        ask(decide(other, owner, slurm), owner, viewer)
    with CaptureQueriesContext(connection) as four:
        body = client.get(home).content.decode()
    assert 'data-testid="approval-requests"' in body
    assert body.count(reverse("signoff:approvals", args=[decided.pk])) == 1
    assert "Other decided 2" in body
    # One query for the list, however many requests.
    approval_queries = [q for q in four.captured_queries if "signoff_approval" in q["sql"]]
    assert len(approval_queries) == 1
    assert len([q for q in none.captured_queries if "signoff_approval" in q["sql"]]) == 1


@pytest.mark.parametrize("n_requests", [1, 4])
def test_home_page_query_budget(
    client, owner, people, decided, n_requests, django_assert_max_num_queries
):
    viewer = people[MemberRole.VIEWER]
    ask(decided, owner, viewer)
    for i in range(n_requests - 1):
        other = make_evaluation(owner, title=f"Other {i}")
        (slurm,) = add_candidates(other, owner, "slurm")
        answer_all(slurm, owner)
        add_member(other, viewer, MemberRole.VIEWER)
        ask(decide(other, owner, slurm), owner, viewer)
    client.force_login(viewer)
    # The same budget for 1 and 4 requests (and as many decided evaluations); cold, each row's
    # status is computed and stored (evaluations/digests.py).
    with django_assert_max_num_queries(43):
        body = client.get(reverse("home")).content.decode()
    assert body.count('href="/evaluations/') >= n_requests
    assert len(selectors.pending_for(viewer)) == n_requests
