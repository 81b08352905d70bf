"""SQLite, as the embedded default uses it: a request that only reads takes no write lock.

Every request runs in a transaction (ATOMIC_REQUESTS). A transaction that writes begins
IMMEDIATE (settings.SQLITE_OPTIONS): it takes the database's one write lock when it starts, so
two writers never deadlock upgrading a read lock. Begun that way, every page view took the
write lock too, and the web workers served one request at a time, reads included, while a
writer waited behind every reader. A request with a safe method (GET, HEAD, OPTIONS: see
common.middleware.ReadRequestMiddleware) now begins its transaction DEFERRED: it reads one
consistent snapshot (write-ahead logging) beside the other requests and beside a writer.

What such a request may still write is what it keeps for the next reader (a stored row status,
a missing stamp, evaluations/digests.py): each in a savepoint that gives up quietly when the
lock is not to be had, to be stored by a later request. So that it gives up at once rather
than queue for the lock behind a save (SQLite's busy handler sleeps between tries), a reading
transaction waits READING_BUSY_MS at most; the configured timeout is back when it ends. Tasks,
commands and every other method begin IMMEDIATE as before."""

from contextvars import ContextVar

from django_prometheus.db.backends.sqlite3 import base

# True while a request with a safe method is being answered.
READING: ContextVar[bool] = ContextVar("sqlite_reading", default=False)
READING_BUSY_MS = 50


class DatabaseWrapper(base.DatabaseWrapper):  # counted by django-prometheus, as the others
    shortened = False  # whether this connection's busy timeout is the reading one

    def _start_transaction_under_autocommit(self):
        if READING.get():
            self.cursor().execute(f"PRAGMA busy_timeout = {READING_BUSY_MS}")
            self.shortened = True
            self.cursor().execute("BEGIN DEFERRED")
        else:
            super()._start_transaction_under_autocommit()

    def _commit(self):
        try:
            return super()._commit()
        finally:
            self.restore_busy_timeout()

    def _rollback(self):
        try:
            return super()._rollback()
        finally:
            self.restore_busy_timeout()

    def restore_busy_timeout(self) -> None:
        if self.shortened and self.connection is not None:
            timeout = self.settings_dict["OPTIONS"].get("timeout", 5)
            self.connection.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            self.shortened = False
