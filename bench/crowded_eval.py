"""The crowded-store evaluation: how supersession behaves in a store full of facts, measured through the REST API.

For one half of bench/crowded_set.py: every fact is written with `POST memories`, then the changes and
the additions, interleaved in an order shuffled with `WRITE_SEED`. Then the state is read back only through the
API, as an agent or a person would: the superseded memories of each scope (and who replaced them), the pending
conflict proposals, `POST search` and `POST recall` with each item's question. `measure_half` returns the figures
(`HalfReport`); `print_report` and `print_misses` write them out.

The API is reached through `Api`, a small adapter: `InProcessApi` (Django's test client on the current database,
a scratch store in `python -m bench updates`) or `HttpApi` (httpx against a running server). A live server cannot give a
scratch store, so there every scope is a project named with a run id (`Scopes.live`): "crowd-<8 hex>-ledger", and
the globals, which cannot be isolated from the person's own, are written as the project "crowd-<8 hex>-me" (so
there a project's searches do not see them, and they are searched from that project).
"""

from __future__ import annotations

import random
import secrets
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from bench.crowded_set import GLOBAL, Addition, Change, CrowdedHalf, Fact

WRITE_SEED = 7  # the order the changes and additions are written in
TOP = 3  # a still-true fact counts as found when its question puts it this high
SEARCH_K = 10

Item = Fact | Change | Addition


class Api(Protocol):
    """What the evaluation needs of the API: a POST and a GET, each answering (status, JSON body)."""

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]: ...

    def get(self, path: str, params: dict[str, Any] | None = None) -> tuple[int, Any]: ...


class InProcessApi:
    """The API called in this process (Django's test client) with a bearer token, on the current database."""

    def __init__(self, raw_token: str) -> None:
        from rest_framework.test import APIClient

        self.client = APIClient(SERVER_NAME="localhost")
        self.client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_token}")

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        response = self.client.post(path, body, format="json")
        return response.status_code, response.json()

    def get(self, path: str, params: dict[str, Any] | None = None) -> tuple[int, Any]:
        response = self.client.get(path, params or {})  # a `next` link is absolute: the client takes its path
        return response.status_code, response.json()


class HttpApi:
    """The API of a running server, over HTTP (httpx)."""

    def __init__(self, base_url: str, raw_token: str, *, timeout: float = 60.0, transport: Any = None) -> None:
        import httpx

        self.client = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {raw_token}"},
            timeout=timeout,
            transport=transport,  # an httpx transport (the tests call the app in process through one)
        )

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        response = self.client.post(path, json=body)
        return response.status_code, response.json()

    def get(self, path: str, params: dict[str, Any] | None = None) -> tuple[int, Any]:
        response = self.client.get(path, params=params)
        return response.status_code, response.json()

    def close(self) -> None:
        self.client.close()


@dataclass(frozen=True)
class Scopes:
    """Where each of the set's scopes is written: a project slug (or None for the globals) -> the API's project."""

    prefix: str = ""  # "" in a scratch store; "crowd-<run id>-" on a live server

    @classmethod
    def live(cls) -> Scopes:
        return cls(prefix=f"crowd-{secrets.token_hex(4)}-")

    def project(self, scope: str | None) -> str | None:
        if not self.prefix:
            return scope
        return f"{self.prefix}{scope or GLOBAL}"

    def listed(self, half: CrowdedHalf) -> list[str | None]:
        """The API projects the half writes into (None: the globals of a scratch store)."""
        scopes: list[str | None] = list(half.projects)
        if any(f.project is None for f in half.facts):
            scopes.append(None)
        return [self.project(s) for s in scopes]


@dataclass
class Written:
    item: Item
    status: int
    outcome: str  # created | duplicate | merged | rejected (or "error")
    memory_id: int | None  # the memory the write made or was folded into
    supersedes: tuple[int, ...] = ()  # what the write answered it replaced


@dataclass
class ChangeResult:
    change: Change
    old_id: int | None
    new_id: int | None
    superseded: bool = False  # the old fact superseded by this change's memory
    queued: bool = False  # a pending conflict proposal holds both
    newer_first: bool = False  # the change's memory ranks above the old fact for its question (or the old is absent)
    recall_clean: bool = False

    @property
    def handled(self) -> bool:
        return self.superseded or (self.queued and self.newer_first)


@dataclass
class HalfReport:
    name: str
    written: list[Written]
    links: list[tuple[int, int]]  # (superseded memory, the memory that replaced it), within the half's scopes
    right: set[tuple[int, int]]
    hidden_facts: list[Written]  # facts no change replaces, now superseded
    hidden_new: list[Written]  # changes and additions superseded by a later write
    additive: list[Written]  # additions that superseded something
    changes: list[ChangeResult]
    found: dict[str, tuple[int, int]]  # "facts" / "additions" -> (found in the top 3, asked)
    pending_conflicts: int
    stray_conflicts: list[set[int]] = field(default_factory=list)  # pending conflicts no change asks for
    seconds: dict[str, float] = field(default_factory=dict)
    texts: dict[int, str] = field(default_factory=dict)  # memory id -> the text written for it

    @property
    def wrong(self) -> list[tuple[int, int]]:
        return [link for link in self.links if link not in self.right]


def _kind(item: Item) -> str:
    return {Fact: "fact", Change: "change", Addition: "addition"}[type(item)]


def write_order(half: CrowdedHalf, seed: int = WRITE_SEED) -> list[Item]:
    """Every fact in the set's order, then the changes and additions interleaved in a seeded shuffle."""
    later: list[Item] = [*half.changes, *half.additions]
    random.Random(seed).shuffle(later)
    return [*half.facts, *later]


def _write(api: Api, scopes: Scopes, item: Item) -> Written:
    body: dict[str, Any] = {"content": item.text}
    project = scopes.project(item.project)
    if project is not None:
        body["project"] = project
    status, answer = api.post("/api/v1/memories", body)
    if not isinstance(answer, dict) or "outcome" not in answer:
        return Written(item, status, "error", None)
    memory = answer.get("memory") or {}
    return Written(item, status, answer["outcome"], memory.get("id"), tuple(answer.get("supersedes") or ()))


def _pages(api: Api, path: str, params: dict[str, Any]) -> Iterator[dict]:
    """Every row of a cursor-paginated list, following `next`."""
    status, page = api.get(path, params)
    while True:
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status}: {page}")
        yield from page["results"]
        if not page.get("next"):
            return
        status, page = api.get(page["next"])


def superseded_links(api: Api, scopes: list[str | None]) -> list[tuple[int, int]]:
    """(superseded memory, its successor) for every superseded memory of these projects (None: the globals)."""
    links = []
    for project in scopes:
        params: dict[str, Any] = {"status": "superseded", "limit": 500}
        if project is not None:
            params["project"] = project
        for row in _pages(api, "/api/v1/memories", params):
            if row["project"] == project and row["superseded_by"] is not None:
                links.append((row["id"], row["superseded_by"]))
    return links


def pending_conflicts(api: Api, ours: set[int]) -> list[set[int]]:
    """The source ids of each pending conflict proposal about the half's memories."""
    params = {"kind": "conflict", "status": "pending", "limit": 500}
    rows = (set(p["sources"]) for p in _pages(api, "/api/v1/proposals", params))
    return [sources for sources in rows if sources & ours]


def _ask(api: Api, scopes: Scopes, scope: str | None, verb: str, body: dict[str, Any]) -> dict[str, Any]:
    """`POST <verb>` with the question `body`, in the project of `scope` (none for the globals); the answer."""
    project = scopes.project(scope)
    if project is not None:
        body["project"] = project
    status, answer = api.post(f"/api/v1/{verb}", body)
    if status != 200:
        raise RuntimeError(f"POST {verb} answered {status}: {answer}")
    return answer


def search(api: Api, scopes: Scopes, scope: str | None, question: str) -> list[int]:
    return [r["id"] for r in _ask(api, scopes, scope, "search", {"query": question, "k": SEARCH_K})["results"]]


def recall(api: Api, scopes: Scopes, scope: str | None, question: str) -> list[int]:
    return list(_ask(api, scopes, scope, "recall", {"query": question})["memory_ids"])


def measure_half(
    api: Api,
    half: CrowdedHalf,
    *,
    scopes: Scopes | None = None,
    seed: int = WRITE_SEED,
    progress: Callable[[str], None] | None = None,
) -> HalfReport:
    """Write the half through the API, read the state back through it, and count."""
    scopes = scopes or Scopes()
    started = time.monotonic()
    written: list[Written] = []
    for n, item in enumerate(write_order(half, seed), start=1):
        written.append(_write(api, scopes, item))
        if progress and n % 100 == 0:
            progress(f"  {half.name}: {n} writes")
    wrote = time.monotonic()

    by_key = {w.item.key: w for w in written}
    created = {w.memory_id for w in written if w.outcome == "created" and w.memory_id is not None}
    ours = {w.memory_id for w in written if w.memory_id is not None}
    links = [link for link in superseded_links(api, scopes.listed(half)) if set(link) <= ours]
    conflicts = pending_conflicts(api, ours)
    superseded = {old for old, _ in links}
    successors = {new for _, new in links}

    right: set[tuple[int, int]] = set()
    results: list[ChangeResult] = []
    for change in half.changes:
        old_id = by_key[change.replaces].memory_id
        mine = by_key[change.key]
        new_id = mine.memory_id if mine.outcome == "created" else None
        result = ChangeResult(change, old_id, new_id)
        if old_id is not None and new_id is not None:
            result.superseded = (old_id, new_id) in links
            if result.superseded:
                right.add((old_id, new_id))
            result.queued = any({old_id, new_id} <= sources for sources in conflicts)
            ranked = search(api, scopes, change.project, change.question)
            if new_id in ranked:
                result.newer_first = old_id not in ranked or ranked.index(new_id) < ranked.index(old_id)
            shown = recall(api, scopes, change.project, change.question)
            result.recall_clean = new_id in shown and old_id not in shown
        results.append(result)

    replaced = {c.replaces for c in half.changes}
    facts = [by_key[f.key] for f in half.facts]
    still_true = [w for w in facts if w.item.key not in replaced]
    additions = [by_key[a.key] for a in half.additions]
    found = {
        "facts": _found(api, scopes, still_true),
        "additions": _found(api, scopes, additions),
    }
    new_writes = [w for w in written if not isinstance(w.item, Fact) and w.memory_id in created]
    texts: dict[int, str] = {}
    for w in written:
        if w.memory_id is not None and w.outcome == "created":
            texts[w.memory_id] = w.item.text
    return HalfReport(
        name=half.name,
        written=written,
        links=links,
        right=right,
        hidden_facts=[w for w in still_true if w.memory_id in superseded],
        hidden_new=[w for w in new_writes if w.memory_id in superseded],
        additive=[
            w
            for w in additions
            if w.outcome == "created" and (w.supersedes or w.memory_id in successors) and w.memory_id is not None
        ],
        changes=results,
        found=found,
        pending_conflicts=len(conflicts),
        stray_conflicts=[c for c in conflicts if not any(c == {r.old_id, r.new_id} for r in results)],
        seconds={"writes": wrote - started, "reads": time.monotonic() - wrote},
        texts=texts,
    )


def _found(api: Api, scopes: Scopes, rows: list[Written]) -> tuple[int, int]:
    """How many of these writes' memories their own question finds in the top `TOP`, of how many asked."""
    hits = 0
    for w in rows:
        if w.memory_id is not None and w.memory_id in search(api, scopes, w.item.project, w.item.question)[:TOP]:
            hits += 1
    return hits, len(rows)


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / max(1, total):.0f}%)"


def report_lines(report: HalfReport, half: CrowdedHalf) -> list[str]:
    """The figures of one half, as printed by `python -m bench updates --store`."""
    cue = sum(1 for c in half.changes if c.cue)
    globals_ = sum(1 for f in half.facts if f.project is None)
    lines = [
        f"== {report.name}: {len(half.facts)} facts ({len(half.projects)} projects and {globals_} globals), "
        f"{len(half.changes)} changes ({cue} with a cue, {len(half.changes) - cue} without), "
        f"{len(half.additions)} additions",
        "writes answered (created/duplicate/merged/rejected):",
    ]
    for kind in ("fact", "change", "addition"):
        outcomes = Counter(w.outcome for w in report.written if _kind(w.item) == kind)
        shown = "/".join(str(outcomes[o]) for o in ("created", "duplicate", "merged", "rejected"))
        other = sum(n for o, n in outcomes.items() if o not in ("created", "duplicate", "merged", "rejected"))
        lines.append(f"  {kind + 's':<10} {shown}" + (f" (and {other} errors)" if other else ""))
    total, wrong = len(report.links), len(report.wrong)
    lines += [
        f"supersessions made: {total}",
        f"  right (the fact a change names, replaced by that change): {len(report.right)}",
        f"  wrong: {wrong} wrong in {total} supersessions (per 100: {100 * wrong / max(1, total):.1f})",
        f"true facts hidden (no change replaces them, now superseded): "
        f"{_rate(len(report.hidden_facts), sum(1 for f in half.facts) - len({c.replaces for c in half.changes}))}",
        f"changes and additions hidden by a later write: {len(report.hidden_new)}",
        f"additions that superseded something: {_rate(len(report.additive), len(half.additions))}",
        "changes handled (superseded by the change, or queued with the change ranking first):",
    ]
    for label, with_cue in (("with a cue", True), ("without a cue", False)):
        rows = [r for r in report.changes if r.change.cue == with_cue]
        superseded = sum(1 for r in rows if r.superseded)
        queued = sum(1 for r in rows if r.queued and r.newer_first and not r.superseded)
        lines.append(
            f"  {label:<14} {_rate(sum(1 for r in rows if r.handled), len(rows))}: "
            f"{superseded} superseded, {queued} queued for a person"
        )
    clean = sum(1 for r in report.changes if r.recall_clean)
    lines.append(
        f"recall of a change's question holds the change and not the old fact: {_rate(clean, len(report.changes))}"
    )
    for name, label in (("facts", "still-true facts"), ("additions", "additions")):
        hits, asked = report.found[name]
        lines.append(f"{label} found by their own question in the top {TOP}: {_rate(hits, asked)}")
    lines += [
        f"pending conflict proposals: {report.pending_conflicts}, of which no change asks for: "
        f"{len(report.stray_conflicts)}",
        f"time: writes {report.seconds['writes']:.0f} s, reads {report.seconds['reads']:.0f} s",
    ]
    return lines


def miss_lines(report: HalfReport) -> list[str]:
    """The wrong supersessions, the additions that superseded something and the unhandled changes, with the texts
    of both sides. For the dev half only: held-out misses are never shown."""

    def text(memory_id: int | None) -> str:
        return repr(report.texts.get(memory_id, f"#{memory_id}")) if memory_id is not None else "(no memory)"

    lines = [f"\n{report.name} misses:", "wrong supersessions (older -> newer):"]
    lines += [f"  {text(old)} -> {text(new)}" for old, new in report.wrong]
    lines.append("additions that superseded something:")
    for w in report.additive:
        olds = sorted({old for old, new in report.links if new == w.memory_id} | set(w.supersedes))
        lines.append(f"  [{w.item.key}] {w.item.text!r} superseded {', '.join(text(o) for o in olds)}")
    lines.append("conflicts no change asks for:")
    lines += ["  " + " / ".join(text(i) for i in sorted(c)) for c in report.stray_conflicts]
    lines.append("changes not handled:")
    replaced_by: dict[int, list[int]] = defaultdict(list)
    for old, new in report.links:
        replaced_by[new].append(old)
    for r in report.changes:
        if r.handled:
            continue
        outcome = next(w.outcome for w in report.written if w.item.key == r.change.key)
        instead = replaced_by.get(r.new_id, []) if r.new_id is not None else []
        how = f"{outcome}; queued={r.queued}; newer first={r.newer_first}"
        if instead:
            how += f"; superseded instead {', '.join(text(o) for o in instead)}"
        lines.append(f"  [{r.change.key}, {'cue' if r.change.cue else 'no cue'}] {text(r.old_id)} -> {r.change.text!r}")
        lines.append(f"      ({how})")
    return lines
