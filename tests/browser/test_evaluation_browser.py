"""A tech lead runs an evaluation in a real browser: create, context, shortlist, an answer."""

import re

import pytest

from common import roles
from tests.conftest import make_user
from tests.factories import PASSWORD

pytestmark = pytest.mark.browser


def test_tech_lead_builds_a_shortlist_and_answers_a_question(seeded, live_server, page, sign_in):
    make_user(roles.TECH_LEAD, username="tao")
    sign_in("tao", PASSWORD)

    page.get_by_test_id("new-evaluation").first.click()
    page.fill("#id_title", "GPU platform for 2027")
    page.fill("#id_organisation", "AI infrastructure")
    page.get_by_label("Training-heavy").check()
    page.get_by_label("private deployment required").check()
    page.get_by_test_id("save").click()
    page.wait_for_url(re.compile(r"/evaluations/\d+/context/$"))

    # Answer the context: each choice saves itself; the row confirms.
    for key in ("hpc_batch_queues", "k8s_batch_jobs", "single_cloud"):
        row = page.get_by_test_id(f"ctx-{key}")
        row.get_by_label("Yes").check()
        page.get_by_test_id(f"ctx-{key}").get_by_text("Saved").wait_for()

    tabs = page.get_by_role("navigation", name="Evaluation sections")
    tabs.get_by_role("link", name="Shortlist").click()
    suggestions = page.get_by_test_id("suggestions")
    for name in ("Slurm", "Volcano", "Cloud-managed GPU services"):
        assert suggestions.get_by_text(name, exact=True).count() == 1
    page.get_by_test_id("accept-all").click()
    page.wait_for_load_state()
    candidates = page.get_by_test_id("candidates")
    # three from the answers above, more from "private deployment required" on the create form
    shortlisted = candidates.locator("tbody tr").count()
    assert shortlisted > 3

    # Progress starts at 0 of 5 per candidate; a private-deployment reminder fires for the
    # cloud candidate.
    total = 5 * shortlisted
    assert f"0 of {total}" in page.get_by_test_id("progress").inner_text()
    tabs.get_by_role("link", name="Overview").click()
    reminders = page.get_by_test_id("reminders")
    assert reminders.locator("[data-key^='private-deployment-ignored']").count() == 1
    count_before = page.get_by_test_id("reminder-count").inner_text()

    # Answer the compliance question for the cloud candidate, inline.
    tabs.get_by_role("link", name="Five questions").click()
    answer = page.get_by_test_id("answer-cloud-managed-gpu-compliance_evidence")
    answer.get_by_label("Explanation").fill("Provider's compliance reports cover our regulator")
    answer = page.get_by_test_id("answer-cloud-managed-gpu-compliance_evidence")
    answer.get_by_label("Assessment").select_option("partly")
    page.get_by_test_id("answer-cloud-managed-gpu-compliance_evidence").get_by_text(
        "Complete"
    ).wait_for()
    page.wait_for_function(
        "total => document.querySelector('[data-testid=progress]').innerText"
        ".includes(`1 of ${total}`)",
        arg=total,
    )
    assert page.get_by_test_id("reminder-count").inner_text() != count_before

    tabs.get_by_role("link", name="Overview").click()
    assert (
        page.get_by_test_id("reminders").locator("[data-key^='private-deployment-ignored']").count()
        == 0
    )
