"""Adding a member by searching: the owner types part of a name, a username or an e-mail address
and picks the person from a short list; a full name or address only one account has is taken
as it is, and an unclear one is refused with the people it could mean."""

import pytest
from django.urls import reverse

from common import roles
from evaluations.models import MemberRole
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def colleagues(db):
    return {
        "wangli": make_user(roles.REVIEWER, username="wangli", first_name="丽", last_name="王"),
        "wangwei": make_user(
            roles.REVIEWER, username="wangwei", first_name="Wei", last_name="Wang"
        ),
        "lchen": make_user(
            roles.PROCUREMENT,
            username="lchen",
            first_name="Lin",
            last_name="Chen",
            email="lin.chen@corp.test",
        ),
        "gone": make_user(roles.REVIEWER, username="wanggone", is_active=False),
    }


def offered(client, evaluation, typed) -> list[str]:
    url = reverse("evaluations:member_search", kwargs={"pk": evaluation.pk})
    response = client.get(url, {"username": typed})
    assert response.status_code == 200
    body = response.content.decode()
    return [part.split('"', 1)[0] for part in body.split('<option value="')[1:]]


def test_the_owner_finds_people_by_part_of_a_name_username_or_address(
    client, evaluation, people, colleagues
):
    client.force_login(people[MemberRole.OWNER])
    assert offered(client, evaluation, "wang") == ["wangli", "wangwei"]  # never the disabled
    assert offered(client, evaluation, "王丽") == ["wangli"]
    assert offered(client, evaluation, "wei wang") == ["wangwei"]  # every word, any order
    assert offered(client, evaluation, "lin.chen@") == ["lchen"]
    assert offered(client, evaluation, "  ") == []
    # Members (editor-user, reviewer-user, ...) are not offered again.
    assert offered(client, evaluation, "-user") == []
    assert offered(client, evaluation, "outsid") == ["outsider"]


def test_an_exact_username_comes_first_and_the_list_stays_short(client, evaluation, people):
    for n in range(15):
        make_user(roles.REVIEWER, username=f"ann{n:02d}")
    make_user(roles.REVIEWER, username="zann")
    client.force_login(people[MemberRole.OWNER])
    assert offered(client, evaluation, "zann")[0] == "zann"
    assert len(offered(client, evaluation, "ann")) == 10


def test_only_those_who_manage_members_may_search(client, evaluation, people, colleagues):
    url = reverse("evaluations:member_search", kwargs={"pk": evaluation.pk})
    for role in (MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER):
        client.force_login(people[role])
        assert client.get(url, {"username": "wang"}).status_code == 403
    client.force_login(people["outsider"])
    assert client.get(url, {"username": "wang"}).status_code == 404


def add(client, evaluation, typed):
    url = reverse("evaluations:evaluation_members", kwargs={"pk": evaluation.pk})
    return client.post(url, {"action": "add", "username": typed, "role": MemberRole.REVIEWER})


def test_a_full_name_or_address_only_one_person_has_adds_that_person(
    client, evaluation, people, colleagues
):
    client.force_login(people[MemberRole.OWNER])
    assert add(client, evaluation, "王丽").status_code == 302
    assert add(client, evaluation, "LIN.CHEN@corp.test").status_code == 302
    assert add(client, evaluation, "Wei Wang").status_code == 302
    members = set(evaluation.memberships.values_list("user__username", flat=True))
    assert {"wangli", "lchen", "wangwei"} <= members


def test_an_unclear_or_unknown_person_is_refused_with_what_to_do(
    client, evaluation, people, colleagues
):
    make_user(roles.REVIEWER, username="wei2", first_name="Wei", last_name="Wang")
    client.force_login(people[MemberRole.OWNER])
    response = add(client, evaluation, "Wei Wang")
    body = response.content.decode()
    assert response.status_code == 400
    assert "Several people match" in body and "(wangwei)" in body and "(wei2)" in body
    response = add(client, evaluation, "Nobody Here")
    assert "Nobody is called" in response.content.decode()
    before = evaluation.memberships.count()
    client.cookies["django_language"] = "zh-hans"
    response = add(client, evaluation, "Nobody Here")
    assert "没有名为" in response.content.decode()
    assert evaluation.memberships.count() == before
