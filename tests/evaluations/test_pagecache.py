"""Kept tabs (evaluations/pagecache.py): a heavy tab is rendered once per stamp, viewer, language
and request, and any change to what it shows, membership, or the viewer renders it again."""

import re

import pytest
from django.contrib import messages
from django.contrib.messages.storage.base import Message
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import caches
from django.db import transaction
from django.http import HttpRequest
from django.test import override_settings
from django.urls import reverse

from catalog.models import Solution
from evaluations import digests
from evaluations.models import MemberRole, Membership
from tests.factories import make_everything

pytestmark = pytest.mark.django_db

KEPT = [
    "evaluations:evaluation_detail",
    "responsibility:matrices",
    "responsibility:costs",
    "evaluations:evaluation_shortlist",
    "evaluations:evaluation_questions",
    "evaluations:evaluation_history",
    "poc:plan",
    "poc:scorecard",
    "poc:results",
]


@pytest.fixture
def everything(owner, people):
    return make_everything(owner, people)


def get(client, name, evaluation, **headers):
    response = client.get(reverse(name, kwargs={"pk": evaluation.pk}), headers=headers)
    assert response.status_code == 200, (name, response.status_code)
    return response


def warm(client, name, evaluation):
    """The first request gets the CSRF cookie the key needs, the second is kept."""
    get(client, name, evaluation)
    get(client, name, evaluation)


def without_tokens(response) -> str:
    """The page without its CSRF tokens (64 letters and digits, masked anew at every render)."""
    return re.sub(r"\b[A-Za-z0-9]{64}\b", "", response.content.decode())


def kept(response) -> bool:
    return response.get("X-Page-Cache") == "hit"


@pytest.mark.parametrize("name", KEPT)
def test_each_heavy_tab_is_kept_until_its_evaluation_changes(client, owner, everything, name):
    client.force_login(owner)
    first = get(client, name, everything)  # sets the CSRF cookie the key needs
    second = get(client, name, everything)
    third = get(client, name, everything)
    assert not kept(first) and kept(third)
    assert third.content == second.content
    everything.title = "Renamed: a marker 7d1f"
    everything.save()  # moves the evaluation's stamp
    renamed = get(client, name, everything)
    assert not kept(renamed)
    assert "Renamed: a marker 7d1f" in renamed.content.decode()
    assert kept(get(client, name, everything))


def test_a_kept_page_is_never_shared_between_viewers(client, owner, people, everything):
    viewer = people[MemberRole.VIEWER]
    client.force_login(owner)
    get(client, "poc:scorecard", everything)
    first_for_owner = get(client, "poc:scorecard", everything)
    client.force_login(viewer)
    for_viewer = get(client, "poc:scorecard", everything)
    # A new session has a new CSRF secret: nothing from another session or viewer is served.
    assert for_viewer.content != first_for_owner.content


def test_membership_is_checked_before_a_kept_page_is_served(client, people, everything):
    editor = people[MemberRole.EDITOR]
    client.force_login(editor)
    warm(client, "evaluations:evaluation_shortlist", everything)
    assert kept(get(client, "evaluations:evaluation_shortlist", everything))
    Membership.objects.filter(evaluation=everything, user=editor).delete()
    path = reverse("evaluations:evaluation_shortlist", kwargs={"pk": everything.pk})
    assert client.get(path).status_code == 404


def test_each_language_has_its_own_kept_page(client, owner, everything):
    client.force_login(owner)
    warm(client, "poc:results", everything)
    english = get(client, "poc:results", everything)
    chinese = get(client, "poc:results", everything, **{"Accept-Language": "zh-hans"})
    assert kept(english) and not kept(chinese)
    assert 'lang="zh-hans"' in chinese.content.decode()


def test_a_catalog_edit_renders_every_kept_page_again(client, owner, everything):
    client.force_login(owner)
    warm(client, "evaluations:evaluation_shortlist", everything)
    assert kept(get(client, "evaluations:evaluation_shortlist", everything))
    solution = Solution.objects.get(slug="slurm")
    solution.name_en = "Slurm marker 42c"
    solution.save()
    fresh = get(client, "evaluations:evaluation_shortlist", everything)
    assert not kept(fresh) and "Slurm marker 42c" in fresh.content.decode()


def test_a_waiting_message_is_shown_not_a_kept_page(client, owner, everything):
    client.force_login(owner)
    warm(client, "poc:plan", everything)
    assert kept(get(client, "poc:plan", everything))
    storage = CookieStorage(HttpRequest())
    client.cookies[storage.cookie_name] = storage._encode(
        [Message(messages.INFO, "A message waiting: 91e")]
    )
    shown = get(client, "poc:plan", everything)
    assert not kept(shown)
    assert "A message waiting: 91e" in shown.content.decode()


@override_settings(PAGE_CACHE_SECONDS=0)
def test_no_page_is_kept_when_switched_off(client, owner, everything):
    client.force_login(owner)
    for _ in range(3):
        assert not kept(get(client, "poc:scorecard", everything))


def test_kept_tabs_can_live_in_one_redis_database_every_process_shares(
    client, owner, everything, redis_url
):
    import redis
    from django.conf import settings
    from django.core.cache import caches

    from config.settings.test import redis_database_url

    url = redis_database_url(redis_url, 1)  # a database of its own (this test worker's second)
    pages = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": url,
        "KEY_PREFIX": "shortlist-pages",
    }
    with override_settings(CACHES={**settings.CACHES, "pages": pages}):
        caches["pages"].clear()
        client.force_login(owner)
        get(client, "poc:scorecard", everything)
        second = get(client, "poc:scorecard", everything)
        third = get(client, "poc:scorecard", everything)
        assert kept(third) and third.content == second.content
        assert redis.Redis.from_url(url).keys("shortlist-pages:*")
        everything.title = "Renamed: a marker 91c4"
        everything.save()
        renamed = get(client, "poc:scorecard", everything)
        assert not kept(renamed) and "Renamed: a marker 91c4" in renamed.content.decode()
        caches["pages"].clear()


def test_page_cache_url_puts_kept_tabs_in_redis(monkeypatch):
    import importlib

    import config.settings.base as base

    monkeypatch.setenv("PAGE_CACHE_URL", "redis://127.0.0.1:6379/13")
    try:
        pages = importlib.reload(base).CACHES["pages"]
        assert pages["BACKEND"].endswith("RedisCache")
        assert pages["LOCATION"] == "redis://127.0.0.1:6379/13"
    finally:
        monkeypatch.delenv("PAGE_CACHE_URL")
        importlib.reload(base)
    assert base.CACHES["pages"]["BACKEND"].endswith("LocMemCache")


def test_a_role_changed_without_signals_is_not_served_the_old_roles_page(client, owner, everything):
    """A write that sends no signal (QuerySet.update) cannot serve an owner's scorecard, with
    other reviewers' names, to the same person demoted to reviewer: the role is in the key."""
    client.force_login(owner)
    warm(client, "poc:scorecard", everything)
    as_owner = get(client, "poc:scorecard", everything)
    assert kept(as_owner)
    Membership.objects.filter(evaluation=everything, user=owner).update(role=MemberRole.REVIEWER)
    as_reviewer = get(client, "poc:scorecard", everything)
    assert not kept(as_reviewer)
    caches["pages"].clear()
    rendered = get(client, "poc:scorecard", everything)  # the reviewer's own page
    assert without_tokens(as_reviewer) == without_tokens(rendered)
    assert without_tokens(as_reviewer) != without_tokens(as_owner)


def test_a_role_changed_in_bulk_moves_the_evaluations_stamp(owner, people, everything):
    """QuerySet writes of memberships move the stamp like a save does, so the status strips
    (counted per viewer) are counted again too."""
    editor = people[MemberRole.EDITOR]
    before = digests.stamp_of(everything.pk)
    with transaction.atomic():  # each write its own transaction, as two requests
        Membership.objects.filter(evaluation=everything, user=editor).update(role=MemberRole.VIEWER)
    after_update = digests.stamp_of(everything.pk)
    assert after_update > before
    row = Membership.objects.get(evaluation=everything, user=editor)
    row.role = MemberRole.REVIEWER
    with transaction.atomic():
        Membership.objects.bulk_update([row], ["role"])
    assert digests.stamp_of(everything.pk) > after_update


def test_a_renamed_person_is_never_shown_by_an_old_kept_page(client, owner, people, everything):
    """A company sign-in saves the names the provider brings: every page of the person's
    evaluations that names them is rendered again, for every viewer."""
    editor = people[MemberRole.EDITOR]
    client.force_login(owner)
    warm(client, "evaluations:evaluation_history", everything)
    assert kept(get(client, "evaluations:evaluation_history", everything))
    editor.first_name, editor.last_name = "丽", "王"
    editor.save()
    client.force_login(owner)
    page = get(client, "evaluations:evaluation_history", everything)
    assert not kept(page) and "王丽" in page.content.decode()
    # Signing in (only the time of it saved) moves nothing.
    before = digests.page_stamp(everything.pk)
    from django.contrib.auth.models import update_last_login

    update_last_login(None, editor)
    assert digests.page_stamp(everything.pk) == before


def test_a_new_release_never_serves_the_previous_releases_pages(
    client, owner, everything, monkeypatch
):
    from evaluations import pagecache

    client.force_login(owner)
    warm(client, "poc:results", everything)
    assert kept(get(client, "poc:results", everything))
    monkeypatch.setattr(pagecache, "release_id", lambda: "the-next-release")
    assert not kept(get(client, "poc:results", everything))
    assert kept(get(client, "poc:results", everything))


def test_a_restored_database_never_meets_a_page_kept_after_its_backup(client, owner, everything):
    """A restore takes the stamps back to numbers they had passed; the pages kept meanwhile
    (in Redis, outside the database) are filed under epochs the restored stamps never draw."""
    from evaluations.models import StatusStamp

    client.force_login(owner)
    get(client, "poc:results", everything)  # the CSRF cookie
    backup = StatusStamp.objects.filter(pk=everything.pk).values("seq", "epoch").get()
    everything.title = "After the backup: marker 51c3"
    with transaction.atomic():  # each write its own transaction, as requests are
        everything.save()
    get(client, "poc:results", everything)  # kept under the stamp one past the backup's
    assert "marker 51c3" in get(client, "poc:results", everything).content.decode()
    # The restore: the data and the stamp as they were at the backup.
    type(everything).objects.filter(pk=everything.pk).update(title="Restored title")
    StatusStamp.objects.filter(pk=everything.pk).update(**backup)
    everything.refresh_from_db()
    everything.organisation = "After the restore"
    with transaction.atomic():
        everything.save()  # the stamp moves to the number it had before the restore
    assert StatusStamp.objects.get(pk=everything.pk).seq == backup["seq"] + 1
    page = get(client, "poc:results", everything)
    assert not kept(page) and "marker 51c3" not in page.content.decode()
