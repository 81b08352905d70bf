"""Approvals in the browser, the "done means" of sign-off: the owner names two approvers, both
approve the finished report of the decided evaluation from their home page, the final PDF
(rendered by the worker as every report is) prints the sign-off block with the cover's hash,
and reopening voids the approvals."""

import re
import shutil
import subprocess

import pytest

from common import roles
from evaluations.models import MemberRole
from reports.models import ReportRun, RunStatus
from signoff.models import Approval
from tests.browser.checks import page_problems
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, answer_all, decide, make_evaluation

pytestmark = pytest.mark.browser


def pdf_text(path) -> str:
    if shutil.which("pdftotext"):
        return subprocess.run(
            ["pdftotext", str(path), "-"], capture_output=True, text=True, check=True
        ).stdout
    from pypdf import PdfReader

    return "\n".join(page.extract_text() for page in PdfReader(str(path)).pages)


def request_report(page, base: str) -> int:
    """Request an English report on the reports page and wait until it is done; its run id."""
    before = set(ReportRun.objects.values_list("pk", flat=True))
    page.goto(f"{base}/reports/")
    page.get_by_test_id("request-report").locator("select").select_option("en")
    page.get_by_test_id("request-button").click()
    for _ in range(300):  # the request commits the run before the page answers
        new = set(ReportRun.objects.values_list("pk", flat=True)) - before
        if new:
            break
        page.wait_for_timeout(100)
    (run_id,) = new
    page.get_by_test_id(f"download-{run_id}").wait_for(timeout=90_000)
    return run_id


def approve_from_home(page, url: str, evaluation, comment: str) -> None:
    page.goto(f"{url}/")
    requests = page.get_by_test_id("approval-requests")
    requests.get_by_role("link", name=evaluation.title).click()
    request = Approval.objects.get(evaluation=evaluation, approver__username=page.username)
    form = page.get_by_test_id(f"decide-{request.pk}")
    form.get_by_test_id("approve").check()
    form.locator("textarea").fill(comment)
    form.get_by_test_id("decide-button").click()
    page.get_by_text("Your decision is recorded.").wait_for()


def test_two_approvers_sign_the_report_and_reopening_voids_them(
    seeded, live_server, session, worker
):
    lead = make_user(roles.TECH_LEAD, username="tao", first_name="Tao", last_name="Lead")
    pat = make_user(roles.PROCUREMENT, username="pat", first_name="Pat", last_name="Buyer")
    sam = make_user(roles.TECH_LEAD, username="sam", first_name="Sam", last_name="Secure")
    evaluation = make_evaluation(lead, title="Scheduler for the GPU pool")
    (slurm,) = add_candidates(evaluation, lead, "slurm")
    answer_all(slurm, lead)
    add_member(evaluation, pat, MemberRole.VIEWER)
    add_member(evaluation, sam, MemberRole.EDITOR)
    decide(evaluation, lead, slurm)
    base = f"{live_server.url}/evaluations/{evaluation.pk}"

    owner = session(lead)
    first = ReportRun.objects.get(pk=request_report(owner, base))
    owner.goto(f"{base}/decision/")
    owner.get_by_test_id("approvals-link").click()
    form = owner.get_by_test_id("request-approval")
    form.locator("select").select_option(label="Pat Buyer")
    form.get_by_role("button", name="Name approver").click()
    owner.get_by_text("Approver named.").wait_for()
    form.locator("select").select_option(label="Sam Secure")
    form.locator("input[name=role]").fill("Security")
    form.get_by_role("button", name="Name approver").click()
    owner.get_by_text("Approver named.").wait_for()
    table = owner.get_by_test_id("approvals")
    assert table.locator("tbody tr").count() == 2
    assert "Procurement" in table.inner_text() and "Security" in table.inner_text()

    for user, comment in ((pat, "Price and support terms agreed."), (sam, "Audit trail OK.")):
        approver = session(user)
        approver.username = user.username
        approve_from_home(approver, live_server.url, evaluation, comment)
        mine = approver.get_by_test_id("approvals")
        assert first.snapshot_sha256 in mine.inner_text()
        problems = page_problems(approver, f"approvals-{user.username}")
        assert not problems, problems
    assert set(
        Approval.objects.filter(evaluation=evaluation).values_list("decision", "snapshot_sha256")
    ) == {("approved", first.snapshot_sha256)}

    # The final report: the same seal as the approved one, now with the sign-off printed.
    final = ReportRun.objects.get(pk=request_report(owner, base))
    assert final.status == RunStatus.DONE and final.snapshot_sha256 == first.snapshot_sha256
    assert final.pdf_sha256 != first.pdf_sha256  # not the earlier PDF, which has no sign-off
    with owner.expect_download() as info:
        owner.get_by_test_id(f"download-{final.pk}").click()
    text = pdf_text(info.value.path())
    signoff = text[text.index("Sign-off") :]
    assert "Pat Buyer" in signoff and "Sam Secure" in signoff
    assert signoff.count("Approved") >= 2 and "Security" in signoff
    assert signoff.count("The same as this report's hash on the cover.") == 2
    assert "Signature" in signoff and "Date" in signoff
    compact = re.sub(r"\s+", "", text)
    assert compact.count(final.snapshot_sha256) >= 3  # the cover and both approvals

    # Reopening voids the approvals: the page shows them voided, with the reason.
    owner.goto(f"{base}/")
    transition = owner.get_by_test_id("transition-form")
    transition.locator("textarea[name=reason]").fill("The vendor changed the price")
    transition.get_by_role("button", name="Move to POC").click()
    owner.goto(f"{base}/decision/approvals/")
    voided = owner.get_by_test_id("voided-approvals")
    assert voided.locator("tbody tr").count() == 2
    assert "The vendor changed the price" in voided.inner_text()
    assert owner.get_by_test_id("approvals").count() == 0
    assert not Approval.objects.filter(evaluation=evaluation, voided_at=None).exists()
