"""Two reviewers score the same cell blind, disagree, and the owner settles it."""

import pytest

from common import roles
from evaluations.models import MemberRole
from poc import services
from poc.models import Score
from tests.conftest import make_user
from tests.factories import PASSWORD, add_candidates, add_member, declare_none, make_evaluation

pytestmark = pytest.mark.browser


def test_blind_scores_disagreement_and_consensus(seeded, live_server, browser):
    owner = make_user(roles.TECH_LEAD, username="tao")
    evaluation = make_evaluation(owner)
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    services.plan_init(user=owner, evaluation=evaluation)
    case = evaluation.poc_cases.get(source_case__key="gang_under_contention")
    for name in ("ana", "ben"):
        user = make_user(roles.REVIEWER, username=name)
        add_member(evaluation, user, MemberRole.REVIEWER)
        declare_none(evaluation, user)
    scorecard = f"{live_server.url}/evaluations/{evaluation.pk}/poc/"
    cell_id = f"cell-{case.pk}-slurm"

    def session(username):
        context = browser.new_context(locale="en-US", viewport={"width": 1500, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORD)
        page.get_by_test_id("sign-in").click()
        page.wait_for_url(f"{live_server.url}/")
        page.goto(scorecard)
        return context, page

    def score(page, value):
        cell = page.get_by_test_id(cell_id)
        field = cell.get_by_label("My score", exact=False)
        field.fill(value)
        field.press("Tab")  # change → autosave
        page.get_by_test_id(cell_id).get_by_text("Saved").wait_for()
        page.get_by_test_id(cell_id).get_by_test_id("submit-cell").click()
        page.get_by_test_id(cell_id).get_by_text("Mine:").wait_for()

    ana_ctx, ana = session("ana")
    score(ana, "5")
    ben_ctx, ben = session("ben")
    # Ben cannot see Ana's score before submitting his own.
    assert "1 hidden" in ben.get_by_test_id(cell_id).inner_text()
    assert "ana: 5" not in ben.get_by_test_id(cell_id).inner_text()
    score(ben, "1")
    ben.reload()
    text = ben.get_by_test_id(cell_id).inner_text()
    assert "ana: 5" in text and "disagreement" in text
    ana_ctx.close()
    ben_ctx.close()

    owner_ctx, page = session("tao")
    assert page.get_by_test_id("open-disagreements").inner_text().startswith("1 ")
    cell = page.get_by_test_id(cell_id)
    cell.get_by_text("Record consensus").click()
    form = cell.get_by_test_id("consensus-form")
    form.get_by_label("Agreed score").fill("3")
    form.get_by_label("Reason").fill("Re-ran with the vendor: partial holds cleared after 70 s")
    form.get_by_role("button", name="Record").click()
    page.get_by_test_id(cell_id).get_by_text("consensus", exact=True).wait_for()
    page.reload()
    assert page.get_by_test_id("open-disagreements").inner_text().startswith("0 ")
    assert page.get_by_test_id(cell_id).get_by_test_id("value").inner_text().strip() == "3"
    owner_ctx.close()
    _ = volcano


def test_groups_one_at_a_time_swapped_in_with_htmx(seeded, live_server, session):
    owner = make_user(roles.TECH_LEAD, username="tao")
    evaluation = make_evaluation(owner)
    slurm, _volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    services.plan_init(user=owner, evaluation=evaluation)
    reviewer = make_user(roles.REVIEWER, username="ana")
    add_member(evaluation, reviewer, MemberRole.REVIEWER)
    declare_none(evaluation, reviewer)
    case = evaluation.poc_cases.filter(group__key="governance").order_by("order", "pk").first()
    scorecard = f"{live_server.url}/evaluations/{evaluation.pk}/poc/"

    page = session(reviewer)
    page.goto(scorecard)
    nav = page.get_by_role("navigation", name="Test groups")
    assert nav.locator("[aria-current=page]").get_attribute("data-testid") == (
        "group-batch_training"
    )
    nav.get_by_test_id("group-governance").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{scorecard}?group=governance")
    cell = page.get_by_test_id(f"cell-{case.pk}-slurm")
    cell.wait_for()
    assert nav.locator("[aria-current=page]").get_attribute("data-testid") == "group-governance"
    # The keyboard stays on the group links, and the swapped-in cells save as before.
    assert page.evaluate("document.activeElement.dataset.testid") == "group-governance"
    field = cell.get_by_label("My score", exact=False)
    field.fill("4")
    field.press("Tab")
    page.get_by_test_id(f"cell-{case.pk}-slurm").get_by_text("Saved").wait_for()
    assert Score.objects.get(case=case, candidate=slurm, reviewer=reviewer).score == 4
    page.go_back()
    page.wait_for_url(scorecard)
    nav.locator("[data-testid=group-batch_training][aria-current=page]").wait_for()
    assert not page.console_errors
