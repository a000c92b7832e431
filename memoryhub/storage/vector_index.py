"""Quantized vector search for large stores: the vectors' bits in a process-local numpy copy, rescored exactly.

Why not vec0's own KNN at 100k rows: its top-k selection costs O(rows x k) (k=200 candidates takes ~50 ms on
this 2-core machine) and a point lookup of one float vector walks its 1.5 MB chunk blob (~0.5 ms each), so a
"bit[] first pass, float rescore of a few hundred" cannot fit in 40 ms there. The vectors stay in vec0 (the
store of record, written by the domain in the row's transaction); this module mirrors them per process as
1-bit codes (the `embedding_bits` vec0 computed) plus float32 copies of the vectors, beside each row's scope
(project, status, model), and answers: the rows the search may see picked by mask, Hamming distance over
those (numpy popcount, ~1 ms per 100k), the best few thousand rescored exactly (recall@10 against exact float
KNN 0.999 on 10k MiniLM vectors). float32, not float16: converting the candidates cost 2-3 ms a search, more
than the 75 MB per 100k vectors it saved. 100k vectors take ~160 MB per process.

Freshness by position: migration 0004's change log names every memory row whose text, project, status, model
or vector changed, in commit order (triggers on the memory table, and the functions writing vec0 rows). The
copy remembers the last entry it applied; before each search one indexed statement reads the store's
generation and the log's head, and only the rows named after the copy's position are read again (a row
deleted, moved or archived is masked or re-masked at once, a new one appended). Nothing depends on a clock
or on which connection asks. The copy rebuilds when its position no longer exists as it saw it: another
generation (a restore or `reembed --all`, in any process), its entry pruned from the log, or its entry's
random tag changed (it had applied a transaction that was then rolled back, and the seq was handed out again).
On PostgreSQL writers run side by side, so an entry can commit after one with a higher seq: the copy keeps each seq
below its position it has not seen (a gap) with the next transaction id as it read the log, and reads the gaps
again until the oldest transaction still running is past that id. It is refreshed only outside a transaction there
(search.py): inside one, its own uncommitted rows would reach every thread's copy.

Size: above COPY_INT8_ABOVE vectors the rescoring copy holds int8 codes (each row scaled by
its largest component) instead of float32: 384 MB instead of 1.5 GB per million vectors, and a cosine off by
less than 0.005. Arrays grow by half again when full, so appending a batch of new rows costs that batch, not a
copy of the store.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memoryhub import runtime
from memoryhub.storage import sql
from memoryhub.storage.portable import LogPosition
from memoryhub.storage.resets import on_store_replaced

# The copy's limits, measured with `bench_search` (docs/search.md); constants, not settings (the rest of search's
# tuning is in memoryhub/retrieval/tuning.py, which this floor cannot read). Read through the module
# (`vector_index.EXACT_KNN_MAX`), so a test may lower one.
# Up to this many vectors vec0's exact KNN answers in about a millisecond; above, the copy ranked on the embedding
# thread is faster than vec0 on the caller's.
EXACT_KNN_MAX = 1000
# Most rows the Hamming pass hands to exact rescoring: what the 1-bit codes misorder grows with the rows, and 2000
# keeps recall@10 against exact search at 0.995 on 100k vectors.
QUANTIZED_RESCORE = 2000
# Above this many vectors the copy keeps int8 codes: float32 would pass 300 MB per process, and int8 is a quarter
# of that for a cosine off by less than 0.005.
COPY_INT8_ABOVE = 200_000

_lock = runtime.lock("vector copy")


@dataclass
class _Copy:
    dims: int
    int8: bool = False
    size: int = 0  # rows in use; the arrays below have room for more
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # ascending
    bits: np.ndarray = field(default_factory=lambda: np.zeros((0, 6), dtype=np.uint64))  # [n, dims / 64]
    codes: np.ndarray = field(default_factory=lambda: np.zeros((0, 384), dtype=np.float32))  # float32 or int8
    scales: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))  # int8 code -> value
    projects: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))  # 0: global
    statuses: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))  # -1: not searchable
    project_codes: dict[str, int] = field(default_factory=dict)
    status_codes: dict[str, int] = field(default_factory=dict)
    ready: bool = False
    generation: str = ""
    seq: int = 0  # the last change log entry applied
    tag: int | None = None  # that entry's tag
    # PostgreSQL: seqs below the position not seen yet (a transaction holding one may still commit), each with the
    # next transaction to start when the gap was seen: once the oldest still running is past it, the gap is read
    # once more and let go (`_settle`).
    gaps: dict[int, int] = field(default_factory=dict)
    dead: int = 0  # rows masked because their vector or row is gone (a rebuild drops them)

    def allocate(self, capacity: int) -> None:
        """Room for `capacity` rows, keeping the rows in use."""
        old = (self.ids, self.bits, self.codes, self.scales, self.projects, self.statuses)
        self.ids = np.zeros(capacity, dtype=np.int64)
        self.bits = np.zeros((capacity, self.dims // 64), dtype=np.uint64)
        self.codes = np.zeros((capacity, self.dims), dtype=np.int8 if self.int8 else np.float32)
        self.scales = np.ones(capacity, dtype=np.float32)
        self.projects = np.zeros(capacity, dtype=np.int32)
        self.statuses = np.full(capacity, -1, dtype=np.int8)
        n = min(self.size, capacity)
        for new, previous in zip(
            (self.ids, self.bits, self.codes, self.scales, self.projects, self.statuses), old, strict=True
        ):
            if len(previous) and n:
                new[:n] = previous[:n]

    def room(self, extra: int) -> None:
        if self.size + extra > len(self.ids):
            self.allocate(max(self.size + extra, int(len(self.ids) * 1.5) + 1024))

    def put(self, at: slice | np.ndarray, vectors: np.ndarray, bits: np.ndarray) -> None:
        self.bits[at] = bits
        if not self.int8:
            self.codes[at] = vectors
            return
        # Each row scaled so its largest component is 127: a cosine error well under 0.005 for unit vectors.
        peak = np.maximum(np.abs(vectors).max(axis=1), 1e-12)
        self.codes[at] = np.rint(vectors * (127.0 / peak)[:, None]).astype(np.int8)
        self.scales[at] = peak / 127.0

    def scope(self, project: str | None, status: str, embed_model: str, model_id: str) -> tuple[int, int]:
        project_code = 0 if project is None else _code(self.project_codes, project, 1)
        return project_code, _code(self.status_codes, status, 0) if embed_model == model_id else -1


_copies: dict[tuple[str, str, int], _Copy] = {}


def _dot(codes: np.ndarray, vector: np.ndarray) -> np.ndarray:
    # einsum, not `@`: a matrix-vector product goes to BLAS, whose threads fight over 2 busy cores (13 ms
    # instead of 0.5 ms for 2000 rows measured here); numpy's own loop is fast enough at this size.
    return np.einsum("ij,j->i", codes, vector)


def binary_code(vector: np.ndarray) -> bytes:
    """The vector's bits exactly as vec0's vec_quantize_binary makes them: set for a positive value, lowest first."""
    return np.packbits(np.asarray(vector) > 0, bitorder="little").tobytes()


def _code(codes: dict[str, int], value: str, first: int) -> int:
    return codes.setdefault(value, first + len(codes))


def _rows(batch: list[tuple[int, np.ndarray, bytes]], dims: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids = np.array([r[0] for r in batch], dtype=np.int64)
    vectors = np.vstack([r[1] for r in batch]).astype(np.float32, copy=False)
    bits = np.frombuffer(b"".join(r[2] for r in batch), dtype=np.uint64).reshape(len(batch), dims // 64)
    return ids, vectors, bits


def _rebuild(copy: _Copy, model_id: str) -> None:
    """Every vector read again, a few thousand at a time (the float vectors are never all in memory at once)."""
    position = sql.change_position(copy.seq)
    generation, high = (position.generation, position.high) if position else ("", 0)
    position = sql.change_position(high)  # the tag of the head entry: the copy's position from now on
    # Before the vectors are read: a transaction that took a seq below the head and commits while they are read
    # is read again once it has ended.
    copy.gaps = _gaps(position, position.low, high) if position else {}
    if position:
        _settle(copy, position, set())
    count = sql.count_vectors(copy.dims)
    copy.int8 = count > COPY_INT8_ABOVE
    copy.size, copy.dead = 0, 0
    copy.project_codes, copy.status_codes = {}, {}
    for name in ("ids", "bits", "codes", "scales", "projects", "statuses"):
        setattr(copy, name, getattr(copy, name)[:0].copy())  # let the old arrays go before the new ones are filled
    copy.allocate(count + count // 20 + 1024)
    batch: list = []
    for row in sql.iter_vectors(copy.dims):
        batch.append(row)
        if len(batch) == 5000:
            _append(copy, *_rows(batch, copy.dims))
            batch = []
    if batch:
        _append(copy, *_rows(batch, copy.dims))
    n = copy.size
    if n and np.any(np.diff(copy.ids[:n]) <= 0):
        order = np.argsort(copy.ids[:n], kind="stable")
        for array in (copy.ids, copy.bits, copy.codes, copy.scales):
            array[:n] = array[:n][order]
    copy.statuses[:n] = -1
    for chunk in _chunks(sql.memory_scopes(None), 5000):
        ids = np.array([r[0] for r in chunk], dtype=np.int64)
        at = np.searchsorted(copy.ids[:n], ids)
        inside = at < n
        inside[inside] = copy.ids[at[inside]] == ids[inside]
        for i in np.flatnonzero(inside):
            _, project, status, embed_model = chunk[i]
            copy.projects[at[i]], copy.statuses[at[i]] = copy.scope(project, status, embed_model, model_id)
    copy.generation = generation if position is None else position.generation
    copy.seq, copy.tag = (high, position.tag) if position else (0, None)
    copy.ready = position is not None


def _gaps(position: LogPosition, low: int, high: int, seen: set[int] | None = None) -> dict[int, int]:
    """The seqs from `low` to `high` the log does not show (yet), each with the next transaction to start as
    `position` saw it; none where the log is written in commit order."""
    if position.horizon is None or high < low:
        return {}
    seen = set(sql.logged_seqs(low, high)) if seen is None else seen
    return {seq: position.horizon[1] for seq in range(low, high + 1) if seq not in seen}


def _settle(copy: _Copy, position: LogPosition, seen: set[int]) -> None:
    """Gaps now filled are applied (by the caller); gaps whose transactions had all ended when `position` was read
    (before `seen` was) are let go: the seq was rolled back, or was never used."""
    oldest = position.horizon[0] if position.horizon else None
    for seq, started_before in list(copy.gaps.items()):
        if seq in seen or oldest is None or oldest >= started_before:
            del copy.gaps[seq]


def _chunks(rows, size: int):
    chunk = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _append(copy: _Copy, ids: np.ndarray, vectors: np.ndarray, bits: np.ndarray) -> None:
    copy.room(len(ids))
    at = slice(copy.size, copy.size + len(ids))
    copy.ids[at] = ids
    copy.put(at, vectors, bits)
    copy.projects[at], copy.statuses[at] = 0, -1
    copy.size += len(ids)


def _apply(copy: _Copy, memory_ids: list[int], model_id: str) -> None:
    """Read these rows again: update the ones the copy has, mask the ones gone, add the new ones."""
    scopes = {int(r[0]): r[1:] for r in sql.memory_scopes(memory_ids)}
    found = [r for r in sql.iter_vectors(copy.dims, memory_ids) if r[0] in scopes]
    live = {r[0] for r in found}
    n = copy.size
    wanted = np.asarray(memory_ids, dtype=np.int64)
    at = np.searchsorted(copy.ids[:n], wanted)
    known = at < n
    known[known] = copy.ids[at[known]] == wanted[known]
    for i in np.flatnonzero(known):
        if int(wanted[i]) not in live and copy.statuses[at[i]] >= 0:
            copy.statuses[at[i]] = -1  # deleted, or its vector is gone: it leaves the copy's answers now
            copy.dead += 1
    if not found:
        return
    ids, vectors, bits = _rows(found, copy.dims)
    at = np.searchsorted(copy.ids[:n], ids)
    known = at < n
    known[known] = copy.ids[at[known]] == ids[known]
    if known.any():
        copy.put(at[known], vectors[known], bits[known])
    fresh = ~known
    if fresh.any():
        # New rows have the highest ids: appended in place. An older id coming back (a vector written again
        # for a row that had none) is appended too, then the rows are put back in order.
        _append(copy, ids[fresh], vectors[fresh], bits[fresh])
        n = copy.size
        if np.any(np.diff(copy.ids[:n]) <= 0):
            order = np.argsort(copy.ids[:n], kind="stable")
            for name in ("ids", "bits", "codes", "scales", "projects", "statuses"):
                array = getattr(copy, name)
                reordered = array.copy()  # new arrays: views handed out earlier keep the old order intact
                reordered[:n] = array[:n][order]
                setattr(copy, name, reordered)
    n = copy.size
    at = np.searchsorted(copy.ids[:n], ids)
    for i, mid in enumerate(ids.tolist()):
        project, status, embed_model = scopes[mid]
        copy.projects[at[i]], copy.statuses[at[i]] = copy.scope(project, status, embed_model, model_id)


def _refresh(copy: _Copy, model_id: str) -> None:
    position = sql.change_position(copy.seq)
    if position is None or not copy.ready:
        _rebuild(copy, model_id)  # no log (a store not yet migrated): every search rebuilds, slow but right
        return
    high, low = position.high, position.low
    moved = position.generation != copy.generation or position.tag != copy.tag or low > copy.seq + 1
    if moved or high < copy.seq or copy.dead > max(1000, copy.size // 4):
        _rebuild(copy, model_id)
        return
    if high == copy.seq and not copy.gaps:
        return
    entries = sql.changed_entries(copy.seq, high, also=list(copy.gaps))
    if len(entries) > max(50_000, copy.size // 2):
        _rebuild(copy, model_id)
        return
    seen = {seq for seq, _, _ in entries}
    copy.gaps |= _gaps(position, copy.seq + 1, high, seen)
    _settle(copy, position, seen)
    _apply(copy, sorted({mid for _, mid, _ in entries}), model_id)
    if high != copy.seq:
        copy.seq, copy.tag = high, next((tag for seq, _, tag in entries if seq == high), None)


@dataclass(frozen=True)
class View:
    """The copy as it was at one moment. Updates replace the arrays (or rewrite a few rows in place), so a
    view stays consistent while another thread refreshes the copy, and it needs no database: a search ranks
    on it from the thread that embeds its query."""

    ids: np.ndarray
    bits: np.ndarray
    codes: np.ndarray
    scales: np.ndarray | None  # int8 codes: their scale per row; None for float32
    projects: np.ndarray
    statuses: np.ndarray
    project_codes: dict[str, int]
    status_codes: dict[str, int]

    def visible(self, projects: list[str | None] | None, status: str | tuple[str, ...] | None) -> np.ndarray:
        """Mask of the rows a search may see: the active model's, in these projects (None: any), this status (or
        any of these statuses)."""
        if status is None:
            mask = self.statuses >= 0
        elif not isinstance(status, str):
            mask = np.zeros(len(self.statuses), dtype=bool)
            for one in status:
                code = self.status_codes.get(one)
                if code is not None:
                    mask |= self.statuses == code
        else:
            code = self.status_codes.get(status)
            mask = self.statuses == (-2 if code is None else code)
        if projects is not None:
            seen = np.zeros(len(mask), dtype=bool)
            for code in {0 if p is None else self.project_codes.get(p, -1) for p in projects} - {-1}:
                seen |= self.projects == code
            mask &= seen
        return mask

    def _similarity(self, rows: np.ndarray, vector: np.ndarray) -> np.ndarray:
        if self.scales is None:
            return _dot(self.codes[rows], vector)
        return _dot(self.codes[rows].astype(np.float32), vector) * self.scales[rows]

    def nearest(
        self,
        vector: np.ndarray,
        candidates: int,
        *,
        projects: list[str | None] | None = None,
        status: str | tuple[str, ...] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(memory ids, cosine distances) of about the `candidates` nearest rows, nearest first, among the rows in
        these projects (None: every project; None inside the list: the globals) with this status (None: any)."""
        vector = np.asarray(vector, dtype=np.float32)
        rows = np.flatnonzero(self.visible(projects, status))
        # Rescored exactly: 2% of the rows the Hamming pass ranks (what the 1-bit codes misorder grows with the
        # rows), between half of QUANTIZED_RESCORE and all of it.
        rescore = QUANTIZED_RESCORE
        wide = max(candidates, min(rescore, max(rescore // 2, len(rows) // 50)))
        if len(rows) > wide:
            query_bits = np.frombuffer(binary_code(vector), dtype=np.uint64)
            hamming = np.bitwise_count(self.bits[rows] ^ query_bits).sum(axis=1, dtype=np.int32)
            rows = rows[np.argpartition(hamming, wide - 1)[:wide]]
        similarity = self._similarity(rows, vector)
        order = np.argsort(-similarity, kind="stable")[:candidates]
        return self.ids[rows[order]], (1.0 - similarity[order]).astype(np.float32)

    def nearest_among(self, vector: np.ndarray, memory_ids: list[int], k: int) -> list[tuple[int, float]]:
        """The `k` nearest of these ids (a narrow filter's rows); ids the copy lacks are skipped."""
        vector = np.asarray(vector, dtype=np.float32)
        _, positions = _positions(self.ids, memory_ids)
        similarity = self._similarity(positions, vector)
        order = np.argsort(-similarity, kind="stable")[:k]
        return [(int(self.ids[positions[i]]), float(1.0 - similarity[i])) for i in order]

    def distances(self, vector: np.ndarray, memory_ids: list[int]) -> dict[int, float]:
        """Cosine distances to these ids' vectors of the active model, for the ids the copy holds. An int8 copy's
        are within about 0.005 of the stored vectors' (a row's scale cancels out of its cosine): near enough for the
        floor and the score of a candidate the words found, and reading each vector back from vec0 on a store of a
        million took longer than the rest of the search."""
        found, positions = _positions(self.ids, memory_ids)
        searchable = self.statuses[positions] >= 0  # -1: another model's vector, or gone
        found, positions = found[searchable], positions[searchable]
        if not len(positions):
            return {}
        vector = np.asarray(vector, dtype=np.float32)
        vector = vector / (float(np.linalg.norm(vector)) or 1.0)
        rows = self.codes[positions].astype(np.float32, copy=False)
        norms = np.linalg.norm(rows, axis=1)
        norms[norms == 0] = 1.0
        similarity = _dot(rows, vector) / norms
        return {int(mid): float(1.0 - sim) for mid, sim in zip(found, similarity, strict=True)}


def _positions(ids: np.ndarray, memory_ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(the wanted ids the copy holds, their rows); `ids` is ascending."""
    wanted = np.asarray(sorted(memory_ids), dtype=np.int64)
    positions = np.searchsorted(ids, wanted)
    inside = positions < len(ids)
    wanted, positions = wanted[inside], positions[inside]
    held = ids[positions] == wanted
    return wanted[held], positions[held]


def view(model_id: str, dims: int) -> View:
    """The copy for this model, brought up to date with the store (reads the database: call it on the thread
    that owns the connection)."""
    key = (str(sql.connection.settings_dict.get("NAME")), model_id, dims)
    with _lock:
        copy = _copies.setdefault(key, _Copy(dims))
        _refresh(copy, model_id)
        n = copy.size
        # Slices, not copies: a later append writes past `n`, and a rebuild allocates new arrays.
        return View(
            copy.ids[:n], copy.bits[:n], copy.codes[:n], copy.scales[:n] if copy.int8 else None,
            copy.projects[:n], copy.statuses[:n], dict(copy.project_codes), dict(copy.status_codes),
        )  # fmt: skip


def prepare(model_id: str, dims: int, *, for_searches: bool = False) -> None:
    """Bring the copy up to date now, when a write transaction that will search it is about to open (the gate's
    duplicate check): inside it the copy then reads at most the rows written in between, never rebuilds under
    the write lock. With `for_searches`, for the searches after an import, which would otherwise read its rows
    on the first one (on PostgreSQL, a search 240 ms long right after a 10k import). A store too small to have a
    copy has none; PostgreSQL ranks vectors itself inside a transaction, so there it prepares only for searches."""
    if sql.FILTERED_KNN and not for_searches:
        return
    key = (str(sql.connection.settings_dict.get("NAME")), model_id, dims)
    if key in _copies or sql.count_vectors(dims) > EXACT_KNN_MAX:
        view(model_id, dims)


def nearest(vector: np.ndarray, model_id: str, candidates: int, **scope) -> tuple[np.ndarray, np.ndarray]:
    return view(model_id, len(vector)).nearest(vector, candidates, **scope)


def nearest_among(vector: np.ndarray, model_id: str, memory_ids: list[int], k: int) -> list[tuple[int, float]]:
    return view(model_id, len(vector)).nearest_among(vector, memory_ids, k)


@on_store_replaced
def reset() -> None:
    with _lock:
        _copies.clear()
