"""Is this PostgreSQL's pgvector usable? Asked before the service trusts the server (serve, migrate, check).

A pgvector binary compiled for a newer CPU than the server's (AVX-512 on a machine without it) loads fine and
crashes the backend with SIGILL the first time it builds an HNSW index; the server then drops every connection and
goes into recovery. Finding that out at the first write means a 500 with no word about the cause, so the probe
does the one thing that crashes, on its own connection, inside a transaction it rolls back: create the extension
if needed, build an HNSW index on a three-row temporary table and search it.
"""

from __future__ import annotations

import psycopg

_CONNECT_SECONDS = 10
_PROBE_STATEMENTS = (
    "CREATE EXTENSION IF NOT EXISTS vector",
    "CREATE TEMP TABLE memoryhub_vector_probe (id integer PRIMARY KEY, embedding vector(3) NOT NULL) ON COMMIT DROP",
    "INSERT INTO memoryhub_vector_probe VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0,0,1]')",
    "CREATE INDEX ON memoryhub_vector_probe USING hnsw (embedding vector_cosine_ops)",
    "SET LOCAL enable_seqscan = off",
)
_PROBE_QUERY = "SELECT id FROM memoryhub_vector_probe ORDER BY embedding <=> '[0.9,0.1,0]' LIMIT 1"
_INSTALL_HINT = "install a pgvector built for this server's CPU (0.5 or newer, with HNSW)"


def vector_extension_problem(conninfo: str = "", **connect_kwargs) -> str | None:
    """None when pgvector builds and searches an HNSW index here, else one line: what is wrong and what to do.
    Takes a URL or psycopg's keyword arguments (Django's connection parameters)."""
    try:
        conn = psycopg.connect(conninfo, connect_timeout=_CONNECT_SECONDS, autocommit=False, **connect_kwargs)
    except psycopg.Error as exc:
        return f"cannot connect to PostgreSQL to check pgvector: {_first_line(exc)}"
    try:
        return _probe(conn)
    finally:
        conn.close()


def _probe(conn: psycopg.Connection) -> str | None:
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
            if cursor.fetchone() is None:
                return f"PostgreSQL has no pgvector (the `vector` extension is not available): {_INSTALL_HINT}"
            for statement in _PROBE_STATEMENTS:
                cursor.execute(statement)
            cursor.execute(_PROBE_QUERY)
            row = cursor.fetchone()
    except psycopg.errors.InsufficientPrivilege as exc:
        return (
            f"the `vector` extension is not created in this database and this role may not create it "
            f"({_first_line(exc)}): ask an administrator to run CREATE EXTENSION vector in it"
        )
    except psycopg.OperationalError as exc:
        # The backend died under us: what a pgvector built for instructions this CPU lacks does (SIGILL).
        return (
            f"PostgreSQL dropped the connection while pgvector built an HNSW index ({_first_line(exc)}): its pgvector "
            f"probably needs CPU instructions this machine lacks (the server log says 'Illegal instruction'); "
            f"{_INSTALL_HINT}"
        )
    except psycopg.Error as exc:
        return f"pgvector cannot build or search an HNSW index here ({_first_line(exc)}): {_INSTALL_HINT}"
    finally:
        if not conn.closed:
            conn.rollback()
    if row is None or row[0] != 1:
        return f"pgvector's HNSW index answered wrongly (nearest of three rows: {row}): {_INSTALL_HINT}"
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
