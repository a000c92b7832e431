"""Moving a whole store between databases (`manage.py copy_store`): SQLite to PostgreSQL and back.

The store is written out as one JSON-lines file (`dump_store`) by a process whose database is the source, and read
in (`load_store`) by a process whose database is the target, so each side uses its own storage implementation and
nothing here speaks SQL. Everything a person or an agent made travels: memories with every field, their history,
proposals, the gate log, usage, agent tokens (hashes), dashboard users, and the vectors as stored (no re-embedding).
Sessions and login-attempt records stay behind.

A load fills an empty store in one transaction: it either all arrives or none of it does. It then checks itself:
the count of every kind against the dump, and a sample of memories each found first by a search for its own text.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import numpy as np
from django.contrib.auth import get_user_model
from django.core.management.color import no_style
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, models, transaction

from memoryhub.models import ApiToken, GateLogEntry, Membership, Memory, MemoryEvent, Proposal, UsageRecord, Webhook
from memoryhub.storage import sql
from memoryhub.storage.filters import MemoryFilter

FORMAT = "memoryhub-store/1"
SAMPLE_SEARCHES = 20


def _kinds() -> list[type[models.Model]]:
    """In the order a load creates them (users before tokens is not needed, but memories before what names them)."""
    # Webhooks come along (their cursors name events, whose ids a copy keeps); their delivery log stays behind.
    return [get_user_model(), Membership, ApiToken, Memory, MemoryEvent, Proposal, GateLogEntry, UsageRecord, Webhook]


def _label(model: type[models.Model]) -> str:
    return model._meta.label


class _FullTimeEncoder(DjangoJSONEncoder):
    """Django's encoder cuts times to milliseconds; a copy keeps every microsecond, so it is the same store."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime):
            return o.isoformat()
        return super().default(o)


def _write(out: IO[str], record: dict) -> None:
    out.write(json.dumps(record, cls=_FullTimeEncoder, ensure_ascii=False) + "\n")


def dump_store(out: IO[str]) -> dict[str, int]:
    """Write the store to `out`; returns the count of each kind written (vectors as `vectors`)."""
    counts: dict[str, int] = {}
    _write(out, {"format": FORMAT, "vendor": sql.VENDOR})
    for model in _kinds():
        label = _label(model)
        counts[label] = 0
        for row in model.objects.order_by("pk").values().iterator(chunk_size=2000):
            _write(out, {"kind": label, "row": row})
            counts[label] += 1
    counts["vectors"] = 0
    for dims in sql.existing_vec_dimensions():
        for memory_id, vector, _bits in sql.iter_vectors(dims):
            data = base64.b64encode(np.asarray(vector, dtype=np.float32).tobytes()).decode()
            _write(out, {"kind": "vector", "memory_id": memory_id, "dims": dims, "float32": data})
            counts["vectors"] += 1
    _write(out, {"counts": counts, "sample": _sample()})
    return counts


def _sample() -> list[dict[str, Any]]:
    """Active memories spread over the store, for the searches a load checks itself with."""
    ids = list(Memory.objects.active().order_by("pk").values_list("pk", flat=True))
    step = max(1, len(ids) // SAMPLE_SEARCHES)
    chosen = ids[::step][:SAMPLE_SEARCHES]
    return [{"id": m.pk, "project": m.project} for m in Memory.objects.filter(pk__in=chosen).order_by("pk")]


def _records(lines: IO[str]) -> Iterator[dict]:
    for number, line in enumerate(lines, 1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"line {number} of the dump is not JSON: {exc}") from exc


def _revive(model: type[models.Model], row: dict) -> models.Model:
    values = dict(row)
    for f in model._meta.concrete_fields:
        value = values.get(f.attname)
        if isinstance(f, models.DateTimeField) and isinstance(value, str):
            values[f.attname] = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return model(**values)


@dataclass
class LoadReport:
    counts: dict[str, int] = field(default_factory=dict)
    expected: dict[str, int] = field(default_factory=dict)
    searches: int = 0
    found_first: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def load_store(lines: IO[str], *, search: Callable[..., list], batch: int = 1000) -> LoadReport:
    """Fill this (empty, migrated) store from a dump, in one transaction, then check it against the dump.

    `search` is `retrieval.search.search_memories`, handed in by the caller (this floor does not import search)."""
    records = _records(lines)
    head = next(records, None)
    if not head or head.get("format") != FORMAT:
        raise ValueError(f"not a MemoryHub store dump (expected format {FORMAT})")
    if Memory.objects.exists() or ApiToken.objects.exists():
        raise ValueError("the target store is not empty: copy into a new database (or an empty file)")
    kinds = {_label(m): m for m in _kinds()}
    report = LoadReport()
    tail: dict = {}
    with transaction.atomic():
        if get_user_model().objects.exists():
            get_user_model().objects.all().delete()  # `migrate` on a new store may have made none; the dump's win
        pending: dict[str, list[models.Model]] = {}
        vectors: dict[int, list[tuple[int, np.ndarray]]] = {}

        def flush(label: str) -> None:
            objs = pending.pop(label, [])
            if objs:
                kinds[label].objects.bulk_create(objs, batch_size=batch)
                report.counts[label] = report.counts.get(label, 0) + len(objs)

        def flush_vectors() -> None:
            for pairs in vectors.values():
                sql.insert_new_vectors(pairs)
                report.counts["vectors"] = report.counts.get("vectors", 0) + len(pairs)
            vectors.clear()

        for record in records:
            kind = record.get("kind")
            if kind in kinds:
                pending.setdefault(kind, []).append(_revive(kinds[kind], record["row"]))
                if len(pending[kind]) >= batch:
                    flush(kind)
            elif kind == "vector":
                vector = np.frombuffer(base64.b64decode(record["float32"]), dtype=np.float32)
                vectors.setdefault(int(record["dims"]), []).append((int(record["memory_id"]), vector))
                if sum(len(v) for v in vectors.values()) >= batch:
                    for label in list(pending):
                        flush(label)
                    flush_vectors()
            elif "counts" in record:
                tail = record
        for label in list(pending):
            flush(label)
        flush_vectors()
        _reset_sequences(list(kinds.values()))
    report.expected = dict(tail.get("counts", {}))
    for label, expected in report.expected.items():
        if report.counts.get(label, 0) != expected:
            report.problems.append(f"{label}: {report.counts.get(label, 0)} loaded, {expected} in the dump")
    if not tail:
        report.problems.append("the dump ends early: no closing counts (was it cut short?)")
    _check_searches(report, tail.get("sample", []), search)
    return report


def _reset_sequences(kinds: list[type[models.Model]]) -> None:
    """Rows came with their ids: the next id the database hands out must come after them (PostgreSQL's sequences
    do not follow explicit ids; SQLite's AUTOINCREMENT does, and has nothing to reset)."""
    statements = connection.ops.sequence_reset_sql(no_style(), kinds)
    if statements:
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)


def _check_searches(report: LoadReport, sample: list[dict], search_memories: Callable[..., list]) -> None:
    for item in sample:
        memory = Memory.objects.filter(pk=item["id"]).first()
        if memory is None:
            report.problems.append(f"memory #{item['id']} of the sample is missing")
            continue
        report.searches += 1
        hits = search_memories(
            query=memory.content, within=MemoryFilter(visible_from=memory.project), k=5, min_score=0.0
        )
        texts = {h.memory.pk: h.memory.content for h in hits}
        top = hits[0].memory if hits else None
        if top is not None and (top.pk == memory.pk or texts.get(top.pk) == memory.content):
            report.found_first += 1
        else:
            report.problems.append(f"a search for memory #{memory.pk}'s own text did not find it first")


def dump_to(path: Path) -> dict[str, int]:
    with open(path, "w", encoding="utf-8") as out:
        return dump_store(out)


def load_from(path: Path, *, search: Callable[..., list]) -> LoadReport:
    with open(path, encoding="utf-8") as lines:
        return load_store(lines, search=search)
