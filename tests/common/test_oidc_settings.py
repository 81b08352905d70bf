"""OpenID sign-in's configuration: off by default, checked at start, placed among the
authentication backends and the Content-Security-Policy; its addresses answer 404 while off."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings.oidc import BACKEND, oidc_settings, with_oidc, with_provider_in_csp

ENVIRON = {
    "OIDC_DISCOVERY_URL": "https://sso.corp.example/realms/staff/.well-known/openid-configuration",
    "OIDC_CLIENT_ID": "shortlist",
    "OIDC_CLIENT_SECRET": "s3cret",
    "OIDC_TECH_LEAD_GROUP": "gpu-platform-leads",
}
BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "rules.permissions.ObjectPermissionBackend",
    "django.contrib.auth.backends.ModelBackend",
]


def test_off_unless_a_discovery_url_is_named():
    built = oidc_settings({})
    assert built == {"OIDC_ENABLED": False}
    assert with_oidc(BACKENDS, built) == BACKENDS
    policy = {"DIRECTIVES": {"form-action": ["'self'"]}}
    assert with_provider_in_csp(policy, built) == policy


def test_on_pkce_the_backend_before_local_accounts_and_the_provider_may_take_forms():
    built = oidc_settings(ENVIRON)
    assert built["OIDC_USE_PKCE"] and built["OIDC_STORE_ID_TOKEN"]
    assert built["OIDC_RP_SIGN_ALGO"] == "RS256"
    assert built["OIDC_ROLE_GROUPS"]["tech_lead"] == "gpu-platform-leads"
    backends = with_oidc(BACKENDS, built)
    assert backends == [*BACKENDS[:2], BACKEND, BACKENDS[2]]
    policy = with_provider_in_csp({"DIRECTIVES": {"form-action": ["'self'"]}}, built)
    assert policy["DIRECTIVES"]["form-action"] == ["'self'", "https://sso.corp.example"]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"OIDC_CLIENT_ID": ""}, "OIDC_CLIENT_ID must be set"),
        ({"OIDC_CLIENT_SECRET": " "}, "OIDC_CLIENT_SECRET must be set"),
        ({"OIDC_TECH_LEAD_GROUP": ""}, "Name at least one group"),
        ({"OIDC_TIMEOUT": "later"}, "OIDC_TIMEOUT must be a number"),
    ],
)
def test_a_half_configured_provider_is_refused_at_startup(change, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        oidc_settings({**ENVIRON, **change})


@pytest.mark.django_db
def test_while_off_the_company_button_is_absent_and_its_addresses_are_404(client):
    page = client.get("/accounts/login/").content.decode()
    assert 'data-testid="company-sign-in"' not in page
    assert client.get("/oidc/authenticate/").status_code == 404
    assert client.get("/oidc/callback/?code=x&state=y").status_code == 404
