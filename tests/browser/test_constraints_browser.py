"""Hard constraints in a real browser: a tech lead creates an evaluation that requires private
deployment and localisation, sees the violating and the unverified candidate flagged on the
shortlist with the claims behind them, adds the verifying POC case in one click, records the type
that carries the main responsibility, and is refused at the decided gate until the owner waives
the violation."""

import datetime
import re

import pytest

from catalog.models import CapabilityClaim
from common import roles
from evaluations import services
from evaluations.models import Evaluation
from tests.conftest import make_user
from tests.factories import add_candidates, answer_all
from tests.method_steps import follow_method

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1440, 390])
def test_constraints_flag_candidates_and_hold_the_decided_gate(seeded, session, width):
    lead = make_user(roles.TECH_LEAD, username="tao")
    page = session(lead, width=width)
    page.get_by_test_id("new-evaluation").first.click()
    page.fill("#id_title", "Sovereign GPU pool")
    page.fill("#id_organisation", "AI infrastructure")
    page.get_by_label("Training-heavy").check()
    page.get_by_label("private deployment required").check()
    page.get_by_label("localisation (domestic hardware and delivery) required").check()
    page.get_by_test_id("save").click()
    page.wait_for_url(re.compile(r"/evaluations/\d+/context/$"))
    evaluation = Evaluation.objects.get(title="Sovereign GPU pool")
    runai, platform = add_candidates(evaluation, lead, "runai", "enterprise-container-platform")
    # The platform's vendor documents a self-hosted install; here it is not known yet, so the
    # check is unverified and offers the verifying POC case.
    claim = CapabilityClaim.objects.get(
        solution__slug="enterprise-container-platform", capability__slug="private-deployment"
    )
    claim.level, claim.as_of_version = "unknown", ""
    claim.save()
    claim.sources.clear()

    page.goto(page.url.replace("/context/", "/shortlist/"))
    flagged = page.get_by_test_id(f"constraints-{runai.pk}")
    assert flagged.locator("[data-verdict='violates']").count() == 1
    assert flagged.get_by_text("Domestic accelerator adaptation").count() >= 1
    unverified = page.get_by_test_id(f"constraints-{platform.pk}")
    assert unverified.locator("[data-verdict='unverified']").count() == 1

    # One click adds the case that verifies the unknown claim, and the plan says so.
    page.get_by_test_id(f"verify-{platform.pk}-private-deployment").click()
    page.wait_for_url(re.compile(r"/poc/plan/$"))
    assert page.get_by_text("Added to the POC plan").count() == 1

    # The type step, before tools.
    page.goto(page.url.replace("/poc/plan/", "/shortlist/"))
    step = page.get_by_test_id("type-step")
    step.get_by_label("Enterprise platform").check()
    step.locator("#id_type_reason").fill("Many teams, audit and local support")
    step.get_by_test_id("type-save").click()
    page.get_by_test_id("type-chosen").wait_for()

    # Everything else the gate asks for is in place; only the violation holds it.
    for candidate in (runai, platform):
        answer_all(candidate, lead)
    evaluation.refresh_from_db()
    services.evaluation_transition(user=lead, evaluation=evaluation, to_status="poc")
    services.decision_save(
        user=lead,
        evaluation=evaluation,
        chosen=[runai],
        rationale="Best scheduler for our teams.",
        decided_on=datetime.date(2027, 3, 1),
        decided_by="Platform board",
        expected_version=None,
    )
    overview = page.url.replace("/shortlist/", "/")
    page.goto(overview)
    page.get_by_test_id("to-decided").click()
    assert page.get_by_text("violates the hard constraint").count() >= 1
    assert Evaluation.objects.get(pk=evaluation.pk).status == "poc"

    page.goto(overview + "shortlist/")
    waive = page.get_by_test_id(f"constraints-{runai.pk}").get_by_test_id("waive-form")
    waive.locator("input[name=reason]").fill("NVIDIA only until the 2028 refresh")
    waive.get_by_role("button", name="Waive").click()
    page.get_by_test_id(f"constraints-{runai.pk}").get_by_test_id("waiver").wait_for()
    # The open high reminders acknowledged (tests/evaluations/test_gate_method.py walks that).
    follow_method(evaluation, lead, chosen=[runai])

    page.goto(overview)
    page.get_by_test_id("to-decided").click()
    page.wait_for_load_state()
    # The verifying case added above is still unscored: the owner decides anyway, with a reason.
    anyway = page.get_by_test_id("decide-anyway")
    anyway.locator("textarea[name=reason]").fill("Vendor lab run; repeat after go-live")
    anyway.get_by_role("button", name="Mark decided anyway").click()
    page.wait_for_load_state()
    assert Evaluation.objects.get(pk=evaluation.pk).status == "decided"
    assert not page.console_errors
