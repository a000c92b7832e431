"""The team hub: the same store on PostgreSQL (the suite's second pass runs everything else there too).

Both storage implementations offer the same functions; the domain's keyword queries mean the same on both;
a store copied from SQLite to PostgreSQL and back is the store it was; HNSW finds what exact search finds.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import numpy as np
import pytest
from django.db import connection

from memoryhub.storage import interface, postgres, sql, sqlite, stores
from memoryhub.storage.keyword import AllOf, AnyOf, InScope, Term
from memoryhub.storage.postgres import keyword as pg_keyword
from memoryhub.storage.sqlite import keyword as sqlite_keyword
from tests.live_server import REPO, manage, migrated_store, on_postgresql, store_env


def test_both_stores_offer_the_same_functions():
    extra = set(interface.OPTIONAL)  # PostgreSQL ranks under a filter itself (FILTERED_KNN); SQLite does not
    assert set(postgres.__all__) - extra == set(sqlite.__all__)
    for name in sqlite.__all__:
        assert hasattr(postgres, name) and hasattr(sqlite, name), name
    # Each offers exactly the listed names, served from the interface's one list (no globals() rewriting).
    assert set(sqlite.__all__) == {"connection", *interface.NAMES}
    storage = REPO / "memoryhub" / "storage"
    assert not [p for p in storage.rglob("*.py") if "globals()" in p.read_text()]
    assert postgres.FILTERED_KNN is True and sqlite.FILTERED_KNN is False


def test_sql_is_the_implementation_of_the_connection_under_the_interfaces_names():
    implementation = stores.for_connection(connection)
    assert implementation is {"sqlite": sqlite, "postgresql": postgres}[connection.vendor]
    assert sql.VENDOR == implementation.VENDOR == connection.vendor
    assert sql.fts_search is implementation.fts_search and sql.connection is connection
    assert set(dir(sql)) == set(implementation.__all__)
    # Nothing the interface does not list, even where an implementation defines it.
    with pytest.raises(AttributeError):
        sql.queries  # noqa: B018  (a module of each implementation, not a name of the interface)
    assert hasattr(sql, "knn_where") is (implementation is postgres)
    with pytest.raises(LookupError):
        stores.for_connection(type("Other", (), {"vendor": "oracle"})())


def _parameters(function) -> list[tuple[str, object, object, object]]:
    return [(p.name, p.kind, p.default, p.annotation) for p in inspect.signature(function).parameters.values()]


def interface_problems(implementation) -> list[str]:
    """Where a module differs from storage's typed interface: a missing name, another signature, a wrong type."""
    problems = []
    for name, kind in interface.Store.__annotations__.items():
        value = getattr(implementation, name, None)
        expected = kind.split("[")[0]  # annotations are text here (postponed): the outer type's name
        if type(value).__name__ != expected:
            problems.append(f"{name}: {type(value).__name__} where the interface says {kind}")
    for name, declared in vars(interface.Store).items():
        if name.startswith("_") or not callable(declared):
            continue
        offered = getattr(implementation, name, None)
        if offered is None:
            problems.append(f"{name}: missing")
            continue
        wanted = _parameters(declared)[1:]  # without the protocol's `self`
        if _parameters(offered) != wanted:
            problems.append(
                f"{name}{inspect.signature(offered)} where the interface says {inspect.signature(declared)}"
            )
        elif inspect.signature(offered).return_annotation != inspect.signature(declared).return_annotation:
            problems.append(f"{name}: returns {inspect.signature(offered).return_annotation}")
    return problems


def test_both_stores_keep_to_the_typed_interface():
    assert interface_problems(sqlite) == []
    assert interface_problems(postgres) == []
    # The check sees a drift when there is one: a renamed argument, a missing default, an untyped return.
    drifted = type(sys)("drifted")
    vars(drifted).update({name: getattr(sqlite, name) for name in sqlite.__all__})
    drifted.knn = lambda vector, count: []
    drifted.fts_ids = lambda: set()
    drifted.FILTERED_KNN = "no"
    assert sorted(problem.split("(")[0].split(":")[0] for problem in interface_problems(drifted)) == [
        "FILTERED_KNN", "fts_ids", "knn",
    ]  # fmt: skip


_PHRASE = "phraseto_tsquery('memoryhub_english', %s)"
_WORDS = f"m.search_words @@ {_PHRASE}"


@pytest.mark.parametrize(
    "query, sql, params",
    [
        (AnyOf((Term("cursor"), Term("pagination"))), f"m.search_words @@ ({_PHRASE} || {_PHRASE})",
         ["cursor", "pagination"]),
        (Term('say "hi"'), _WORDS, ["say  hi "]),
        (InScope(AllOf((Term("a"), Term("b"))), ("sh", None)),
         f"(({_WORDS}) AND ({_WORDS})) AND ((m.project = %s) OR (m.project IS NULL))", ["a", "b", "sh"]),
        (AnyOf((Term("a"), AllOf((Term("b"), Term("c"))))), f"({_WORDS}) OR (({_WORDS}) AND ({_WORDS}))",
         ["a", "b", "c"]),
        (InScope(None, [None]), "m.project IS NULL", []),
        (InScope(Term("a"), None), _WORDS, ["a"]),
    ],
)  # fmt: skip
def test_keyword_queries_become_parameters_never_syntax(query, sql, params):
    assert pg_keyword.condition(query) == (sql, params)


def test_trigram_terms_are_substrings_with_like_wildcards_escaped():
    sql, params = pg_keyword.condition(AnyOf((Term("50%_off"), Term("getUserId"))), trigram=True)
    assert sql == "(m.content ILIKE %s) OR (m.content ILIKE %s)"
    assert params == ["%50\\%\\_off%", "%getUserId%"]


def test_a_project_of_any_text_is_one_parameter():
    odd = 'a "b" OR c: ünï/‽ NEAR(x)'
    assert pg_keyword.condition(InScope(None, (odd, ""))) == ("(m.project = %s) OR (m.project = %s)", [odd, ""])


@pytest.mark.parametrize("empty", [lambda: AnyOf(()), lambda: AllOf([]), lambda: InScope(None, None),
                                   lambda: InScope(Term("a"), ())])  # fmt: skip
def test_a_query_that_could_match_nothing_is_refused_when_built(empty):
    with pytest.raises(ValueError):
        empty()


def test_neither_store_looks_for_a_scope_in_the_trigram_index():
    with pytest.raises(ValueError):
        pg_keyword.condition(InScope(Term("getUserId"), ["p"]), trigram=True)
    with pytest.raises(ValueError):
        sqlite_keyword.match_expression(InScope(Term("getUserId"), ["p"]), sqlite.TRIGRAM_TABLE)


def _dump(db) -> dict:
    """Every row of every kind, and every vector, as the store's own dump reads them."""
    out = db.parent / f"{db.stem}.jsonl"
    code = f"from pathlib import Path; from memoryhub.memories.transfer import dump_to; dump_to(Path({str(out)!r}))"
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code], cwd=REPO, env=store_env(db), check=True, timeout=300
    )
    records = [json.loads(line) for line in out.read_text().splitlines()]
    return {
        "rows": sorted(
            (r["kind"], json.dumps(r["row"], sort_keys=True)) for r in records if r.get("kind") not in (None, "vector")
        ),
        "vectors": {r["memory_id"]: r["float32"] for r in records if r.get("kind") == "vector"},
        "counts": next(r["counts"] for r in records if "counts" in r),
    }


@pytest.mark.postgresql_only
@pytest.mark.slow
def test_a_store_copied_to_sqlite_and_back_is_the_same_store(store_template, tmp_path):
    source = migrated_store(store_template, tmp_path / "source")
    manage(source, "seed_demo")
    manage(source, "create_token", "agent-one", "--project", "shopfront")
    manage(source, "create_token", "agent-two")
    manage(source, "consolidate")  # proposals, if the demo holds twins
    manage(
        source,
        "shell",
        "-c",
        "from memoryhub.writes.gate import gate_write; "
        "gate_write(content='ok thanks', source='t'); "
        "gate_write(content='The deploy key lives in Vault under ops/deploy', project='shopfront', source='t')",
    )
    file_copy = tmp_path / "copy" / "store.sqlite3"
    file_copy.parent.mkdir()
    manage(source, "copy_store", "--to", str(file_copy))
    back = migrated_store(store_template, tmp_path / "back")
    sqlite_env = {k: v for k, v in store_env(file_copy).items() if k != "MEMORYHUB_DATABASE_URL"}
    result = subprocess.run(
        [sys.executable, "manage.py", "copy_store", "--to", store_env(back)["MEMORYHUB_DATABASE_URL"]],
        cwd=REPO, env=sqlite_env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "copied and checked" in result.stdout

    before, after = _dump(source), _dump(back)
    assert before["counts"]["memoryhub.Memory"] >= 20 and before["counts"]["memoryhub.GateLogEntry"] >= 1
    assert before["counts"]["memoryhub.ApiToken"] == 2 and before["counts"]["memoryhub.MemoryEvent"] >= 20
    assert after["rows"] == before["rows"]
    assert after["vectors"] == before["vectors"]


@pytest.mark.postgresql_only
@pytest.mark.django_db
def test_hnsw_finds_what_exact_search_finds():
    from memoryhub.models import Memory
    from memoryhub.storage import sql

    rng = np.random.default_rng(7)
    centres = rng.normal(size=(40, 384))
    vectors = (centres[rng.integers(0, 40, 3000)] + rng.normal(scale=0.6, size=(3000, 384))).astype(np.float32)
    memories = Memory.objects.bulk_create([Memory(content=f"memory {i}", embed_model="m") for i in range(3000)])
    sql.insert_new_vectors([(m.pk, v) for m, v in zip(memories, vectors, strict=True)])
    ids = [m.pk for m in memories]
    recalls = []
    for query in rng.normal(size=(20, 384)).astype(np.float32) + centres[:20].astype(np.float32):
        approximate = {mid for mid, _ in sql.knn(query, 10)}
        exact = {mid for mid, _ in sql.knn_among(query, 10, ids)}
        recalls.append(len(approximate & exact) / 10)
    assert np.mean(recalls) >= 0.9


def _setting(name: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting(%s)", [name])
        return cursor.fetchone()[0]


@pytest.mark.postgresql_only
@pytest.mark.django_db(transaction=True)
def test_every_vector_search_runs_with_its_hnsw_settings_whatever_a_transaction_did_before():
    """A session keeps the HNSW settings a search sent, so later searches skip sending them; one sent inside a
    transaction lasts or vanishes with it, and the next search outside sends its own again."""
    from django.db import transaction

    from memoryhub.models import Memory

    vector = np.ones(384, dtype=np.float32)
    memory = Memory.objects.create(content="a memory with a vector", embed_model="m")
    sql.insert_new_vectors([(memory.pk, vector)])
    assert sql.knn(vector, 5) == [(memory.pk, pytest.approx(0.0, abs=1e-6))]
    assert (_setting("hnsw.ef_search"), _setting("hnsw.iterative_scan")) == ("200", "relaxed_order")
    with transaction.atomic():
        sql.knn(vector, 300)  # committed: the session now holds 300
    sql.knn(vector, 5)
    assert _setting("hnsw.ef_search") == "200"
    with connection.cursor() as cursor:
        cursor.execute("RESET hnsw.ef_search")  # as a new connection of the pool would start
    with transaction.atomic():
        sql.knn(vector, 5)
        transaction.set_rollback(True)
    assert _setting("hnsw.ef_search") == "40"  # pgvector's own default: the rollback took the setting back
    sql.knn(vector, 5)
    assert _setting("hnsw.ef_search") == "200"


@pytest.mark.postgresql_only
@pytest.mark.django_db(transaction=True)
def test_a_vector_search_beside_runs_on_another_pooled_connection_and_finds_what_this_one_finds():
    from memoryhub.models import Memory

    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(60, 384)).astype(np.float32)
    memories = Memory.objects.bulk_create(
        [Memory(content=f"memory {i}", embed_model="m", project="alpha" if i % 2 else "beta") for i in range(60)]
    )
    sql.insert_new_vectors([(m.pk, v) for m, v in zip(memories, vectors, strict=True)])
    where, params = "m.project = %s AND m.embed_model = %s", ["alpha", "m"]
    own = connection.connection
    beside = sql.knn_where_beside(vectors[1], 10, where, params)
    assert beside == sql.knn_where(vectors[1], 10, where, params)
    assert beside[0] == (memories[1].pk, pytest.approx(0.0, abs=1e-5))
    assert connection.connection is own  # this thread's connection stays its own
    stats = connection.pool.get_stats()
    assert stats["pool_size"] - stats["pool_available"] == 1  # the borrowed one went back at once


@pytest.mark.postgresql_only
@pytest.mark.django_db(transaction=True)
def test_a_vector_search_beside_never_waits_for_a_connection(settings):
    """When every connection of the pool is taken (by searches that may be waiting for this very answer), the
    search beside answers None at once and the caller ranks on its own connection."""
    pool = connection.pool
    taken = []
    try:
        while True:
            try:
                taken.append(pool.getconn(timeout=0.05))
            except Exception:  # noqa: BLE001 - PoolTimeout: the pool is exhausted
                break
        assert sql.knn_where_beside(np.ones(384, dtype=np.float32), 5) is None
    finally:
        for session in taken:
            pool.putconn(session)


@pytest.mark.postgresql_only
@pytest.mark.django_db(transaction=True)
def test_a_hybrid_search_ranks_its_vectors_beside_its_keyword_side_and_inside_a_transaction_on_its_own(
    monkeypatch,
):
    from django.db import transaction

    from memoryhub.memories.store import create_memory
    from memoryhub.retrieval.search import MemoryFilter, search_memories

    for text in ("The billing service retries webhooks five times.", "Deploys go out on Tuesdays.",
                 "The staging database is reset every night."):  # fmt: skip
        create_memory(content=text, project="alpha")
    asked = []
    real = sql.knn_where_beside
    monkeypatch.setattr(sql, "knn_where_beside", lambda *a: asked.append(a) or real(*a), raising=False)
    within = MemoryFilter(visible_from="alpha")
    found = [h.memory.content for h in search_memories(query="when are deploys", within=within, min_score=0)]
    assert len(asked) == 1 and found[0] == "Deploys go out on Tuesdays."
    monkeypatch.setattr(sql, "knn_where_beside", lambda *a: None, raising=False)  # no connection free
    assert [h.memory.content for h in search_memories(query="when are deploys", within=within, min_score=0)] == found
    asked.clear()
    monkeypatch.setattr(sql, "knn_where_beside", lambda *a: asked.append(a) or real(*a), raising=False)
    with transaction.atomic():
        create_memory(content="Deploys are frozen in December.", project="alpha")  # not committed: unseen elsewhere
        inside = [h.memory.content for h in search_memories(query="deploys", within=within, min_score=0)]
    assert not asked and "Deploys are frozen in December." in inside


@pytest.mark.postgresql_only
@pytest.mark.django_db(transaction=True)
def test_bookkeeping_commits_without_waiting_for_the_disk_and_every_other_write_waits():
    from memoryhub.memories.store import bookkeeping_write

    assert sql.synchronous() == "FULL"
    with bookkeeping_write():
        assert _setting("synchronous_commit") == "off"
        assert sql.synchronous() == "NORMAL"
    assert _setting("synchronous_commit") == "on"
    assert sql.synchronous() == "FULL"


@pytest.mark.postgresql_only
@pytest.mark.django_db(transaction=True)
def test_writers_of_one_key_take_turns_across_connections():
    """The advisory lock: a second connection cannot take a key the first holds until the first commits."""
    import psycopg
    from django.db import connection, transaction

    from memoryhub.storage import sql

    settings = connection.settings_dict
    other = psycopg.connect(dbname=settings["NAME"], user=settings["USER"], host=settings["HOST"], autocommit=False)
    try:
        with transaction.atomic():
            sql.serialize_writes("twin-check")
            held = other.execute(
                "SELECT pg_try_advisory_xact_lock(%s, hashtext(%s))", [0x4D48, "twin-check"]
            ).fetchone()[0]
            free = other.execute(
                "SELECT pg_try_advisory_xact_lock(%s, hashtext(%s))", [0x4D48, "another-key"]
            ).fetchone()[0]
        other.rollback()
        after = other.execute("SELECT pg_try_advisory_xact_lock(%s, hashtext(%s))", [0x4D48, "twin-check"]).fetchone()[
            0
        ]
    finally:
        other.close()
    assert (held, free, after) == (False, True, True)


def test_serialize_writes_outside_a_transaction_is_a_mistake_on_postgresql():
    if not on_postgresql():
        from memoryhub.storage import sql

        assert sql.serialize_writes("x") is None  # SQLite: the IMMEDIATE transaction already holds the lock
        return
    from memoryhub.storage import sql

    with pytest.raises(RuntimeError):
        sql.serialize_writes("x")


@pytest.mark.postgresql_only
@pytest.mark.django_db
def test_check_finds_a_missing_vector_and_rebuild_index_writes_it():
    from memoryhub.memories.health import rebuild_index, run_checks
    from memoryhub.memories.store import create_memory
    from memoryhub.storage import sql

    kept = create_memory(content="The staging cluster runs in eu-west-1", project="ops")
    lost = create_memory(content="Nightly backups go to the cold storage bucket", project="ops")
    sql.delete_vectors([lost.pk])
    report = run_checks()
    assert not report.ok and report.vectors_missing == [lost.pk]
    assert report.rows == report.fts == report.trigram  # the word and trigram indexes cannot drift here
    rebuild_index()
    assert run_checks().ok
    assert sql.knn(sql.read_vectors([lost.pk])[lost.pk], 1)[0][0] == lost.pk
    assert kept.pk in sql.vector_ids()


@pytest.mark.postgresql_only
@pytest.mark.django_db
def test_a_backup_is_a_dump_that_loads_and_restore_points_to_the_right_tools(tmp_path, settings):
    from memoryhub.memories.backup import RestoreRefused, backup_database, list_backups, restore_database
    from memoryhub.memories.store import create_memory

    settings.MEMORYHUB_BACKUP_DIR = str(tmp_path)
    create_memory(content="Feature flags live in LaunchDarkly", project="web")
    written = backup_database(reason="manual")
    assert written.suffix == ".jsonl" and list_backups(tmp_path) == [written]
    assert written.stat().st_mode & 0o077 == 0  # every memory is in it: the owner's alone
    records = [json.loads(line) for line in written.read_text().splitlines()]
    assert any(r.get("row", {}).get("content") == "Feature flags live in LaunchDarkly" for r in records)
    assert records[-1]["counts"]["memoryhub.Memory"] == 1 and records[-1]["counts"]["vectors"] == 1
    with pytest.raises(RestoreRefused, match="pg_restore"):
        restore_database(path=written)
