"""Django's sqlite3 backend, on a driver that can load extensions, with sqlite-vec on every connection.

Django's backend imports `sqlite3` when it is first loaded; when the stdlib cannot load extensions we point
that name at the chosen drop-in module first, so Django's adapters and converters register on the module
that actually opens the connections. Everything else (migrate, the test database, shell) then goes
through `get_new_connection` below.
"""

from __future__ import annotations

import sys

from memoryhub.db.driver import DRIVER, load_vec

if DRIVER.__name__ != "sqlite3":
    sys.modules["sqlite3"] = DRIVER
    sys.modules["sqlite3.dbapi2"] = DRIVER.dbapi2

from django.db.backends.sqlite3 import base as sqlite_base  # noqa: E402


class DatabaseWrapper(sqlite_base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        load_vec(connection)
        return connection
