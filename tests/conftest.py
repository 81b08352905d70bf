"""Shared fixtures. In CI (CI set) a missing service fails the test; elsewhere it skips it.

The suite gives the same answer on any database state an earlier run can leave: the test
database is kept between runs (--reuse-db), tests run in random order (pytest-randomly, the
seed is printed in the header), and a test that commits leaves the seeded state behind it.
"""

import os
import shutil
import threading

import pytest
from django.conf import settings
from django.core.servers.basehttp import ThreadedWSGIServer
from django.db import connection
from django.test.testcases import LiveServerThread
from django.utils import translation
from pytest_django.plugin import blocking_manager_key

from common import roles
from common.seeding import seed_all
from tests.factories import UserFactory, add_member, make_evaluation
from tests.seedstate import STATE as SEEDED

IN_CI = bool(os.environ.get("CI"))


def require_service(name: str, reason: str) -> None:
    """Fail under CI, skip elsewhere: a missing service must never pass silently in CI."""
    message = f"{name} is required: {reason}"
    if IN_CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session", autouse=True)
def _ci_uses_postgresql():
    # The vendor, not the ENGINE: the engine is django-prometheus's wrapper of PostgreSQL's.
    if IN_CI and connection.vendor != "postgresql":
        pytest.fail("CI must run on PostgreSQL: set DATABASE_URL.", pytrace=False)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Every test database starts with all seeded content."""
    with django_db_blocker.unblock():
        seed_all()
        SEEDED.capture()


@pytest.fixture
def seeded(transactional_db):
    """For tests that commit (live server, workers): the seeded content, committed. The
    session's seed and every flush's restore leave it there; this only checks it is."""
    if not SEEDED.is_present():
        SEEDED.restore()


@pytest.hookimpl(trylast=True)  # after pytest-randomly has shuffled them
def pytest_collection_modifyitems(items):
    """The slow tests first (their random order kept), so that in a parallel run each worker
    starts on one while the short ones fill the gaps, instead of the run ending on one of them
    with the other worker idle. Every worker sorts the same collection the same way."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


class OneRequestAtATime(ThreadedWSGIServer):
    """The live server on an in-memory SQLite database: its request threads share the test's
    one connection (Django passes it over), so two requests at once (a browser's htmx post while
    a page loads) would use one transaction from two threads, and the flush that ends the test
    could meet a request still in flight ('database table is locked'). Requests take turns,
    and the flush waits for the one in flight (pytest_runtest_teardown)."""

    turn = threading.Lock()
    WAIT_SECONDS = 60  # a request never waits forever for a flush that waits for it

    def set_app(self, application):
        def one_at_a_time(environ, start_response):
            if not self.turn.acquire(timeout=self.WAIT_SECONDS):
                start_response("503 Service Unavailable", [("Content-Type", "text/plain")])
                return [b"the test server stayed busy"]
            try:
                response = application(environ, start_response)
                try:
                    return [b"".join(response)]  # read inside the turn: it may query too
                finally:
                    if hasattr(response, "close"):
                        response.close()  # request_finished, as the server would send it
            finally:
                self.turn.release()

        super().set_app(one_at_a_time)


if connection.vendor == "sqlite":
    LiveServerThread.server_class = OneRequestAtATime


TRANSACTIONAL_FIXTURES = {"transactional_db", "live_server", "django_db_reset_sequences"}


def _commits(item) -> bool:
    marker = item.get_closest_marker("django_db")
    if marker is not None and (marker.kwargs.get("transaction") or marker.args[:1] == (True,)):
        return True
    return bool(TRANSACTIONAL_FIXTURES & set(getattr(item, "fixturenames", ())))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """A test that commits ends with a flush of every table (Django's TransactionTestCase),
    seeded content and role groups included. Put it back once the flush is done (the rows the
    session's seed left, tests/seedstate.py), so the tests after it, and the next run on the
    same database, find what a fresh database has."""
    waited = _commits(item) and OneRequestAtATime.turn.acquire(timeout=30)
    try:
        yield
    finally:
        if waited:
            OneRequestAtATime.turn.release()
    if _commits(item):
        with item.config.stash[blocking_manager_key].unblock():
            SEEDED.restore()


def _uses_rolled_back_db(request) -> bool:
    if _commits(request.node):
        return False
    return "db" in request.fixturenames or request.node.get_closest_marker("django_db") is not None


def stored_status_mismatches() -> list[str]:
    """Every stored row status that counts as current (evaluations/digests.py) but differs from
    a fresh count of the same evaluation for the same viewer."""
    from django.db.models import F

    from evaluations.digests import RowStatus
    from evaluations.models import StatusDigest
    from evaluations.rows import status_of
    from evaluations.selectors import evaluation_data

    found = []
    current = StatusDigest.objects.filter(seq=F("evaluation__status_stamp__seq"))
    for digest in current.select_related("evaluation", "viewer"):
        data = evaluation_data(digest.evaluation, viewer=digest.viewer)
        stored = RowStatus(digest.answered, digest.total, digest.reminders)
        fresh = status_of(data)
        if stored != fresh:
            found.append(f"{digest.evaluation} for {digest.viewer}: stored {stored}, now {fresh}")
        for language, items in digest.items.items():  # the reminders an overview lists
            with translation.override(language):
                fresh = status_of(data, items=True).items
            if tuple(items) != fresh:
                found.append(f"{digest.evaluation} for {digest.viewer} ({language}): {items}")
    return found


@pytest.fixture(autouse=True)
def _stored_status_stays_current(request):
    """After every test on the database: no list row or status strip would show a stored status
    that a fresh count contradicts. Every write any test makes (pages, API, services, imports,
    factories) is checked this way, so a write path that forgets to move the evaluation's stamp
    fails the test that takes it."""
    if not _uses_rolled_back_db(request):
        yield
        return
    request.getfixturevalue("db")  # torn down after this check
    yield
    if connection.needs_rollback or connection.connection is None:
        return  # the test ended inside a broken transaction: nothing can be read
    mismatches = stored_status_mismatches()
    assert not mismatches, "stored row status out of date:\n" + "\n".join(mismatches)


@pytest.fixture(autouse=True)
def _no_kept_pages():
    """Kept pages (evaluations.pagecache) are filed under an evaluation's id and stamp, which a
    rolled-back test may hand to the next one: every test starts with none."""
    from django.core.cache import caches

    caches["pages"].clear()


@pytest.fixture(autouse=True)
def _matrix_start(request):
    """A new candidate's matrix starts from its type's usual split (responsibility's
    candidate_added receiver). The tests written before that build each matrix from an empty
    grid, so the start is off unless a test is marked `matrix_start`."""
    from evaluations.signals import candidate_added
    from responsibility.services import matrix_start

    if request.node.get_closest_marker("matrix_start"):
        yield
        return
    candidate_added.disconnect(matrix_start, dispatch_uid="responsibility-matrix-start")
    yield
    candidate_added.connect(matrix_start, dispatch_uid="responsibility-matrix-start")


@pytest.fixture(autouse=True)
def _default_language():
    """A request's LocaleMiddleware leaves its language active in the thread: every test starts
    and ends in the default language, whatever the one before it asked for."""
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(scope="session", autouse=True)
def _remove_test_media():
    """Files the tests write go to a throwaway folder (config.settings.test): remove it."""
    yield
    if not os.environ.get("DJANGO_MEDIA_ROOT"):
        shutil.rmtree(settings.MEDIA_ROOT, ignore_errors=True)


@pytest.fixture
def redis_url():
    url = settings.REDIS_URL
    if not url:
        require_service("Redis", "set REDIS_URL")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        require_service("Redis", f"{url} does not answer ({exc})")
    return url


def make_user(role: str | None, **kwargs):
    return UserFactory(roles=[role] if role else [], **kwargs)


@pytest.fixture
def admin_user(db):
    return make_user(roles.ADMIN, username="ada")


@pytest.fixture
def tech_lead(db):
    return make_user(roles.TECH_LEAD, username="tao")


@pytest.fixture
def reviewer(db):
    return make_user(roles.REVIEWER, username="rui")


@pytest.fixture
def procurement(db):
    return make_user(roles.PROCUREMENT, username="pat")


@pytest.fixture
def user_for_role(db):
    def _make(role):
        return make_user(role)

    return _make


# --- evaluations with one member per role ----------------------------------------------------


@pytest.fixture
def owner(db):
    return make_user(roles.TECH_LEAD, username="owner")


@pytest.fixture
def evaluation(owner):
    return make_evaluation(owner)


@pytest.fixture
def people(evaluation, owner):
    """One user per evaluation role, plus a signed-in outsider (a tech lead, not a member)."""
    from evaluations.models import MemberRole

    users = {MemberRole.OWNER: owner}
    for role, global_role in [
        (MemberRole.EDITOR, roles.TECH_LEAD),
        (MemberRole.REVIEWER, roles.REVIEWER),
        (MemberRole.VIEWER, roles.PROCUREMENT),
    ]:
        user = make_user(global_role, username=f"{role}-user")
        add_member(evaluation, user, role)
        users[role] = user
    users["outsider"] = make_user(roles.TECH_LEAD, username="outsider")
    return users


@pytest.fixture
def celery_worker(redis_url):
    """A real Celery worker (in a thread of this process) consuming from Redis."""
    from celery.contrib.testing.worker import start_worker

    from config.celery_app import app

    previous = {k: app.conf[k] for k in ("broker_url", "result_backend", "task_always_eager")}
    app.conf.update(
        broker_url=redis_url,
        result_backend=redis_url,
        task_always_eager=False,
        task_ignore_result=False,
    )
    purge_queued_tasks(redis_url)
    with start_worker(app, perform_ping_check=False, pool="solo", loglevel="WARNING") as worker:
        yield worker
    app.conf.update(previous)


def purge_queued_tasks(redis_url: str) -> int:
    """Drop tasks an earlier run left queued (a test that enqueued and ended, a killed worker):
    run ids restart with a fresh database, so a stale task could act on another test's run."""
    from config.celery_app import app

    with app.connection_for_write(redis_url) as conn:
        return app.control.purge(connection=conn) or 0


# --- the embedded default (make run): SQLite file, filesystem broker, a worker process -------


@pytest.fixture(scope="session")
def embedded_template(tmp_path_factory):
    """A migrated, seeded SQLite database with the demo evaluations, made once per run."""
    from tests.embedded import prepare_database

    folder = tmp_path_factory.mktemp("embedded-template")
    prepare_database(folder)
    return folder


@pytest.fixture
def embedded_site(embedded_template, tmp_path):
    """bin/serve-local (web server + Celery worker) on a copy of that database."""
    from tests.embedded import start_site

    site = start_site(embedded_template, tmp_path / "site")
    yield site
    if site.process.poll() is None:
        site.press_ctrl_c()
    site.kill_leftovers()
