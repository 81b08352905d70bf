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
    assert table.locator("tbody tr").count() == 9  # the general entry and eight clouds
    assert "alibaba cloud" in table.inner_text().lower()


def test_ticks_survive_a_filter_change_and_then_compare(seeded, live_server, page, sign_in):
    make_user(roles.TECH_LEAD, username="tia")
    sign_in("tia", PASSWORD)
    page.goto(f"{live_server.url}/catalog/")
    page.check("#pick-slurm")
    page.check("#pick-kuberay")

    # Inference hides Slurm: KubeRay stays ticked in the table, Slurm ticked below it.
    page.select_option("select[name=scenario]", "inference")
    page.wait_for_url("**scenario=inference**")
    table = page.get_by_test_id("solution-table")
    assert table.locator("#pick-kuberay").is_checked()
    assert table.locator("#pick-slurm").count() == 0
    assert page.get_by_test_id("chosen-hidden").locator("#pick-slurm").is_checked()

    # Back to every scenario: both are in the table again, still ticked, nothing else is.
    page.select_option("select[name=scenario]", "")
    page.wait_for_function("() => !location.search.includes('scenario=inference')")
    page.wait_for_selector("[data-testid=solution-table] #pick-slurm")
    assert page.is_checked("#pick-slurm") and page.is_checked("#pick-kuberay")
    assert page.locator("input[name=s]:checked").count() == 2

    page.get_by_test_id("compare-button").click()
    page.wait_for_url("**/catalog/compare/**")
    headers = page.get_by_test_id("compare-matrix").locator("thead th").all_inner_texts()
    assert sorted(h.split("\n")[0] for h in headers[1:]) == ["KubeRay", "Slurm"]


def test_refused_comparison_keeps_the_pick_and_says_why(seeded, live_server, page, sign_in):
    make_user(roles.TECH_LEAD, username="tom")
    sign_in("tom", PASSWORD)
    page.goto(f"{live_server.url}/catalog/")
    page.select_option("select[name=type]", "open-source")
    page.wait_for_url("**type=open-source**")
    page.check("#pick-volcano")
    page.get_by_test_id("compare-button").click()
    page.wait_for_url("**/catalog/compare/**")

    # Back on the list, filtered as before, with the pick kept and the reason by the button.
    error = page.get_by_test_id("compare-error")
    assert "Choose between 2 and 8 solutions to compare (you chose 1)." in error.inner_text()
    assert page.get_by_test_id("compare-button").get_attribute("aria-describedby") == (
        "compare-error"
    )
    assert page.is_checked("#pick-volcano")
    assert page.locator("select[name=type]").input_value() == "open-source"
    assert page.get_by_test_id("solution-table").locator("tbody tr").count() == 10

    # Ticking one more and comparing again works from there.
    page.check("#pick-slurm")
    page.get_by_test_id("compare-button").click()
    page.wait_for_selector("[data-testid=compare-matrix]")
    headers = page.get_by_test_id("compare-matrix").locator("thead th").all_inner_texts()
    assert sorted(h.split("\n")[0] for h in headers[1:]) == ["Slurm", "Volcano"]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_admin_solution_page_fits_a_1440_screen(
    seeded, live_server, session, admin_user, language
):
    """Every claim of the solution is edited in place, with both languages' notes on screen."""
    from catalog.models import Solution

    solution = Solution.objects.get(slug="volcano")
    page = session(admin_user, width=1440, language=language)
    page.goto(f"{live_server.url}/admin/catalog/solution/{solution.pk}/change/")
    page.wait_for_load_state("load")
    width = page.evaluate("document.documentElement.scrollWidth")
    page.locator("#id_claims-0-note_en").scroll_into_view_if_needed()
    page.screenshot(path=f"test-artifacts/admin-solution-1440-{language}.png")
    assert width <= 1440, f"{width}px wide"
    for field in ("note_en", "note_zh_hans"):
        box = page.locator(f"#id_claims-0-{field}").bounding_box()
        assert box and box["x"] + box["width"] <= 1440, field


@pytest.mark.parametrize("width", [1440, 390])
def test_an_admin_edits_a_claim_in_place(seeded, live_server, session, admin_user, width):
    """The row turns into the form (both notes side by side), a bad source key is refused in
    place, and the saved claim is shown in the row again, without leaving the page."""
    from catalog.models import CapabilityClaim

    from .checks import page_problems

    page = session(admin_user, width=width)
    page.goto(f"{live_server.url}/catalog/slurm/")
    row = page.locator("#claim-backfill")
    row.get_by_test_id("edit-claim").click()
    form = page.locator("#claim-backfill").get_by_test_id("claim-form")
    form.wait_for()
    assert page_problems(page, f"claim-edit-{width}") == []
    form.locator("select[name=level]").select_option("partial")
    form.locator("input[name=sources]").fill("SL-sched, NOT-A-KEY")
    form.locator("textarea[name=note_zh_hans]").fill("浏览器中修改的说明（标记 b7）。")
    form.get_by_role("button", name="Save").click()
    error = page.locator("#claim-backfill .errorlist")
    error.wait_for()
    assert "NOT-A-KEY" in error.inner_text()
    form = page.locator("#claim-backfill").get_by_test_id("claim-form")
    form.locator("input[name=sources]").fill("SL-sched")
    form.get_by_role("button", name="Save").click()
    page.locator("#claim-backfill [data-level=partial]").wait_for()
    assert page.locator("[data-testid=claim-form]").count() == 0
    claim = CapabilityClaim.objects.get(solution__slug="slurm", capability__slug="backfill")
    assert claim.level == "partial" and claim.note_zh_hans == "浏览器中修改的说明（标记 b7）。"
    assert [s.key for s in claim.sources.all()] == ["SL-sched"]
