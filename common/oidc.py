"""Company sign-in with OpenID Connect (mozilla-django-oidc): Authorization Code with PKCE,
endpoints from the provider's discovery document, roles from a groups claim at every sign-in,
sign-out at the provider. Off unless OIDC_DISCOVERY_URL is set (config/settings/oidc.py).

As with the directory (common/directory.py): a user whose claims name no group that gives a role
is refused with a message saying so, and a local account (one with a usable password) is never
signed in by the provider."""

from __future__ import annotations

import logging
import time
from urllib.parse import urlencode

import requests
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.views import LoginView, LogoutView
from django.core.exceptions import SuspiciousOperation
from django.http import Http404
from django.shortcuts import redirect, resolve_url
from django.urls import reverse
from django.utils.translation import gettext as _
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.utils import import_from_settings
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from .directory import apply_roles, granted_roles

logger = logging.getLogger(__name__)

# mozilla-django-oidc setting → the discovery document's key.
ENDPOINTS = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}
DISCOVERY_TTL = 3600  # seconds a fetched discovery document is reused
_discovered: dict[str, tuple[float, dict]] = {}

# Why the provider's answer was refused, kept in the session for the sign-in page's message.
REFUSAL_KEY = "oidc_refusal"
UNREACHABLE, NO_ROLE, LOCAL_ACCOUNT = "unreachable", "no-role", "local-account"


class ProviderUnavailable(Exception):
    pass


def discovery() -> dict:
    """The provider's discovery document, fetched once an hour per URL."""
    url = settings.OIDC_DISCOVERY_URL
    fetched = _discovered.get(url)
    if fetched and time.monotonic() - fetched[0] < DISCOVERY_TTL:
        return fetched[1]
    try:
        response = requests.get(url, timeout=settings.OIDC_TIMEOUT, verify=settings.OIDC_VERIFY_SSL)
        response.raise_for_status()
        document = response.json()
    except (requests.RequestException, ValueError) as exc:
        logger.warning("OpenID discovery at %s failed: %s", url, exc)
        raise ProviderUnavailable(str(exc)) from exc
    _discovered[url] = (time.monotonic(), document)
    return document


def oidc_setting(attr, *args):
    """mozilla-django-oidc's settings, with the provider's endpoints from discovery."""
    if attr in ENDPOINTS:
        return discovery()[ENDPOINTS[attr]]
    return import_from_settings(attr, *args)


def mapped_roles(claims: dict) -> list[str]:
    """The app's roles the provider's groups claim grants, in ROLES order."""
    held = claims.get(settings.OIDC_GROUPS_CLAIM) or []
    if isinstance(held, str):
        held = [held]
    return granted_roles(held, settings.OIDC_ROLE_GROUPS)


class CompanyOIDCBackend(OIDCAuthenticationBackend):
    """Signs in the user the provider vouches for. Reads nothing from the provider until a
    sign-in comes back from it, so local sign-ins never wait for the provider."""

    get_settings = staticmethod(oidc_setting)

    def __init__(self, *args, **kwargs):
        self.UserModel = get_user_model()

    def authenticate(self, request, **kwargs):
        if not settings.OIDC_ENABLED or request is None or "code" not in request.GET:
            return None
        try:
            for name in (*ENDPOINTS, "OIDC_RP_CLIENT_ID", "OIDC_RP_CLIENT_SECRET"):
                setattr(self, name, self.get_settings(name))
        except ProviderUnavailable:
            request.session[REFUSAL_KEY] = UNREACHABLE
            return None
        self.OIDC_RP_SIGN_ALGO = self.get_settings("OIDC_RP_SIGN_ALGO", "RS256")
        self.OIDC_RP_IDP_SIGN_KEY = None
        try:
            return super().authenticate(request, **kwargs)
        except requests.RequestException as exc:
            logger.warning("OpenID sign-in failed talking to the provider: %s", exc)
            request.session[REFUSAL_KEY] = UNREACHABLE
            return None

    def _username(self, claims) -> str:
        return str(claims.get(settings.OIDC_USERNAME_CLAIM) or claims.get("sub") or "")[:150]

    def verify_claims(self, claims):
        if not self._username(claims):
            return False
        if not mapped_roles(claims):
            self.request.session[REFUSAL_KEY] = NO_ROLE
            return False
        return True

    def filter_users_by_claims(self, claims):
        users = self.UserModel.objects.filter(username__iexact=self._username(claims))
        if any(user.has_usable_password() for user in users):
            self.request.session[REFUSAL_KEY] = LOCAL_ACCOUNT
            raise SuspiciousOperation("a local account: not signed in by the provider")
        return users

    def create_user(self, claims):
        user = self.UserModel(username=self._username(claims))
        user.set_unusable_password()
        return self.update_user(user, claims)

    def update_user(self, user, claims):
        user.email = claims.get("email", user.email) or ""
        user.first_name = (claims.get("given_name") or user.first_name or "")[:150]
        user.last_name = (claims.get("family_name") or user.last_name or "")[:150]
        user.save()
        apply_roles(user, mapped_roles(claims))
        return user


class SignInRequestView(OIDCAuthenticationRequestView):
    """Sends the browser to the provider (404 while OpenID sign-in is off)."""

    get_settings = staticmethod(oidc_setting)

    def __init__(self, *args, **kwargs):
        super(OIDCAuthenticationRequestView, self).__init__(*args, **kwargs)

    def get(self, request):
        if not settings.OIDC_ENABLED:
            raise Http404
        try:
            self.OIDC_OP_AUTH_ENDPOINT = self.get_settings("OIDC_OP_AUTHORIZATION_ENDPOINT")
        except ProviderUnavailable:
            messages.error(request, refusal_message(UNREACHABLE))
            return redirect(refused_url())
        self.OIDC_RP_CLIENT_ID = self.get_settings("OIDC_RP_CLIENT_ID")
        return super().get(request)


class SignInCallbackView(OIDCAuthenticationCallbackView):
    """Where the provider sends the browser back; a refusal returns to the sign-in page with a
    message saying why."""

    get_settings = staticmethod(oidc_setting)

    def get(self, request):
        if not settings.OIDC_ENABLED:
            raise Http404
        return super().get(request)

    @property
    def failure_url(self):
        return refused_url()

    def login_failure(self):
        reason = self.request.session.pop(REFUSAL_KEY, None)
        messages.error(self.request, refusal_message(reason))
        return super().login_failure()


def refused_url() -> str:
    return resolve_url(settings.LOGIN_URL)


def refusal_message(reason: str | None) -> str:
    if reason == UNREACHABLE:
        return _(
            "The company sign-in service cannot be reached. Try again in a few minutes; if it "
            "persists, tell your administrator. Local accounts still sign in with a password."
        )
    if reason == NO_ROLE:
        return _(
            "Your company account signed in, but it is in none of the groups that give a role "
            "in Shortlist. Ask your administrator to add you to one."
        )
    if reason == LOCAL_ACCOUNT:
        return _(
            "This name belongs to a local Shortlist account, which signs in with its password "
            "on this page, not through the company sign-in."
        )
    return _("The company sign-in did not complete. Try again.")


def provider_sign_out_url(request) -> str:
    """Where signing out sends the browser: the provider's end-session endpoint (so the next
    sign-in asks again), back to this app's sign-in page afterwards."""
    back = request.build_absolute_uri(resolve_url(settings.LOGOUT_REDIRECT_URL or "/"))
    id_token = request.session.get("oidc_id_token")
    if not (settings.OIDC_SIGN_OUT_AT_PROVIDER and id_token):
        return back
    try:
        endpoint = discovery().get("end_session_endpoint")
    except ProviderUnavailable:
        return back
    if not endpoint:
        return back
    query = {
        "id_token_hint": id_token,
        "post_logout_redirect_uri": back,
        "client_id": settings.OIDC_RP_CLIENT_ID,
    }
    return f"{endpoint}?{urlencode(query)}"


def sign_in_url(next_url: str = "") -> str:
    url = reverse("oidc_authentication_init")
    return f"{url}?{urlencode({'next': next_url})}" if next_url else url


class SignOutView(LogoutView):
    """Signing out: of the app, and then of the provider when the session came from it."""

    def post(self, request, *args, **kwargs):
        at_provider = None
        if settings.OIDC_ENABLED and request.session.get("oidc_id_token"):
            at_provider = provider_sign_out_url(request)
        response = super().post(request, *args, **kwargs)
        return redirect(at_provider) if at_provider else response


class SignInView(LoginView):
    """The sign-in page, with the company sign-in button when OpenID sign-in is on."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        if settings.OIDC_ENABLED:
            context["company_sign_in_url"] = sign_in_url(context.get("next", ""))
        return context
