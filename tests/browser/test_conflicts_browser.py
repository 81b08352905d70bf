"""A reviewer declares, in one submit, a conflict of interest for one candidate and none for the
other: the first candidate's scorecard cells are blocked with the reason; the owner allows
scoring with a reason and the cells become editable again."""

import pytest

from common import roles
from evaluations.models import MemberRole
from poc import services
from tests.browser.checks import page_problems
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, make_evaluation

pytestmark = pytest.mark.browser

RELATIONSHIP = "Former employee of the vendor, left in 2024"


@pytest.mark.parametrize("width", [1440, 390])
def test_declared_conflict_blocks_the_cell_until_the_owner_allows_it(
    seeded, live_server, session, width
):
    owner = make_user(roles.TECH_LEAD, username="tao")
    evaluation = make_evaluation(owner)
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    services.plan_init(user=owner, evaluation=evaluation)
    case = evaluation.poc_cases.get(source_case__key="gang_under_contention")
    reviewer = make_user(roles.REVIEWER, username="ana")
    add_member(evaluation, reviewer, MemberRole.REVIEWER)
    scorecard = f"{live_server.url}/evaluations/{evaluation.pk}/poc/"
    slurm_cell, volcano_cell = f"cell-{case.pk}-slurm", f"cell-{case.pk}-volcano"
    problems = []

    page = session(reviewer, width=width)
    page.goto(scorecard)
    page.get_by_test_id("declare-first").wait_for()
    # Nothing declared yet: no cell can be scored.
    assert page.get_by_test_id(slurm_cell).get_by_test_id("blocked").is_visible()
    problems += page_problems(page, f"coi-declare-first-{width}")
    # Both candidates in one submit.
    row = page.get_by_test_id("declare-slurm")
    row.get_by_test_id("conflict").check()
    row.locator("input[type=text]").fill(RELATIONSHIP)
    page.get_by_test_id("declare-volcano").get_by_test_id("none").check()
    page.get_by_test_id("save-declarations").click()
    page.wait_for_url(scorecard)
    assert page.get_by_test_id("declare-first").count() == 0
    blocked = page.get_by_test_id(slurm_cell).get_by_test_id("blocked")
    assert "you declared a conflict of interest" in blocked.inner_text()
    explained = page.get_by_test_id("conflict-slurm").inner_text()
    assert "declared a conflict of interest with Slurm" in explained and "owner allows" in explained
    assert page.get_by_test_id(slurm_cell).locator(".scorein").count() == 0
    assert page.get_by_test_id(volcano_cell).locator(".scorein").count() == 1
    problems += page_problems(page, f"coi-blocked-{width}")

    owner_page = session(owner, width=width)
    owner_page.goto(f"{scorecard}conflicts/")
    owner_page.get_by_text(RELATIONSHIP).wait_for()
    allow = owner_page.locator("[data-testid^=allow-]")
    allow.locator("input[name=reason]").fill("Public facts only; two others score it too")
    allow.get_by_role("button", name="Allow scoring").click()
    owner_page.get_by_test_id("allowed").wait_for()
    problems += page_problems(owner_page, f"coi-owner-allowed-{width}")

    page.goto(scorecard)
    field = page.get_by_test_id(slurm_cell).locator(".scorein")
    field.fill("4")
    field.press("Tab")  # change → autosave
    page.locator(f"#cell-{case.pk}-{slurm.pk} .saved").wait_for()
    assert not page.console_errors and not owner_page.console_errors
    assert not problems, "\n".join(problems)
    _ = volcano
