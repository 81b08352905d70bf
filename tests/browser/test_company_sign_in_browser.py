"""Company sign-in with OpenID Connect, end to end in the browser against a real OpenID provider
(oidc-provider under node) the test starts: the sign-in page's company button, the provider's
sign-in and consent, the role its groups claim maps to, refusals that say why, and sign-out at
the provider."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from common import oidc, roles
from config.settings.oidc import oidc_settings, with_oidc, with_provider_in_csp
from tests import oidc_server
from tests.conftest import make_user, require_service

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
User = get_user_model()


@pytest.fixture
def provider(live_server, settings):
    if not oidc_server.available():
        require_service("node and oidc-provider", "make test installs tests/oidc_provider")
    server = oidc_server.start(live_server.url)
    built = oidc_settings(server.environ())
    for name, value in built.items():
        setattr(settings, name, value)
    settings.AUTHENTICATION_BACKENDS = with_oidc(list(settings.AUTHENTICATION_BACKENDS), built)
    settings.CONTENT_SECURITY_POLICY = with_provider_in_csp(settings.CONTENT_SECURITY_POLICY, built)
    oidc._discovered.clear()
    yield server
    server.stop()
    oidc._discovered.clear()


def sign_in_at_provider(page, live_server, account: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_test_id("company-sign-in").click()
    page.wait_for_url("http://127.0.0.1:*/interaction/**")
    page.fill("input[name=login]", account)
    page.fill("input[name=password]", "any password")
    page.click("button[type=submit]")
    consent = page.locator("button[type=submit]", has_text="Continue")
    page.wait_for_load_state()
    if consent.count():
        consent.click()


def sign_in_as_break_glass_admin(page, live_server) -> None:
    """The local admin signs in with a password on the page the test is on."""
    page.fill("#id_username", "breakglass")
    page.fill("#id_password", "local-pass-1")
    page.get_by_test_id("sign-in").click()
    page.wait_for_url(f"{live_server.url}/")


def test_sign_in_maps_the_role_and_sign_out_ends_the_provider_session(page, live_server, provider):
    sign_in_at_provider(page, live_server, "lena")
    page.wait_for_url(f"{live_server.url}/")
    lena = User.objects.get(username="lena")
    assert (lena.email, lena.first_name, lena.last_name) == ("lena@corp.example", "Lena", "Wang")
    assert roles.user_roles(lena) == [roles.TECH_LEAD]
    assert not lena.has_usable_password()
    page.goto(f"{live_server.url}/evaluations/new/")  # a tech lead may create evaluations
    assert page.locator("h1").first.is_visible()
    assert "403" not in page.title()

    page.locator("form[action='/accounts/logout/'] button").first.click()
    page.wait_for_url(f"{provider.issuer}/session/end**")
    page.locator("button", has_text="Yes").click()  # the provider asks to confirm
    page.wait_for_url(f"{live_server.url}/accounts/login/**")
    page.goto(f"{live_server.url}/")
    assert "/accounts/login/" in page.url  # signed out of the app
    page.get_by_test_id("company-sign-in").click()
    page.wait_for_url("http://127.0.0.1:*/interaction/**")  # and of the provider: asked again
    assert page.locator("input[name=login]").is_visible()


def test_groups_decide_the_role_at_every_sign_in(page, live_server, provider):
    pia = make_user(roles.TECH_LEAD, username="pia")
    pia.set_unusable_password()  # created by an earlier company sign-in
    pia.save()
    sign_in_at_provider(page, live_server, "pia")
    page.wait_for_url(f"{live_server.url}/")
    assert roles.user_roles(User.objects.get(username="pia")) == [roles.PROCUREMENT]


def test_an_account_in_no_role_group_is_refused_saying_why(page, live_server, provider):
    sign_in_at_provider(page, live_server, "noah")
    page.wait_for_url(f"{live_server.url}/accounts/login/**")
    assert "none of the groups that give a role" in page.locator(".messages").inner_text()
    assert not User.objects.filter(username="noah", groups__isnull=False).exists()


def test_a_provider_account_cannot_take_over_a_local_account(page, live_server, provider):
    make_user(roles.ADMIN, username="breakglass", password="local-pass-1")
    sign_in_at_provider(page, live_server, "breakglass")
    page.wait_for_url(f"{live_server.url}/accounts/login/**")
    assert "belongs to a local Shortlist account" in page.locator(".messages").inner_text()
    sign_in_as_break_glass_admin(page, live_server)


def test_a_provider_outage_says_so_and_local_accounts_still_sign_in(page, live_server, provider):
    make_user(roles.ADMIN, username="breakglass", password="local-pass-1")
    provider.stop()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_test_id("company-sign-in").click()
    page.wait_for_url(f"{live_server.url}/accounts/login/**")
    assert "cannot be reached" in page.locator(".messages").inner_text()
    sign_in_as_break_glass_admin(page, live_server)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("width", [1440, 390])
def test_the_sign_in_page_with_the_company_button_passes_axe(
    browser, live_server, provider, width, language
):
    from tests.browser.checks import page_problems

    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    assert page.get_by_test_id("company-sign-in").is_visible()
    problems = page_problems(page, f"a11y-{width}-{language}-sign-in-company")
    context.close()
    assert not problems, "\n".join(problems)
