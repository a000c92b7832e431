"""MEMORYHUB_DATABASE_URL: a PostgreSQL database for a team's shared store, read strictly."""

from __future__ import annotations

from urllib.parse import parse_qs, unquote, urlsplit

from memoryhub.settings.env import SettingError


def postgres_database(url: str, *, timeout: int, pool_size: int) -> dict:
    """Django's DATABASES entry for `postgresql://user:password@host:port/name?host=/socket/dir&sslmode=...`.

    Connections come from psycopg's pool (Django's `pool` option): each waitress thread borrows one per request
    instead of opening its own, so several server processes stay within the server's connection limit."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise SettingError(f"MEMORYHUB_DATABASE_URL must start with postgresql://, not {parts.scheme or url!r}://")
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise SettingError("MEMORYHUB_DATABASE_URL must name a database: postgresql://user@host:5432/memoryhub")
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    try:
        port = parts.port
    except ValueError as exc:
        raise SettingError(f"MEMORYHUB_DATABASE_URL has a bad port: {url!r}") from exc
    options: dict = {
        "pool": {"min_size": 1, "max_size": pool_size, "timeout": timeout},
        # The statement that waits longer than this for a lock (another server's twin check, say) fails.
        "options": f"-c lock_timeout={timeout * 1000}",
    }
    for key in ("sslmode", "sslrootcert", "sslcert", "sslkey", "application_name"):
        if key in query:
            options[key] = query[key]
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": query.get("host") or parts.hostname or "",
        "PORT": str(port or query.get("port") or ""),
        "OPTIONS": options,
        # The pool keeps connections; Django must not close them itself (it refuses CONN_MAX_AGE with a pool).
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": False,
        "TEST": {"NAME": query.get("test_name") or None},
    }
