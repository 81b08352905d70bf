"""Every page a member sees, at desktop and phone width, in both languages: it loads, logs no
console error, does not scroll sideways (grids scroll inside their own frame), has no duplicate
id, and axe-core finds no serious or critical accessibility violation. A screenshot of each
page is saved to test-artifacts/ so a person can look at the layout."""

from datetime import date, timedelta

import pytest

from apitokens.services import token_create
from evaluations.models import MemberRole
from tests.browser.checks import page_problems
from tests.factories import make_everything

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WIDTHS = {"desktop": 1440, "phone": 390}
DAYS = timedelta(days=30)


def pages_to_visit(evaluation):
    """(name, path) of every page: the evaluation's tabs, one matrix, home and the catalog."""
    base = f"/evaluations/{evaluation.pk}"
    candidate = evaluation.candidates.filter(solution__slug="slurm").get()
    return [
        ("home", "/"),
        ("evaluation-list", "/evaluations/"),
        ("evaluation-import", "/evaluations/import/"),
        ("overview", f"{base}/"),
        ("edit", f"{base}/edit/"),
        ("context", f"{base}/context/"),
        ("shortlist", f"{base}/shortlist/"),
        ("questions", f"{base}/questions/"),
        ("decision", f"{base}/decision/"),
        ("approvals", f"{base}/decision/approvals/"),
        ("members", f"{base}/members/"),
        ("history", f"{base}/history/"),
        ("matrices", f"{base}/responsibility/"),
        ("matrix", f"{base}/responsibility/{candidate.pk}/"),
        ("costs", f"{base}/costs/"),
        ("poc-plan", f"{base}/poc/plan/"),
        ("scorecard", f"{base}/poc/"),
        ("results", f"{base}/poc/results/"),
        ("poc-conflicts", f"{base}/poc/conflicts/"),
        ("poc-testbeds", f"{base}/poc/testbeds/"),
        ("poc-import", f"{base}/poc/import/"),
        ("reports", f"{base}/reports/"),
        ("catalog", "/catalog/"),
        ("catalog-detail", "/catalog/slurm/"),
        ("catalog-compare", "/catalog/compare/?s=slurm&s=volcano&s=kuberay"),
        ("api-tokens", "/accounts/tokens/"),
    ]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("device", list(WIDTHS))
def test_every_page_fits_the_screen_and_passes_axe(
    seeded, live_server, session, owner, people, device, language
):
    evaluation = make_everything(owner, people, sealed=False)
    assert people[MemberRole.OWNER] == owner
    token_create(user=owner, name="POC import 导入", scope="write", expires=date.today() + DAYS)
    width = WIDTHS[device]
    page = session(owner, width=width, language=language)
    console_errors = page.console_errors

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
        problems += page_problems(page, f"a11y-{width}-{language}-{name}")
        problems += [f"{where}: console error {e}" for e in console_errors]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("device", list(WIDTHS))
def test_the_administrators_review_pages_fit_and_pass_axe(
    seeded, live_server, session, admin_user, owner, people, device, language
):
    from catalog.models import CapabilityClaim, Source

    make_everything(owner, people, sealed=False)  # POC findings to review
    claim = CapabilityClaim.objects.filter(solution__slug="volcano", level="native").first()
    claim.sources.set([Source.objects.create(key="old", title="Old", as_of="page dated 2023-01")])
    claim.as_of_version = ""
    claim.checked_on = None
    claim.save()  # a stale claim to check again
    page = session(admin_user, width=WIDTHS[device], language=language)
    problems = []
    for name, path in (
        ("catalog-review", "/evaluations/catalog-review/"),
        ("poc-verifications", "/evaluations/poc-verifications/"),
    ):
        page.console_errors.clear()
        response = page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("load")
        if response is None or response.status >= 400:
            problems.append(f"{name}: HTTP {response and response.status}")
            continue
        assert page.locator("[data-testid=stale]").count() or name != "catalog-review"
        problems += page_problems(page, f"a11y-{WIDTHS[device]}-{language}-{name}")
        problems += [f"{name}: console error {e}" for e in page.console_errors]
    assert not problems, "\n".join(problems)
