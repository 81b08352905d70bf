"""Personal API tokens (apitokens/): shown once and stored hashed, named, with an end date and
a last use, read-only or read-write, revocable by their owner and by admins, acting with their
owner's roles and memberships and never more. HTTP Basic is off unless turned on, and then
limited per client address."""

import base64
import hashlib
from datetime import timedelta

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from apitokens.models import ApiToken
from apitokens.services import token_create
from common import roles
from evaluations.digests import stamp_of
from evaluations.models import Evaluation, MemberRole
from tests.conftest import make_user
from tests.factories import PASSWORD, make_evaluation

pytestmark = pytest.mark.django_db

SOON = timedelta(days=30)


def make_token(user, scope="write", name="nightly-import-7f3", **kwargs):
    return token_create(
        user=user, name=name, scope=scope, expires=timezone.localdate() + SOON, **kwargs
    )


def api(secret, method="get", path="/api/evaluations/", **kwargs):
    client = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return getattr(client, method)(path, content_type="application/json", **kwargs)


def test_the_secret_is_shown_once_and_only_its_digest_is_stored(client, tech_lead):
    client.force_login(tech_lead)
    made = client.post(
        reverse("apitokens:tokens"),
        {"name": "POC import", "scope": "read", "expires": str(timezone.localdate() + SOON)},
    )
    assert made.status_code == 201
    secret = made.context["secret"][1]
    assert secret.startswith("sl_") and secret in made.content.decode()
    assert "no-store" in made["Cache-Control"]
    token = ApiToken.objects.get(user=tech_lead)
    assert token.name == "POC import" and token.scope == "read"
    assert token.digest == hashlib.sha512(secret.encode()).hexdigest()
    assert secret not in str(
        list(ApiToken.objects.values_list(*[f.attname for f in ApiToken._meta.fields]))
    )
    again = client.get(reverse("apitokens:tokens")).content.decode()
    assert "POC import" in again and secret not in again  # listed, never shown again


def test_a_token_acts_with_its_owners_memberships_and_never_more(owner, people):
    mine = make_evaluation(owner, title="Mine")
    stranger = make_user(roles.TECH_LEAD, username="stranger")
    theirs = make_evaluation(stranger, title="Theirs")
    _token, secret = make_token(owner)
    listed = api(secret).json()
    titles = {row["title"] for row in listed["results"]}
    assert "Mine" in titles and "Theirs" not in titles
    assert api(secret, path=f"/api/evaluations/{mine.pk}/").status_code == 200
    assert api(secret, path=f"/api/evaluations/{theirs.pk}/").status_code == 404  # as outsiders
    reviewer = people[MemberRole.REVIEWER]
    _token, reviewers = make_token(reviewer)
    renamed = api(
        reviewers,
        "patch",
        f"/api/evaluations/{mine.pk}/",
        data={"title": "Renamed", "version": mine.version},
    )
    assert renamed.status_code in (403, 404)  # a reviewer may not edit the evaluation
    assert Evaluation.objects.get(pk=mine.pk).title == "Mine"


def test_a_read_only_token_reads_and_is_refused_every_write(owner):
    evaluation = make_evaluation(owner, title="Read me")
    _token, secret = make_token(owner, scope="read")
    assert api(secret, path=f"/api/evaluations/{evaluation.pk}/").status_code == 200
    for method in ("post", "put", "patch", "delete"):
        refused = api(
            secret, method, f"/api/evaluations/{evaluation.pk}/", data={"title": "Changed"}
        )
        assert refused.status_code == 403, method
        assert "read-only" in refused.json()["detail"]
    assert Evaluation.objects.filter(pk=evaluation.pk, title="Read me").exists()
    _token, writer = make_token(owner, name="writer")
    changed = api(
        writer,
        "patch",
        f"/api/evaluations/{evaluation.pk}/",
        data={"title": "Changed", "version": evaluation.version},
    )
    assert changed.status_code == 200 and changed.json()["title"] == "Changed"


def test_revoked_expired_and_inactive_tokens_are_refused_at_once(client, owner):
    token, secret = make_token(owner)
    assert api(secret).status_code == 200
    client.force_login(owner)
    revoked = client.post(reverse("apitokens:revoke"), {"token": token.digest})
    assert revoked.status_code == 302 and not ApiToken.objects.exists()
    assert api(secret).status_code == 401  # the very next call

    token, secret = make_token(owner, name="short")
    assert api(secret).status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(expiry=timezone.now() - timedelta(seconds=1))
    assert api(secret).status_code == 401

    token, secret = make_token(owner, name="inactive owner")
    owner.is_active = False
    owner.save()
    assert api(secret).status_code == 401


def test_nobody_revokes_another_persons_token_and_an_admin_revokes_any(client, owner):
    token, secret = make_token(owner)
    other = make_user(roles.TECH_LEAD, username="other")
    client.force_login(other)
    assert client.post(reverse("apitokens:revoke"), {"token": token.digest}).status_code == 404
    assert api(secret).status_code == 200
    page = client.get(reverse("apitokens:tokens")).content.decode()
    assert token.name not in page  # nor sees it

    admin = Client()
    admin.force_login(make_user(roles.ADMIN, username="ada", is_staff=True, is_superuser=True))
    listed = admin.get("/admin/apitokens/apitoken/")
    assert listed.status_code == 200 and "nightly-import-7f3" in listed.content.decode()
    assert secret not in listed.content.decode()
    url = f"/admin/apitokens/apitoken/{token.pk}/delete/"
    assert admin.post(url, {"post": "yes"}).status_code == 302
    assert api(secret).status_code == 401


def test_last_use_is_recorded_without_moving_the_evaluations_stamp(owner):
    evaluation = make_evaluation(owner, title="Quiet")
    token, secret = make_token(owner)
    assert token.last_used_at is None
    before = stamp_of(evaluation.pk)
    assert api(secret, path=f"/api/evaluations/{evaluation.pk}/").status_code == 200
    used = ApiToken.objects.get(pk=token.pk).last_used_at
    assert used is not None and timezone.now() - used < timedelta(seconds=5)
    assert stamp_of(evaluation.pk) == before
    api(secret)
    assert ApiToken.objects.get(pk=token.pk).last_used_at == used  # once a minute at most


@pytest.mark.parametrize(
    "data, field",
    [
        ({"name": "", "scope": "read"}, "name"),
        ({"name": "   ", "scope": "read"}, "name"),
        ({"name": "taken", "scope": "read"}, "name"),
        ({"name": "x" * 101, "scope": "read"}, "name"),
        ({"name": "ok", "scope": "admin"}, "scope"),
        ({"name": "ok", "scope": "read", "expires": "yesterday"}, "expires"),
        ({"name": "ok", "scope": "read", "expires": "past"}, "expires"),
        ({"name": "ok", "scope": "read", "expires": "too far"}, "expires"),
    ],
)
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_bad_input_is_refused_with_a_message_and_nothing_saved(
    client, owner, data, field, language
):
    make_token(owner, name="taken")
    client.force_login(owner)
    client.cookies["django_language"] = language
    today = timezone.localdate()
    expires = {
        "past": str(today - timedelta(days=1)),
        "too far": str(today + timedelta(days=366)),
        "yesterday": "not a date",
    }.get(data.get("expires"), str(today + SOON))
    refused = client.post(
        reverse("apitokens:tokens"),
        {**data, "expires": expires},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert refused.status_code == 400
    assert refused.context["form"].errors[field]
    assert ApiToken.objects.filter(user=owner).count() == 1


def test_the_page_speaks_chinese(client, owner):
    client.force_login(owner)
    client.cookies["django_language"] = "zh-hans"
    page = client.get(reverse("apitokens:tokens"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    body = page.content.decode()
    assert page.status_code == 200 and "API 令牌" in body and "生成令牌" in body


def test_basic_auth_is_off_by_default_and_the_challenge_names_the_token(owner):
    basic = base64.b64encode(f"{owner.username}:{PASSWORD}".encode()).decode()
    refused = Client().get("/api/evaluations/", HTTP_AUTHORIZATION=f"Basic {basic}")
    assert refused.status_code == 401 and refused["WWW-Authenticate"] == "Bearer"


@override_settings(API_BASIC_AUTH=True, API_BASIC_AUTH_RATE="3/min")
def test_basic_auth_when_on_works_and_is_limited_per_address(owner):
    from django.core.cache import cache

    cache.clear()
    basic = base64.b64encode(f"{owner.username}:{PASSWORD}".encode()).decode()
    answers = [
        Client(REMOTE_ADDR="203.0.113.5")
        .get("/api/evaluations/", HTTP_AUTHORIZATION=f"Basic {basic}")
        .status_code
        for _ in range(4)
    ]
    assert answers == [200, 200, 200, 429]
    other = Client(REMOTE_ADDR="198.51.100.7")
    assert other.get("/api/evaluations/", HTTP_AUTHORIZATION=f"Basic {basic}").status_code == 200
    cache.clear()


def test_a_header_that_is_not_text_is_a_refusal_not_an_error():
    refused = Client().get(
        "/api/evaluations/", HTTP_AUTHORIZATION=b"Bearer sl_\xff\xfe".decode("latin-1")
    )
    assert refused.status_code == 401
