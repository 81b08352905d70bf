"""The documentation at /docs/ in chromium: it draws under the app's Content-Security-Policy
(no console error), asks no other host for anything, and its search finds a page."""

from urllib.parse import urlparse

import pytest

from tests.browser.checks import watch_console
from tests.docs_site import build_site

pytestmark = pytest.mark.browser


@pytest.fixture
def docs_site(tmp_path, settings):
    site = tmp_path / "site"
    result = build_site(site)
    assert result.returncode == 0, result.stdout + result.stderr
    settings.DOCS_SITE_ROOT = site
    return site


def test_the_docs_read_and_search_without_leaving_the_app(docs_site, live_server, browser):
    context = browser.new_context(locale="en-US", viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors = watch_console(page)
    origin = urlparse(live_server.url).netloc
    elsewhere = []

    def on_request(request):
        if urlparse(request.url).netloc not in (origin, ""):  # data: URLs have no host
            elsewhere.append(request.url)

    page.on("request", on_request)

    def heading():
        return page.locator("h1").first.inner_text().rstrip("¶").strip()  # less its permalink

    try:
        page.goto(f"{live_server.url}/docs/")
        assert heading() == "Shortlist"
        # The theme's script ran: it marks the page and draws the search box.
        assert "js" in (page.locator("html").get_attribute("class") or "").split()

        search = page.locator("input[data-md-component=search-query]")
        search.click()
        # The search index is built in a web worker first: seconds on a busy machine.
        meta = page.locator(".md-search-result__meta")
        meta.filter(has_not_text="Initializing").wait_for(timeout=60_000)
        search.press_sequentially("backup restore")  # key by key: the theme searches on keyup
        results = page.locator(".md-search-result__item")
        results.first.wait_for(timeout=30_000)
        assert "Backup and restore" in results.all_inner_texts()[0]
        results.first.locator("a").first.click()
        page.wait_for_url("**/operating/backup.html**")
        assert heading() == "Backup and restore"

        page.goto(f"{live_server.url}/docs/development/architecture/")
        page.wait_for_url("**/development/architecture.html")
        assert "lower app" in page.locator("article").inner_text()
    finally:
        context.close()
    assert not errors, errors
    assert not elsewhere, elsewhere
