"""A tech lead closes a responsibility gap with the keyboard alone."""

import pytest

from common import roles
from responsibility import services
from responsibility.models import Area, Party
from tests.browser.conftest import ARTIFACTS
from tests.conftest import make_user
from tests.factories import PASSWORD, add_candidates, make_evaluation

pytestmark = pytest.mark.browser


def test_keyboard_edit_closes_a_gap(seeded, live_server, page, sign_in):
    owner = make_user(roles.TECH_LEAD, username="tao")
    evaluation = make_evaluation(owner)
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    area = Area.objects.get(key="job_execution")
    services.row_update(
        user=owner,
        candidate=slurm,
        area=area,
        expected_version=0,
        letters={Party.objects.get(key="internal"): "C", Party.objects.get(key="vendor"): "R"},
    )
    sign_in("tao", PASSWORD)
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/responsibility/{slurm.pk}/")
    assert page.get_by_test_id("gap-count").inner_text().startswith("1 ")

    # Start at the first cell of the grid and walk to the internal team's job-execution cell.
    first = page.locator("input.raci").first
    first.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")  # back to row 1 (job execution), column 1 (internal team)
    assert page.evaluate("document.activeElement.getAttribute('aria-label')").startswith(
        "Job execution"
    )
    page.keyboard.press("a")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=gap-count]').innerText.startsWith('0 ')"
    )
    row = page.locator("#row-job_execution")
    assert row.locator("[data-status=ok]").count() == 1
    # Move right and clear the vendor's R: the area now has nobody responsible.
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Delete")
    page.locator("#row-job_execution [data-status=no_responsible]").wait_for()
    rows = slurm.area_rows.get(area=area)
    assert {c.party.key: c.letter for c in rows.cells.select_related("party")} == {"internal": "A"}


@pytest.mark.parametrize("width", [1440, 390])
def test_keyboard_combines_and_splits_letters(seeded, live_server, session, width):
    """A then R makes AR and saves; R again leaves A; Delete clears the cell."""
    owner = make_user(roles.TECH_LEAD, username=f"lan{width}")
    evaluation = make_evaluation(owner)
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    area = Area.objects.get(key="job_execution")
    internal, vendor = Party.objects.get(key="internal"), Party.objects.get(key="vendor")
    services.row_update(
        user=owner, candidate=slurm, area=area, expected_version=0, letters={vendor: "C"}
    )
    page = session(owner, width=width)
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/responsibility/{slurm.pk}/")
    help_line = page.get_by_test_id("raci-help")
    assert help_line.is_visible() and "AR" in help_line.inner_text()
    cell = page.locator(f"#row-job_execution input.raci[data-party='{internal.pk}']")
    assert cell.get_attribute("aria-describedby") == "raci-help"
    assert cell.get_attribute("aria-label") == "Job execution — Internal platform team"
    row = page.locator("#row-job_execution")

    def saved(version):
        page.wait_for_function(
            "v => document.getElementById('ver-job_execution').value === v", arg=str(version)
        )

    def stored():
        cells = slurm.area_rows.get(area=area).cells.select_related("party")
        return {c.party.key: c.letter for c in cells}

    cell.focus()
    page.keyboard.press("a")
    saved(2)
    page.keyboard.press("r")
    saved(3)
    assert cell.input_value() == "AR"
    assert "raci-AR" in cell.get_attribute("class")
    row.locator("[data-status=ok]").wait_for()
    assert stored() == {"internal": "AR", "vendor": "C"}
    cell.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"raci-combined-{width}.png"), full_page=False)

    page.keyboard.press("r")  # a letter the cell already has: only that one goes
    saved(4)
    assert cell.input_value() == "A"
    row.locator("[data-status=no_responsible]").wait_for()
    assert stored() == {"internal": "A", "vendor": "C"}

    page.keyboard.press("Delete")
    saved(5)
    assert cell.input_value() == ""
    row.locator("[data-status=gap]").wait_for()
    assert stored() == {"vendor": "C"}
    assert not page.console_errors
