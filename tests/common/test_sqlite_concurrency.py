"""The embedded SQLite default under concurrent use: many requests writing at once each wait
for their turn instead of failing with "database is locked" (which answered 500 before)."""

import threading

import pytest
from django.conf import settings
from django.db import connections, transaction
from django.db.backends.sqlite3.base import DatabaseWrapper


def connect(path, options):
    wrapper = DatabaseWrapper(
        {
            **settings.DATABASES["default"],
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(path),
            "OPTIONS": options,
            "ATOMIC_REQUESTS": True,
            "AUTOCOMMIT": True,
            "CONN_MAX_AGE": 0,
            "CONN_HEALTH_CHECKS": False,
            "TIME_ZONE": None,
            "TEST": {},
        },
        alias=f"concurrency-{id(options)}-{threading.get_ident()}",
    )
    return wrapper


def hammer(path, options, writers=12, rounds=5) -> list[str]:
    """`writers` threads each read then write the same row `rounds` times, in transactions as
    requests do (ATOMIC_REQUESTS); returns the errors they met."""
    setup = connect(path, options)
    with setup.cursor() as c:
        c.execute("CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY, n INTEGER)")
        c.execute("INSERT OR REPLACE INTO counter VALUES (1, 0)")
    setup.close()
    errors: list[str] = []
    start = threading.Barrier(writers)

    def work():
        conn = connect(path, options)
        connections[conn.alias] = conn  # this thread's; Django's own atomic() runs on it
        start.wait()
        try:
            for _ in range(rounds):
                with transaction.atomic(using=conn.alias), conn.cursor() as c:
                    c.execute("SELECT n FROM counter WHERE id = 1")
                    (n,) = c.fetchone()
                    c.execute("UPDATE counter SET n = %s WHERE id = 1", [n + 1])
        except Exception as exc:  # noqa: BLE001 - collected and asserted on
            errors.append(str(exc))
        finally:
            conn.close()

    threads = [threading.Thread(target=work) for _ in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_concurrent_writers_all_succeed_with_the_configured_options(tmp_path, django_db_blocker):
    with django_db_blocker.unblock():
        errors = hammer(tmp_path / "shortlist.sqlite3", settings.SQLITE_OPTIONS)
    assert errors == []


def test_without_them_the_same_load_fails(tmp_path, django_db_blocker):
    with django_db_blocker.unblock():
        errors = hammer(tmp_path / "plain.sqlite3", {"timeout": 0.05})
    assert any("locked" in e for e in errors)


def reader_and_writer(path, *, reading: bool) -> dict:
    """A request's transaction that reads, holds while another request writes, and reads again:
    what the writer met and what the reader saw the second time."""
    from common.sqlite3.base import READING
    from common.sqlite3.base import DatabaseWrapper as ProjectWrapper

    def project(alias):
        return ProjectWrapper(
            {**connect(path, {}).settings_dict, "OPTIONS": settings.SQLITE_OPTIONS}, alias=alias
        )

    setup = project("setup")
    with setup.cursor() as c:
        c.execute("CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY, n INTEGER)")
        c.execute("INSERT OR REPLACE INTO counter VALUES (1, 0)")
    setup.close()
    read_once, written = threading.Event(), threading.Event()
    seen: dict = {}

    def reader():
        conn = project(f"reader-{threading.get_ident()}")
        connections[conn.alias] = conn
        token = READING.set(reading)
        try:
            with transaction.atomic(using=conn.alias), conn.cursor() as c:
                c.execute("SELECT n FROM counter WHERE id = 1")
                read_once.set()
                written.wait(timeout=3)
                c.execute("SELECT n FROM counter WHERE id = 1")
                seen["reader"] = c.fetchone()[0]
        finally:
            READING.reset(token)
            conn.close()

    def writer():
        read_once.wait(timeout=3)
        conn = project(f"writer-{threading.get_ident()}")
        conn.settings_dict["OPTIONS"] = {**settings.SQLITE_OPTIONS, "timeout": 0.3}
        connections[conn.alias] = conn
        try:
            with transaction.atomic(using=conn.alias), conn.cursor() as c:
                c.execute("UPDATE counter SET n = n + 1 WHERE id = 1")
            seen["writer"] = "saved"
        except Exception as exc:  # noqa: BLE001 - reported
            seen["writer"] = str(exc)
        finally:
            written.set()
            conn.close()

    threads = [threading.Thread(target=reader), threading.Thread(target=writer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return seen


def test_a_reading_request_lets_a_writer_through_and_keeps_its_snapshot(
    tmp_path, django_db_blocker
):
    """A GET's transaction begins deferred (common/sqlite3/base.py): a save goes through while
    the page is being read, and the page reads one consistent state throughout."""
    with django_db_blocker.unblock():
        seen = reader_and_writer(tmp_path / "read.sqlite3", reading=True)
    assert seen == {"writer": "saved", "reader": 0}


def test_a_request_that_writes_still_takes_the_lock_first(tmp_path, django_db_blocker):
    """Any other request begins IMMEDIATE, as before: holding the lock, it keeps a writer out."""
    with django_db_blocker.unblock():
        seen = reader_and_writer(tmp_path / "write.sqlite3", reading=False)
    assert "locked" in seen["writer"] and seen["reader"] == 0


def test_only_requests_with_a_safe_method_are_marked_as_reading(rf):
    from common.middleware import ReadRequestMiddleware
    from common.sqlite3.base import READING

    marks = {}

    def view(request):
        marks[request.method] = READING.get()
        return None

    middleware = ReadRequestMiddleware(view)
    for method in ("get", "head", "options", "post", "put", "patch", "delete"):
        middleware(getattr(rf, method)("/"))
    assert marks == {
        "GET": True,
        "HEAD": True,
        "OPTIONS": True,
        "POST": False,
        "PUT": False,
        "PATCH": False,
        "DELETE": False,
    }
    assert READING.get() is False  # and nothing is left marked after the request


def test_a_reading_request_gives_up_a_write_at_once_and_waits_again_afterwards(
    tmp_path, django_db_blocker
):
    """What a reading request stores for later (a row status) is skipped rather than queued
    behind a save holding the lock; the connection's full busy timeout is back when it ends."""
    import time

    from common.sqlite3.base import READING
    from common.sqlite3.base import DatabaseWrapper as ProjectWrapper

    path = tmp_path / "busy.sqlite3"
    with django_db_blocker.unblock():
        writer = ProjectWrapper(
            {**connect(path, {}).settings_dict, "OPTIONS": settings.SQLITE_OPTIONS}, alias="w"
        )
        reader = ProjectWrapper(
            {**connect(path, {}).settings_dict, "OPTIONS": settings.SQLITE_OPTIONS}, alias="r"
        )
        connections["w"], connections["r"] = writer, reader
        with writer.cursor() as c:
            c.execute("CREATE TABLE t (n INTEGER)")
        token = READING.set(True)
        try:
            with transaction.atomic(using="w"), writer.cursor() as w:
                w.execute("INSERT INTO t VALUES (1)")  # holds the write lock meanwhile
                start = time.monotonic()
                with (
                    pytest.raises(Exception, match="locked"),
                    transaction.atomic(using="r"),
                    reader.cursor() as r,
                ):
                    r.execute("SELECT count(*) FROM t")
                    r.execute("INSERT INTO t VALUES (2)")
                assert time.monotonic() - start < 2  # not the 20 s timeout
        finally:
            READING.reset(token)
        with reader.cursor() as r:
            r.execute("PRAGMA busy_timeout")
            assert r.fetchone()[0] == settings.SQLITE_OPTIONS["timeout"] * 1000
        writer.close()
        reader.close()
