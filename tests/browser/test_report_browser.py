"""Procurement requests a PDF report, watches it finish, and downloads it."""

import pytest

from common import roles
from evaluations.models import MemberRole
from tests.conftest import make_user
from tests.factories import PASSWORD, add_candidates, add_member, answer_all, make_evaluation

pytestmark = pytest.mark.browser


def test_procurement_downloads_a_report(seeded, live_server, page, sign_in, worker):
    owner = make_user(roles.TECH_LEAD, username="tao")
    evaluation = make_evaluation(owner, title="Report for procurement")
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner)
    add_member(evaluation, make_user(roles.PROCUREMENT, username="pat"), MemberRole.VIEWER)

    sign_in("pat", PASSWORD)
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/reports/")
    page.get_by_test_id("request-report").locator("select").select_option("en")
    page.get_by_test_id("request-button").click()
    runs = page.get_by_test_id("report-runs")
    runs.locator("tr[data-status=done]").wait_for(timeout=60_000)
    with page.expect_download() as info:
        runs.get_by_role("link", name="Download PDF").click()
    download = info.value
    assert download.suggested_filename.endswith(".pdf")
    with open(download.path(), "rb") as pdf:
        assert pdf.read(5) == b"%PDF-"


def test_the_preview_follows_the_ticked_sections(seeded, live_server, page, sign_in):
    owner = make_user(roles.TECH_LEAD, username="tia")
    evaluation = make_evaluation(owner, title="Preview of two sections")
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    answer_all(slurm, owner)

    sign_in("tia", PASSWORD)
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/reports/")
    for key in ("summary", "types", "candidates", "poc", "costs", "reminders", "robustness"):
        page.get_by_test_id(f"section-{key}").uncheck()
    page.get_by_test_id("section-appendix").uncheck()  # leaves questions and matrices
    page.get_by_test_id("request-report").locator("select").select_option("zh-hans")
    with page.expect_popup() as popup:
        page.get_by_test_id("preview-link").click()
    preview = popup.value
    preview.wait_for_load_state()
    assert preview.locator("section#questions").count() == 1
    assert preview.locator("section#matrices").count() == 1
    assert preview.locator("section#poc").count() == 0
    assert preview.locator("html").get_attribute("lang") == "zh-hans"
    assert "责任矩阵" in preview.content()  # the zh-Hans heading of the matrices
