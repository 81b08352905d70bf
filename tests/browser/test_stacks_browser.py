"""Composing a stack in a real browser: a tech lead combines an open-source queue with an
enterprise platform on top, sees it as one candidate layer by layer with its combined capability
profile and constraint check, and is told what is wrong when a stack has a single layer."""

import re

import pytest

from common import roles
from evaluations.models import Candidate
from tests.conftest import make_user
from tests.factories import make_evaluation

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1440, 390])
def test_a_tech_lead_composes_a_stack_on_the_shortlist(seeded, session, live_server, width):
    lead = make_user(roles.TECH_LEAD, username="lan")
    evaluation = make_evaluation(lead, localisation_required=True)
    page = session(lead, width=width)
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/shortlist/")
    form = page.get_by_test_id("compose-stack")

    # One layer is not a stack: the message says so and what was typed stays.
    form.get_by_label("Stack name").fill("Volcano + platform")
    form.get_by_label("Batch queue").select_option("volcano")
    form.get_by_label("Why this combination belongs on the shortlist").fill("Queues below.")
    form.get_by_role("button", name="Add stack").click()
    page.get_by_text("A stack needs at least two layers").wait_for()
    form = page.get_by_test_id("compose-stack")
    assert form.get_by_label("Stack name").input_value() == "Volcano + platform"
    assert not Candidate.objects.exists()

    form.get_by_label("Batch queue").select_option("volcano")
    form.get_by_label("Unified view, tenancy, audit and service").select_option(
        "enterprise-container-platform"
    )
    form.get_by_label("Layer that carries the main responsibility").select_option("governance")
    form.get_by_label("Why this combination belongs on the shortlist").fill(
        "Open-source queues underneath, one platform on top for tenants and audit."
    )
    form.get_by_role("button", name="Add stack").click()
    page.wait_for_url(re.compile(r"/shortlist/$"))
    stack = Candidate.objects.get(stack_name="Volcano + platform")
    layers = page.get_by_test_id(f"layers-{stack.pk}")
    assert layers.get_by_text("Batch queue:").count() == 1
    assert layers.get_by_text("main responsibility").count() == 1
    profile = page.get_by_test_id(f"stack-profile-{stack.pk}")
    profile.locator("summary").click()
    assert profile.locator("tbody tr").count() > 20
    checks = page.get_by_test_id(f"constraints-{stack.pk}")
    assert checks.locator("[data-verdict]").count() >= 1
    assert not page.console_errors
