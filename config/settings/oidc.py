"""The settings of company sign-in with OpenID Connect (mozilla-django-oidc), built from
environment variables. Off unless OIDC_DISCOVERY_URL is set; a function, as
config/settings/directory.py, so that tests build the same settings for a provider they start."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from .directory import before_local_accounts, required, role_groups, seconds

BACKEND = "common.oidc.CompanyOIDCBackend"
ROLE_VARIABLES = {
    "admin": "OIDC_ADMIN_GROUP",
    "tech_lead": "OIDC_TECH_LEAD_GROUP",
    "reviewer": "OIDC_REVIEWER_GROUP",
    "procurement": "OIDC_PROCUREMENT_GROUP",
}
TRUE = {"1", "true", "yes", "on"}


def oidc_settings(environ: Mapping[str, str]) -> dict:
    """OIDC_* settings for the provider `environ` describes ({"OIDC_ENABLED": False} when it
    names none)."""
    discovery = environ.get("OIDC_DISCOVERY_URL", "").strip()
    if not discovery:
        return {"OIDC_ENABLED": False}

    def need(name: str) -> str:
        return required(environ, name, "OIDC_DISCOVERY_URL")

    groups = role_groups(environ, ROLE_VARIABLES, "group (a value of the groups claim)")
    timeout = seconds(environ, "OIDC_TIMEOUT")
    ca_bundle = environ.get("OIDC_CA_BUNDLE", "").strip()
    return {
        "OIDC_ENABLED": True,
        "OIDC_DISCOVERY_URL": discovery,
        "OIDC_RP_CLIENT_ID": need("OIDC_CLIENT_ID"),
        "OIDC_RP_CLIENT_SECRET": need("OIDC_CLIENT_SECRET"),
        "OIDC_RP_SCOPES": environ.get("OIDC_SCOPES", "").strip() or "openid email profile groups",
        "OIDC_RP_SIGN_ALGO": environ.get("OIDC_SIGN_ALGO", "").strip() or "RS256",
        "OIDC_USE_PKCE": True,
        "OIDC_USE_NONCE": True,
        "OIDC_STORE_ID_TOKEN": True,  # the provider's sign-out wants it back as a hint
        "OIDC_GROUPS_CLAIM": environ.get("OIDC_GROUPS_CLAIM", "").strip() or "groups",
        "OIDC_USERNAME_CLAIM": (
            environ.get("OIDC_USERNAME_CLAIM", "").strip() or "preferred_username"
        ),
        "OIDC_ROLE_GROUPS": groups,
        "OIDC_TIMEOUT": timeout,
        "OIDC_VERIFY_SSL": ca_bundle or True,
        "OIDC_SIGN_OUT_AT_PROVIDER": (
            environ.get("OIDC_SIGN_OUT_AT_PROVIDER", "true").strip().lower() in TRUE
        ),
        "OIDC_OP_LOGOUT_URL_METHOD": "common.oidc.provider_sign_out_url",
    }


def with_oidc(backends: list[str], settings: Mapping) -> list[str]:
    """The authentication backends with the OpenID one, when it is configured."""
    return before_local_accounts(backends, BACKEND, bool(settings.get("OIDC_ENABLED")))


def with_provider_in_csp(policy: dict, settings: Mapping) -> dict:
    """The Content-Security-Policy with the provider's origin among the form actions: signing
    out posts to the app, which redirects to the provider's end-session page, and browsers
    check a form's redirects against form-action too."""
    if not settings.get("OIDC_ENABLED"):
        return policy
    parts = urlsplit(settings["OIDC_DISCOVERY_URL"])
    origin = f"{parts.scheme}://{parts.netloc}"
    directives = {**policy["DIRECTIVES"]}
    directives["form-action"] = [*directives["form-action"], origin]
    return {**policy, "DIRECTIVES": directives}
