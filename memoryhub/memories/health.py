"""Health of the store on demand: the SQLite file, the FTS5 indexes, rows, keyword entries and vectors in step, and
the supersession chain whole (no superseded memory without a successor; `chain.repair_orphans` brings them back).

`run_checks` only reads; `rebuild_index` repairs the indexes from the memory rows, which are the truth: the
FTS tables are rebuilt from the rows, vectors without a row are removed, rows without a vector are embedded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import DatabaseError, transaction

from memoryhub.embeddings import get_embedder
from memoryhub.memories.chain import orphaned_superseded
from memoryhub.models import Memory
from memoryhub.storage import sql
from memoryhub.storage.backend.driver import DRIVER

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class CheckReport:
    integrity: list[str]
    fts_errors: dict[str, str]
    rows: int
    fts: int
    trigram: int
    vectors: int
    embedded_rows: int
    fts_missing: list[int] = field(default_factory=list)
    fts_orphans: list[int] = field(default_factory=list)
    trigram_missing: list[int] = field(default_factory=list)
    trigram_orphans: list[int] = field(default_factory=list)
    vectors_missing: list[int] = field(default_factory=list)  # a row says it has a vector; there is none
    vector_orphans: list[int] = field(default_factory=list)  # a vector whose row is gone
    awaiting_embedding: list[int] = field(default_factory=list)  # text changed outside the domain: no vector yet
    superseded_orphans: list[int] = field(default_factory=list)  # superseded, but no successor to stand for them

    @property
    def counts_agree(self) -> bool:
        return (
            self.rows == self.fts == self.trigram
            and self.vectors == self.embedded_rows
            and not (
                self.fts_missing
                or self.fts_orphans
                or self.trigram_missing
                or self.trigram_orphans
                or self.vectors_missing
                or self.vector_orphans
            )
        )

    @property
    def ok(self) -> bool:
        return self.integrity == ["ok"] and not self.fts_errors and self.counts_agree and not self.superseded_orphans

    def lines(self) -> list[str]:
        out = [
            "integrity_check: " + ("ok" if self.integrity == ["ok"] else "; ".join(self.integrity[:10])),
        ]
        for table in (sql.FTS_TABLE, sql.TRIGRAM_TABLE):
            out.append(f"fts5 integrity {table}: " + self.fts_errors.get(table, "ok"))
        out.append(
            f"counts: {self.rows} memories, {self.fts} keyword entries, {self.trigram} trigram entries, "
            f"{self.vectors} vectors for {self.embedded_rows} embedded memories"
        )
        for label, ids in (
            ("memories missing from the keyword index", self.fts_missing),
            ("keyword entries without a memory", self.fts_orphans),
            ("memories missing from the trigram index", self.trigram_missing),
            ("trigram entries without a memory", self.trigram_orphans),
            ("memories missing their vector", self.vectors_missing),
            ("vectors without a memory", self.vector_orphans),
        ):
            if ids:
                out.append(f"{label}: {len(ids)} (ids {_sample(ids)})")
        if self.awaiting_embedding:
            out.append(
                f"memories waiting for an embedding (text edited outside the API): {len(self.awaiting_embedding)} "
                f"(ids {_sample(self.awaiting_embedding)})"
            )
        if self.superseded_orphans:
            out.append(
                f"superseded memories without a successor: {len(self.superseded_orphans)} "
                f"(ids {_sample(self.superseded_orphans)}); `.venv/bin/python manage.py check --repair-chains` "
                "restores them"
            )
        if not (self.integrity == ["ok"] and not self.fts_errors and self.counts_agree):
            out.append("run `.venv/bin/python manage.py rebuild_index` to rebuild the indexes from the memory rows")
        return out


def _sample(ids: list[int], limit: int = 10) -> str:
    shown = ", ".join(str(i) for i in ids[:limit])
    return shown + (", ..." if len(ids) > limit else "")


def run_checks(conn=None) -> CheckReport:
    """Check the configured store (or any DB-API connection to a MemoryHub file). Reads only."""
    integrity = sql.integrity_messages(conn)
    fts_errors: dict[str, str] = {}
    for table in (sql.FTS_TABLE, sql.TRIGRAM_TABLE):
        try:
            sql.fts_check_table(table, conn)
        except (DatabaseError, DRIVER.Error) as exc:
            fts_errors[table] = f"FAILED ({exc})"
    ids = sql.index_ids(conn)
    rows, embedded = ids["rows"], ids["embedded_rows"]
    return CheckReport(
        integrity=integrity,
        fts_errors=fts_errors,
        rows=len(rows),
        fts=len(ids["fts"]),
        trigram=len(ids["trigram"]),
        vectors=len(ids["vectors"]),
        embedded_rows=len(embedded),
        fts_missing=sorted(rows - ids["fts"]),
        fts_orphans=sorted(ids["fts"] - rows),
        trigram_missing=sorted(rows - ids["trigram"]),
        trigram_orphans=sorted(ids["trigram"] - rows),
        vectors_missing=sorted(embedded - ids["vectors"]),
        vector_orphans=sorted(ids["vectors"] - rows),
        awaiting_embedding=sorted(rows - embedded),
        # The configured store only (the ORM's): a backup file handed in as `conn` is checked for its indexes.
        superseded_orphans=orphaned_superseded() if conn is None else [],
    )


@dataclass
class RebuildResult:
    keyword_rows: int
    orphans_removed: int
    vectors_written: int


def rebuild_index(*, progress: Progress | None = None, batch_size: int = 64) -> RebuildResult:
    """Rebuild FTS from the rows, drop vectors without a row, embed rows without a vector. Safe while serving:
    each step is its own short transaction, and a row edited while its vector was computed is left alone
    (its own write already stored a fresh vector).
    """
    report = progress or (lambda stage, done, total: None)
    with transaction.atomic():
        sql.fts_rebuild()
    keyword_rows = Memory.objects.count()
    report("keyword index", keyword_rows, keyword_rows)

    ids = sql.index_ids()
    orphans = sorted(ids["vectors"] - ids["rows"])
    if orphans:
        with transaction.atomic():
            sql.delete_vectors(orphans)
    report("orphan vectors removed", len(orphans), len(orphans))

    # Rows with no vector at all, plus rows whose text changed outside the domain (embed_model cleared).
    todo = sorted((ids["rows"] - ids["vectors"]) | (ids["rows"] - ids["embedded_rows"]))
    embedder = get_embedder()
    sql.ensure_vec_table(embedder.dimensions)
    written = 0
    report("vectors", 0, len(todo))
    for start in range(0, len(todo), batch_size):
        batch = dict(Memory.objects.filter(pk__in=todo[start : start + batch_size]).values_list("pk", "content"))
        if batch:
            vectors = embedder.embed(list(batch.values()))
            with transaction.atomic():
                current = dict(Memory.objects.filter(pk__in=list(batch)).values_list("pk", "content"))
                for (memory_id, content), vector in zip(batch.items(), vectors, strict=True):
                    if current.get(memory_id) != content:
                        continue  # deleted or edited meanwhile: its own write took care of its vector
                    sql.write_vector(memory_id, vector)
                    written += 1
                Memory.objects.filter(pk__in=[i for i in batch if current.get(i) == batch[i]]).update(
                    embed_model=embedder.model_id
                )
        report("vectors", min(start + batch_size, len(todo)), len(todo))
    return RebuildResult(keyword_rows=keyword_rows, orphans_removed=len(orphans), vectors_written=written)
