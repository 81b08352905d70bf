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
lock is not to be had, to be stored by a later request. Tasks, commands and every other method
begin IMMEDIATE as before."""

from contextvars import ContextVar

from django_prometheus.db.backends.sqlite3 import base

# True while a request with a safe method is being answered.
READING: ContextVar[bool] = ContextVar("sqlite_reading", default=False)


class DatabaseWrapper(base.DatabaseWrapper):  # counted by django-prometheus, as the others
    def _start_transaction_under_autocommit(self):
        if READING.get():
            self.cursor().execute("BEGIN DEFERRED")
        else:
            super()._start_transaction_under_autocommit()
