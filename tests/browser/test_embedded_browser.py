"""Procurement requests a report from the embedded default (`make run`: SQLite file, filesystem
broker, a real worker process): the click answers at once with a busy button, the list shows the
run queued or rendering, and it turns to done by itself, without a reload. Runs in CI too: the
processes get the embedded configuration whatever REDIS_URL and DATABASE_URL say."""

import json
import time

import pytest

from tests.browser.checks import watch_console
from tests.embedded import DEMO_PASSWORD

# One worker prepares the embedded database (conftest.embedded_template) for both modules.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("embedded"), pytest.mark.slow]


def test_requesting_answers_at_once_and_the_list_follows_the_worker(browser, embedded_site):
    site = embedded_site
    context = browser.new_context(locale="en-US", viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors = watch_console(page)
    try:
        page.goto(f"{site.url}/accounts/login/")
        page.fill("#id_username", "procurement")
        page.fill("#id_password", DEMO_PASSWORD)
        page.get_by_test_id("sign-in").click()
        page.wait_for_url(f"{site.url}/")
        page.get_by_role("link", name="Demo: GPU platform").first.click()
        reports = page.url.split("/evaluations/")[1].split("/")[0]
        page.goto(f"{site.url}/evaluations/{reports}/reports/")

        # What the button shows between the press and the next page, noted where it outlives
        # the page (the session's storage), since the answer replaces the page at once.
        page.evaluate(
            """() => {
              const button = document.querySelector("[data-testid=request-button]");
              document.addEventListener("submit", () => {
                sessionStorage.setItem("pressed", performance.timeOrigin + performance.now());
              }, true);
              new MutationObserver(() => {
                if (!button.disabled || sessionStorage.getItem("busy")) return;
                sessionStorage.setItem("busy", JSON.stringify({
                  at: performance.timeOrigin + performance.now(),
                  label: button.textContent.trim(),
                  classes: button.className,
                  form: button.form.getAttribute("aria-busy"),
                }));
              }).observe(button, {attributes: true, childList: true, subtree: true});
            }"""
        )
        started = time.monotonic()
        page.get_by_test_id("request-button").click()
        page.get_by_text("Report requested: it is queued").wait_for()
        answered = time.monotonic() - started
        assert answered < 8, f"the page waited {answered:.1f} s for the request"
        busy = json.loads(page.evaluate("sessionStorage.getItem('busy')"))
        pressed = float(page.evaluate("sessionStorage.getItem('pressed')"))
        assert busy["label"] == "Requesting…" and "busy" in busy["classes"].split()
        assert busy["form"] == "true" and busy["at"] - pressed < 500

        newest = page.get_by_test_id("report-runs").locator("tbody tr").first
        assert newest.get_attribute("data-status") in ("queued", "rendering")
        assert newest.locator("progress").count() == 1

        # The list follows the worker by itself: the same document, not a reloaded one.
        page.evaluate("window.sameDocument = true")
        statuses = set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            status = newest.get_attribute("data-status")
            statuses.add(status)
            if status in ("done", "failed"):
                break
            page.wait_for_timeout(200)
        assert status == "done", (statuses, site.log_text()[-3000:])
        assert page.evaluate("window.sameDocument") is True
        assert newest.get_by_role("link", name="Download PDF").count() == 1

        # The same snapshot again: done in the answer to the click.
        page.get_by_test_id("request-button").click()
        page.get_by_text("Report ready: download it below.").wait_for()
        again = page.get_by_test_id("report-runs").locator("tbody tr")
        assert again.count() == 2 and again.first.get_attribute("data-status") == "done"
        assert errors == []
    finally:
        context.close()
