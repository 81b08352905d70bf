"""Password guessing is stopped (django-axes): after a few wrong passwords for one account from
one address, even the right password is refused, on the sign-in form and over HTTP Basic, with
a clear message; an admin can unlock the account."""

import base64

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from common import roles
from tests.conftest import make_user
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def sign_in(client, username, password):
    return client.post(reverse("login"), {"username": username, "password": password})


def basic(username, password):
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return Client().get("/api/evaluations/", HTTP_AUTHORIZATION=f"Basic {token}")


# HTTP Basic is off by default (apitokens/auth.py); where an installation turns it on, the lockout
# covers it too. Its own attempt limit is set high here: this is about the lockout.
BASIC_ON = {"API_BASIC_AUTH": True, "API_BASIC_AUTH_RATE": "1000/min"}


@override_settings(AXES_FAILURE_LIMIT=5, **BASIC_ON)
def test_the_form_locks_after_wrong_passwords_and_an_admin_unlocks(client):
    tao = make_user(roles.TECH_LEAD, username="tao")
    for _ in range(4):
        assert sign_in(client, "tao", "wrong-guess").status_code == 200  # the form again
    assert sign_in(client, "tao", "wrong-guess").status_code == 429  # the fifth locks
    locked = sign_in(client, "tao", PASSWORD)
    assert locked.status_code == 429 and b'data-testid="locked-out"' in locked.content
    assert "_auth_user_id" not in client.session
    assert basic("tao", PASSWORD).status_code == 401  # the same account over the API too

    call_command("axes_reset_username", "tao", verbosity=0)  # what an admin does
    assert sign_in(client, "tao", PASSWORD).status_code == 302
    assert int(client.session["_auth_user_id"]) == tao.pk


@override_settings(AXES_FAILURE_LIMIT=5, **BASIC_ON)
def test_http_basic_locks_and_answers_401_with_a_challenge():
    make_user(roles.TECH_LEAD, username="tao")
    anonymous = Client().get("/api/evaluations/")
    assert anonymous.status_code == 401
    assert anonymous["WWW-Authenticate"] == 'Bearer, Basic realm="api"'
    assert basic("tao", PASSWORD).status_code == 200
    for _ in range(30):
        assert basic("tao", "wrong-guess").status_code == 401
    refused = basic("tao", PASSWORD)
    assert refused.status_code == 401 and "Basic" in refused["WWW-Authenticate"]


def test_the_admin_lists_and_deletes_lockouts(client):
    from axes.models import AccessAttempt

    make_user(roles.TECH_LEAD, username="tao")
    sign_in(Client(), "tao", "wrong-guess")
    assert AccessAttempt.objects.filter(username="tao").exists()
    client.force_login(make_user(roles.ADMIN, username="ada"))
    page = client.get("/admin/axes/accessattempt/")
    assert page.status_code == 200 and b"tao" in page.content
    attempt = AccessAttempt.objects.get(username="tao")
    unlock = client.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"})
    assert unlock.status_code == 302 and not AccessAttempt.objects.exists()


# --- behind a reverse proxy: the real client's address is counted ----------------------------

PROXY = "10.0.0.2"
ATTACKER, OWNER = "203.0.113.9", "198.51.100.7"


def via_proxy(forwarded_for: str, remote=PROXY) -> Client:
    """A browser whose requests reach the app through the proxy, which appended its caller."""
    return Client(REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded_for)


@override_settings(AXES_FAILURE_LIMIT=5, TRUSTED_PROXIES=["10.0.0.0/8"])
def test_behind_a_proxy_a_guesser_locks_their_own_address_not_the_account():
    """Everyone reaches the app from the proxy's address; five wrong passwords for "tao" from
    the attacker lock the attacker's address (for tao), not tao, who signs in from theirs."""
    tao = make_user(roles.TECH_LEAD, username="tao")
    attacker = via_proxy(ATTACKER)
    for _ in range(5):
        sign_in(attacker, "tao", "wrong-guess")
    assert sign_in(attacker, "tao", PASSWORD).status_code == 429
    owner = via_proxy(OWNER)
    assert sign_in(owner, "tao", PASSWORD).status_code == 302
    assert int(owner.session["_auth_user_id"]) == tao.pk
    # Forging X-Forwarded-For does not help: the proxy appends the real caller on the right.
    forger = via_proxy(f"{OWNER}, {ATTACKER}")
    assert sign_in(forger, "tao", PASSWORD).status_code == 429


@override_settings(AXES_FAILURE_LIMIT=5, TRUSTED_PROXIES=["10.0.0.0/8"])
def test_forwarded_for_is_ignored_from_a_connection_that_is_not_a_trusted_proxy():
    """A client talking to the app directly cannot pick a new address per guess."""
    make_user(roles.TECH_LEAD, username="tao")
    for n in range(5):
        sign_in(via_proxy(f"192.0.2.{n}", remote=ATTACKER), "tao", "wrong-guess")
    assert sign_in(via_proxy("192.0.2.99", remote=ATTACKER), "tao", PASSWORD).status_code == 429
    assert sign_in(via_proxy(OWNER), "tao", PASSWORD).status_code == 302
