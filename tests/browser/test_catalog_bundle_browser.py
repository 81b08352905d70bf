"""An administrator carries a catalog update by file: uploads a bundle in which one claim's
level and Chinese note differ, sees that row, applies it, and the claim has changed."""

import pytest

from catalog.bundle.export import bundle_export
from catalog.models import CapabilityClaim, CatalogImport
from tests.browser.checks import page_problems
from tests.catalog.test_bundle import change_gang_scheduling, edited

pytestmark = pytest.mark.browser

NEW_NOTE = "仅在整体分配节点时成立。"


@pytest.mark.parametrize("width,language", [(1440, "en"), (390, "zh-hans")])
def test_admin_previews_and_applies_a_bundle(
    seeded, live_server, session, admin_user, tmp_path, width, language
):
    path = tmp_path / "catalog.zip"
    path.write_bytes(edited(bundle_export(), change_gang_scheduling))
    shot = f"bundle-{width}-{language}"

    page = session(admin_user, width=width, language=language)
    page.goto(f"{live_server.url}/catalog/")
    page.locator("a[href='/catalog/bundle/']").click()
    page.wait_for_url(f"{live_server.url}/catalog/bundle/")
    problems = page_problems(page, f"{shot}-empty")

    upload = page.get_by_test_id("bundle-upload")
    upload.locator("input[type=file]").set_input_files(str(path))
    upload.locator("button[type=submit]").click()
    row = page.get_by_test_id("bundle-claim")
    row.first.wait_for()  # the preview page (count() alone does not wait for it)
    assert row.count() == 1
    assert row.get_by_test_id("new-level").get_attribute("data-level") == "partial"
    assert ("Gang 调度" if language == "zh-hans" else "Gang scheduling") in row.inner_text()
    if language == "zh-hans":
        assert NEW_NOTE in row.locator("ins").inner_text()
    problems += page_problems(page, f"{shot}-preview")
    gang = CapabilityClaim.objects.get(solution__slug="slurm", capability__slug="gang-scheduling")
    assert gang.level == "native"  # the preview saves nothing

    page.get_by_test_id("bundle-apply").locator("button[type=submit]").click()
    page.wait_for_url(f"{live_server.url}/catalog/bundle/")
    message = page.locator(".messages").inner_text()
    assert admin_user.username in message and CatalogImport.objects.get().sha256[:12] in message
    assert page.get_by_test_id("bundle-history").locator("tbody tr").count() == 1
    problems += page_problems(page, f"{shot}-applied")
    assert not page.console_errors, page.console_errors
    assert not problems, problems

    gang.refresh_from_db()
    assert (gang.level, gang.note_zh_hans) == ("partial", NEW_NOTE)
    assert gang.history.order_by("-history_id").first().history_user == admin_user
