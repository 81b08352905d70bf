"""A tech lead closes a responsibility gap with the keyboard alone."""

import pytest

from common import roles
from responsibility import services
from responsibility.models import Area, Party
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
