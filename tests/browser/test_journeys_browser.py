"""Each role's journey in a real browser, on a desktop and on a phone, in English and Chinese:
the tech lead from an empty evaluation to the decided gate, a reviewer scoring, procurement
reading and exporting, an admin editing a catalog claim. Bad input is typed on the way. Every
step is checked (tests.browser.checks: no console error, no sideways scroll, no duplicate id, no
serious axe violation) and its screenshot lands in test-artifacts/."""

import re

import pytest

from catalog.models import CapabilityClaim
from common import roles
from evaluations.models import Evaluation, MemberRole
from tests.browser.checks import page_problems
from tests.conftest import make_user
from tests.factories import make_everything
from tests.method_steps import follow_method

pytestmark = [pytest.mark.browser, pytest.mark.slow]

JOURNEYS = [(1440, "en"), (390, "zh-hans"), (390, "en"), (1440, "zh-hans")]
IDS = ["desktop-en", "phone-zh", "phone-en", "desktop-zh"]


@pytest.mark.parametrize(("width", "language"), JOURNEYS, ids=IDS)
def test_tech_lead_from_an_empty_evaluation_to_the_decided_gate(
    seeded, live_server, session, width, language
):
    lead = make_user(roles.TECH_LEAD, username=f"lead{width}{language[:2]}")
    page = session(lead, width=width, language=language)
    problems = []

    def step(name):
        problems.extend(page_problems(page, f"journey-lead-{width}-{language}-{name}"))

    page.goto(f"{live_server.url}/evaluations/new/")
    page.get_by_test_id("save").click()  # nothing filled in: refused, with messages
    assert page.locator(".errorlist").count() >= 1
    step("create-refused")
    page.fill("#id_title", "GPU pool 2027")
    page.fill("#id_organisation", "HPC group")
    page.locator("input[name=scenarios]").first.check()
    page.get_by_test_id("save").click()
    page.wait_for_url(re.compile(r"/evaluations/\d+/context/$"))
    base = page.url.rsplit("/context/", 1)[0]
    page.get_by_test_id("ctx-hpc_batch_queues").locator("input[value=yes]").check()
    page.get_by_test_id("ctx-hpc_batch_queues").locator(".saved").wait_for()
    step("context")

    page.goto(f"{base}/shortlist/")
    page.get_by_test_id("accept-all").click()
    page.wait_for_load_state()
    assert page.get_by_test_id("candidates").locator("tbody tr").count() >= 1
    step("shortlist")

    page.goto(f"{base}/questions/")
    rows = page.locator("form.arow")
    for i in range(rows.count()):  # one save at a time, as a person types
        row = rows.nth(i)
        # Each question on its scale: who (boxes), the budget, or yes / partly / no.
        if row.locator("input[name$=parties]").count():
            row.locator("input[name$=parties][value=internal]").check()
        elif row.locator("select[name$=budget]").count():
            row.locator("select[name$=budget]").select_option("people")
        else:
            row.locator("select[name$=assessment]").select_option("yes")
        page.wait_for_load_state("networkidle")
        row.locator("textarea").fill("Our HPC team runs it.")
        row.locator("textarea").press("Tab")
        row.get_by_text(re.compile("Complete|回答完整")).wait_for()
    first = rows.first
    first.locator("input[type=url]").fill("javascript:alert(1)")  # the browser takes it
    first.locator("input[type=url]").press("Tab")
    first.locator(".errors").first.wait_for()  # the server does not
    step("questions-refused")
    first = page.locator("form.arow").first
    first.locator("input[type=url]").fill("https://wiki.example/hpc")
    first.locator("input[type=url]").press("Tab")
    first.locator(".saved").wait_for()

    page.goto(f"{base}/")
    page.get_by_test_id("to-poc").click()
    page.wait_for_load_state()
    page.get_by_test_id("to-decided").click()  # no decision record yet: the gate says so
    page.get_by_test_id("gate-missing").wait_for()
    step("gate-refused")
    page.get_by_test_id("gate-missing").locator("a").last.click()
    page.wait_for_url(re.compile(r"/decision/$"))
    form = page.get_by_test_id("decision-form")
    form.locator("input[name=chosen]").first.check()
    form.locator("textarea[name=rationale]").fill("The HPC team already runs Slurm well.")
    form.locator("input[name=decided_on]").fill("2027-01-15")
    form.locator("input[name=decided_by]").fill("Architecture board")
    form.locator("button[type=submit]").click()
    page.wait_for_load_state()
    step("decision")
    # The type decision and the acknowledged high reminders the gate also asks for (their pages
    # are walked in tests/evaluations/test_gate_method.py).
    evaluation = Evaluation.objects.get(pk=int(base.rstrip("/").rsplit("/", 1)[-1]))
    follow_method(evaluation, lead)
    page.goto(f"{base}/")
    page.get_by_test_id("to-decided").click()
    page.get_by_test_id("sealed").wait_for()
    step("decided")
    assert not page.console_errors
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("width", "language"), JOURNEYS, ids=IDS)
def test_reviewer_scores_blind_and_submits(
    live_server, session, owner, people, seeded, width, language
):
    evaluation = make_everything(owner, people)
    reviewer = people[MemberRole.REVIEWER]
    page = session(reviewer, width=width, language=language)
    problems = []
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/poc/")
    cell = page.locator(".pcell:has(.scoreform)").first
    cell_id = cell.get_attribute("id")
    cell.locator(".scorein").fill("7")  # out of range: the browser refuses it and says so
    cell.locator(".scorein").press("Tab")
    page.locator(f"#{cell_id} [data-client-errors]").wait_for()
    page.locator(f"#{cell_id} .scorein").fill("4")
    page.locator(f"#{cell_id} .scorein").press("Tab")
    page.locator(f"#{cell_id} .saved").wait_for()
    problems += page_problems(page, f"journey-reviewer-{width}-{language}-scored")
    page.locator(f"#{cell_id} [data-testid=submit-cell]").click()
    page.locator(f"#{cell_id}").get_by_text(re.compile("4")).first.wait_for()
    assert not page.console_errors
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("width", "language"), JOURNEYS, ids=IDS)
def test_procurement_reads_results_exports_and_previews(
    live_server, session, owner, people, seeded, width, language
):
    evaluation = make_everything(owner, people, sealed=True)
    page = session(people[MemberRole.VIEWER], width=width, language=language)
    problems = []
    base = f"{live_server.url}/evaluations/{evaluation.pk}"
    for name in ("", "poc/results/", "costs/", "reports/"):
        page.goto(f"{base}/{name}")
        problems += page_problems(page, f"journey-procurement-{width}-{language}-{name or 'o'}")
    assert page.locator("[data-testid=sealed]").count() == 1
    with page.expect_download() as download:
        page.goto(f"{base}/poc/results/")
        page.locator("a[href$='scorecard.xlsx']").first.click()
    assert download.value.suggested_filename == f"scorecard-{evaluation.pk}.xlsx"
    assert not page.console_errors
    assert not problems, "\n".join(problems)


def test_admin_edits_a_catalog_claim_and_bad_input_is_refused(live_server, session, seeded):
    admin = make_user(roles.ADMIN, username="ada")
    claim = CapabilityClaim.objects.select_related("solution").first()
    page = session(admin)
    page.goto(f"{live_server.url}/admin/catalog/capabilityclaim/{claim.pk}/change/")
    page.locator("#id_as_of_version").fill("x" * 300)  # longer than the field allows
    page.locator("#id_as_of_version").evaluate("el => el.removeAttribute('maxlength')")
    page.locator("#id_as_of_version").fill("x" * 300)
    page.locator("input[name=_save]").click()
    page.locator(".errorlist").first.wait_for()
    page.locator("#id_as_of_version").fill("v9.9")
    page.locator("#id_note_en").fill("Checked against the 9.9 release notes.")
    page.locator("input[name=_save]").click()
    page.locator(".messagelist .success").wait_for()
    claim.refresh_from_db()
    assert claim.as_of_version == "v9.9" and claim.note_en.startswith("Checked against")
    problems = page_problems(page, "journey-admin-1440-en-saved", axe=False)
    assert not page.console_errors
    assert not problems, "\n".join(problems)


def test_the_api_docs_run_under_the_content_security_policy(live_server, session, seeded):
    page = session(make_user(roles.TECH_LEAD, username="docs"))
    page.goto(f"{live_server.url}/api/docs/")
    page.locator(".swagger-ui .info").first.wait_for()  # Swagger UI started: its script ran
    assert not page.console_errors  # a CSP violation would be logged here
