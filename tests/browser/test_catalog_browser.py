"""A tech lead signs in, switches to Chinese and compares three solutions in a real browser."""

import pytest

from common import roles
from tests.conftest import make_user
from tests.factories import PASSWORD

pytestmark = pytest.mark.browser


def test_tech_lead_compares_three_solutions_in_chinese(seeded, live_server, page, sign_in):
    make_user(roles.TECH_LEAD, username="tao")
    sign_in("tao", PASSWORD)
    assert page.get_by_test_id("current-user").inner_text().startswith("tao")

    page.get_by_test_id("lang-zh-hans").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "zh-hans"

    page.goto(f"{live_server.url}/catalog/")
    assert page.locator("h1").inner_text() == "方案目录"
    for slug in ("slurm", "volcano", "kuberay"):
        page.check(f"#pick-{slug}")
    page.get_by_test_id("compare-button").click()
    page.wait_for_url("**/catalog/compare/**")

    matrix = page.get_by_test_id("compare-matrix")
    headers = matrix.locator("thead th").all_inner_texts()
    assert sorted(h.split("\n")[0] for h in headers[1:]) == ["KubeRay", "Slurm", "Volcano"]
    # Every capability row has one badge per solution, with Chinese level labels.
    rows = matrix.locator("tbody tr:not(.grouprow)")
    assert rows.count() >= 20
    assert rows.first.locator("[data-level]").count() == 3
    assert matrix.locator("[data-level=native]").first.inner_text().strip().endswith("原生")
    assert page.locator("th", has_text="Gang 调度").count() >= 1

    # "Only rows that differ" hides rows where all three agree.
    total_visible = rows.locator("visible=true").count()
    page.check("#only-diff")
    assert 0 < rows.locator("visible=true").count() < total_visible


def test_filtering_updates_the_table_without_a_reload(seeded, live_server, page, sign_in):
    make_user(roles.PROCUREMENT, username="pat")
    sign_in("pat", PASSWORD)
    page.goto(f"{live_server.url}/catalog/")
    page.select_option("select[name=type]", "cloud-managed")
    page.wait_for_url("**type=cloud-managed**")
    table = page.get_by_test_id("solution-table")
    assert table.locator("tbody tr").count() == 1
    assert "cloud" in table.inner_text().lower()
