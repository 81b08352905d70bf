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


@override_settings(AXES_FAILURE_LIMIT=5)
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


@override_settings(AXES_FAILURE_LIMIT=5)
def test_http_basic_locks_and_answers_401_with_a_challenge():
    make_user(roles.TECH_LEAD, username="tao")
    anonymous = Client().get("/api/evaluations/")
    assert anonymous.status_code == 401 and anonymous["WWW-Authenticate"].startswith("Basic")
    assert basic("tao", PASSWORD).status_code == 200
    for _ in range(30):
        assert basic("tao", "wrong-guess").status_code == 401
    refused = basic("tao", PASSWORD)
    assert refused.status_code == 401 and refused["WWW-Authenticate"].startswith("Basic")


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
