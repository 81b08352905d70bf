"""Browser-test harness: Playwright for Python driving Debian's chromium (never a download)."""

import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import require_service

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# Chromium must not phone home: this machine (and our users' networks) are closed.
LAUNCH_ARGS = [
    "--no-sandbox",
    "--headless=new",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        require_service("chromium", f"{CHROMIUM} not found (make test installs it)")
    # Playwright's sync API runs an event loop in this thread; Django's ORM calls from the
    # same thread (fixtures) are still synchronous, so allow them.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(locale="en-US", viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.rep_call = report


@pytest.fixture
def sign_in(page, live_server):
    def _sign_in(username: str, password: str):
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", password)
        page.get_by_test_id("sign-in").click()
        page.wait_for_url(f"{live_server.url}/")

    return _sign_in


@pytest.fixture
def session(browser, live_server):
    """Sign a user in, in a browser context of its own: `session(user, width=390,
    language="zh-hans")` returns the page, with `page.console_errors` collecting every console
    error and uncaught exception except the 4xx answers a test provokes on purpose."""
    from tests.browser.checks import EXPECTED_REFUSAL, watch_console
    from tests.factories import PASSWORD

    contexts = []

    def open_as(user, *, width=1440, language="en"):
        context = browser.new_context(
            locale="en-US", viewport={"width": width, "height": 900 if width > 800 else 844}
        )
        context.add_cookies(
            [{"name": "django_language", "value": language, "url": live_server.url}]
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.console_errors = watch_console(page, allow=EXPECTED_REFUSAL)
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", user.username)
        page.fill("#id_password", PASSWORD)
        page.get_by_test_id("sign-in").click()
        page.wait_for_url(f"{live_server.url}/")
        return page

    yield open_as
    for context in contexts:
        context.close()


@pytest.fixture
def worker(request):
    """A real worker when Redis is configured (always in CI); otherwise tasks run in-process."""
    if settings.REDIS_URL:
        return request.getfixturevalue("celery_worker")
    return None
