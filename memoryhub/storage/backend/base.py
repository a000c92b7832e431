"""Django's sqlite3 backend, on a driver that can load extensions, with sqlite-vec on every connection.

Django's backend imports `sqlite3` when it is first loaded; when the stdlib cannot load extensions we point
that name at the chosen drop-in module first, so Django's adapters and converters register on the module
that actually opens the connections. Everything else (migrate, the test database, shell) then goes
through `get_new_connection` below.

Writers of one process queue on a Python lock before SQLite's: SQLite's busy handler polls with sleeps that
grow to 100 ms, so with several server threads a waiting writer could sleep for seconds after the lock came
free (measured: p95 450 ms, max 3 s for two tiny writes under 8 threads). The Python lock wakes the next
writer at once. Other processes (a management command beside the server) still meet `busy_timeout`.
"""

from __future__ import annotations

import sys

from memoryhub import runtime
from memoryhub.storage.backend.driver import DRIVER, load_vec, owner_only

if DRIVER.__name__ != "sqlite3":
    sys.modules["sqlite3"] = DRIVER
    sys.modules["sqlite3.dbapi2"] = DRIVER.dbapi2

from django.db.backends.sqlite3 import base as sqlite_base  # noqa: E402

_WRITE_LOCK = runtime.lock("sqlite writer slot")
_WRITE_VERBS = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def _acquire(timeout: float) -> None:
    if not _WRITE_LOCK.acquire(timeout=timeout):
        # What SQLite itself would have said after its busy timeout.
        raise DRIVER.OperationalError("database is locked")


class DatabaseWrapper(sqlite_base.DatabaseWrapper):
    _holds_write_lock = False

    def get_new_connection(self, conn_params):
        owner_only(conn_params.get("database"))
        connection = super().get_new_connection(conn_params)
        load_vec(connection)
        # Deleted rows (a scrubbed secret, a forgotten memory) are overwritten with zeros, not left in free pages.
        connection.execute("PRAGMA secure_delete=ON")
        return connection

    def create_cursor(self, name=None):
        cursor = self.connection.cursor(factory=SerializedWritesCursor)
        cursor.lock_timeout = self._lock_timeout()
        cursor.serialize = self._serializes()
        return cursor

    def _serializes(self) -> bool:
        # The in-memory test database has its own (shared-cache) locking; leave it as it is.
        return not self.is_in_memory_db()

    def _lock_timeout(self) -> float:
        return float(self.settings_dict.get("OPTIONS", {}).get("timeout", 5))

    def _start_transaction_under_autocommit(self):
        # Every atomic() block begins here (BEGIN IMMEDIATE): take this process's writer slot first.
        if self._serializes() and not self._holds_write_lock:
            _acquire(self._lock_timeout())
            self._holds_write_lock = True
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._release_write_lock()
            raise

    def _release_write_lock(self) -> None:
        if self._holds_write_lock:
            self._holds_write_lock = False
            _WRITE_LOCK.release()

    def _commit(self):
        try:
            return super()._commit()
        finally:
            self._release_write_lock()

    def _rollback(self):
        try:
            return super()._rollback()
        finally:
            self._release_write_lock()

    def _close(self):
        try:
            return super()._close()
        finally:
            self._release_write_lock()

    def _set_autocommit(self, autocommit):
        super()._set_autocommit(autocommit)
        if autocommit:
            self._release_write_lock()


class SerializedWritesCursor(sqlite_base.SQLiteCursorWrapper):
    """A write outside atomic() (autocommit: Model.objects.create(), QuerySet.update()) takes the slot too."""

    lock_timeout = 5.0
    serialize = True

    def _needs_lock(self, query: str) -> bool:
        return (
            self.serialize
            and not self.connection.in_transaction
            and query.lstrip()[:7].upper().startswith(_WRITE_VERBS)
        )

    def execute(self, query, params=None):
        if not self._needs_lock(query):
            return super().execute(query, params)
        _acquire(self.lock_timeout)
        try:
            return super().execute(query, params)
        finally:
            _WRITE_LOCK.release()

    def executemany(self, query, param_list):
        if not self._needs_lock(query):
            return super().executemany(query, param_list)
        _acquire(self.lock_timeout)
        try:
            return super().executemany(query, param_list)
        finally:
            _WRITE_LOCK.release()
