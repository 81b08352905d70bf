"""The embedded SQLite default under concurrent use: many requests writing at once each wait
for their turn instead of failing with "database is locked" (which answered 500 before)."""

import threading

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
