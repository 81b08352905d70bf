"""Every page a member sees, at desktop and phone width, in both languages: it loads, logs no
console error, does not scroll sideways (grids scroll inside their own frame), has no duplicate
id, and axe-core finds no serious or critical accessibility violation. A screenshot of each
page is saved to test-artifacts/ so a person can look at the layout."""

import pytest

from evaluations.models import MemberRole
from tests.browser.conftest import ARTIFACTS
from tests.factories import PASSWORD, make_everything

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": 1440, "phone": 390}
BLOCKING_IMPACTS = {"serious", "critical"}


def pages_to_visit(evaluation):
    """(name, path) of every page: the evaluation's tabs, one matrix, home and the catalog."""
    base = f"/evaluations/{evaluation.pk}"
    candidate = evaluation.candidates.filter(solution__slug="slurm").get()
    return [
        ("home", "/"),
        ("evaluation-list", "/evaluations/"),
        ("overview", f"{base}/"),
        ("edit", f"{base}/edit/"),
        ("context", f"{base}/context/"),
        ("shortlist", f"{base}/shortlist/"),
        ("questions", f"{base}/questions/"),
        ("decision", f"{base}/decision/"),
        ("members", f"{base}/members/"),
        ("history", f"{base}/history/"),
        ("matrices", f"{base}/responsibility/"),
        ("matrix", f"{base}/responsibility/{candidate.pk}/"),
        ("costs", f"{base}/costs/"),
        ("poc-plan", f"{base}/poc/plan/"),
        ("scorecard", f"{base}/poc/"),
        ("results", f"{base}/poc/results/"),
        ("reports", f"{base}/reports/"),
        ("catalog", "/catalog/"),
        ("catalog-detail", "/catalog/slurm/"),
        ("catalog-compare", "/catalog/compare/?s=slurm&s=volcano&s=kuberay"),
    ]


DUPLICATE_IDS = """() => {
  const seen = new Map();
  document.querySelectorAll("[id]").forEach((el) => seen.set(el.id, (seen.get(el.id) || 0) + 1));
  return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
}"""


def axe_problems(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    return [
        f"axe {v['impact']} {v['id']}: {v['help']} at "
        + ", ".join(str(node["target"]) for node in v["nodes"][:3])
        for v in violations
        if v["impact"] in BLOCKING_IMPACTS
    ]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("device", list(WIDTHS))
def test_every_page_fits_the_screen_and_passes_axe(
    seeded, live_server, browser, owner, people, device, language
):
    evaluation = make_everything(owner, people, sealed=False)
    assert people[MemberRole.OWNER] == owner
    width = WIDTHS[device]
    context = browser.new_context(
        locale="en-US", viewport={"width": width, "height": 900 if width > 800 else 844}
    )
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page = context.new_page()
    page.set_default_timeout(15_000)
    console_errors: list[str] = []
    page.on("console", lambda msg: msg.type == "error" and console_errors.append(msg.text))
    page.on("pageerror", lambda exc: console_errors.append(str(exc)))

    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", owner.username)
    page.fill("#id_password", PASSWORD)
    page.get_by_test_id("sign-in").click()
    page.wait_for_url(f"{live_server.url}/")

    ARTIFACTS.mkdir(exist_ok=True)
    problems = []
    for name, path in pages_to_visit(evaluation):
        console_errors.clear()
        response = page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("load")
        where = f"{name} ({path}, {width}px, {language})"
        if response is None or response.status >= 400:
            problems.append(f"{where}: HTTP {response and response.status}")
            continue
        assert page.locator("html").get_attribute("lang") == language, where
        page.screenshot(path=str(ARTIFACTS / f"a11y-{width}-{language}-{name}.png"), full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        if overflow > 0:
            problems.append(f"{where}: the page scrolls sideways by {overflow}px")
        problems += [f"{where}: duplicate id {i}" for i in page.evaluate(DUPLICATE_IDS)]
        problems += [f"{where}: {p}" for p in axe_problems(page)]
        problems += [f"{where}: console error {e}" for e in console_errors]
    context.close()
    assert not problems, "\n".join(problems)
