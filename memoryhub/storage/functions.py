"""SQL functions for ORM expressions whose spelling differs between the stores (each as Django's per-vendor
`as_<vendor>` methods, so the domain builds one expression for both)."""

from __future__ import annotations

from django.db.models import FloatField, Func


class JulianDay(Func):
    """Days since noon UTC, 24 November 4714 BC, as a float: SQLite's `julianday()`, computed from the epoch on
    PostgreSQL. Differences of two give days between moments."""

    function = "julianday"
    output_field = FloatField()

    def as_postgresql(self, compiler, connection, **extra_context):
        template = "(EXTRACT(EPOCH FROM %(expressions)s)::double precision / 86400.0 + 2440587.5)"
        return self.as_sql(compiler, connection, template=template, **extra_context)
