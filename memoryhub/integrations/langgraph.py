"""MemoryHub as LangGraph's long-term memory: `MemoryHubStore`, a `BaseStore` over the REST API (sync and async).

    from memoryhub.integrations.langgraph import MemoryHubStore
    store = MemoryHubStore("http://127.0.0.1:8000", token="...")
    store.put(("webshop", "alice"), "food", {"content": "Alice is vegetarian"})
    store.search(("webshop",), query="what does alice eat")

How LangGraph's model maps onto memories:
- A namespace's first label is the project (`("webshop", "alice")` lives in project `webshop`), unless the store is
  made with `project=...`: then every namespace lives in that project. The other labels become tags, so the
  dashboard shows and filters them.
- An item is one memory. Its text is the value's `content` (or `text`) when that is a string, else the value as
  JSON; the value itself, the namespace and the key ride in the memory's metadata (`metadata["langgraph"]`), and a
  get answers the value exactly as it was put.
- Items are stored as given (`POST memories/import`: no noise or duplicate judgement, as a key-value store must
  not fold two keys into one); secrets are refused as for every write (a `MemoryHubError` naming the field).
  Putting a key again replaces its memory; putting None deletes it.
- `search` with a query is MemoryHub's hybrid search (words and meaning) within the namespace prefix, every
  candidate ranked (no relevance floor), `filter` compared with the value's fields; without a query, the newest
  items under the prefix. Scores are MemoryHub's (0-1).
- Exact lookups use two machine tags per memory: one for the item (namespace and key) and one for each namespace
  prefix; they start with `lg:`.

Needs `pip install "/path/to/memoryhub[langgraph]"` (this module, langgraph, httpx). Nothing of the server is
imported here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Generator, Iterable
from datetime import UTC, datetime
from typing import Any

import httpx
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

__all__ = ["MemoryHubError", "MemoryHubStore"]

ALL_ITEMS_TAG = "lg:item"
SEARCH_MAX_K = 100  # the API's most results per search
PAGE = 500  # the API's largest list page

# One request the op logic wants sent: (method, path under /api/v1/, query parameters, JSON body); the driver sends
# it and hands back (status, decoded JSON). The same logic then runs under httpx.Client and httpx.AsyncClient.
Request = tuple[str, str, dict[str, Any] | None, Any]
Response = tuple[int, Any]
Steps = Generator[Request, Response, Any]


class MemoryHubError(RuntimeError):
    """The server refused a call: its status and message (a secret in a value, a token that may not write here)."""

    def __init__(self, status: int, body: Any):
        message = body.get("error", {}).get("message") if isinstance(body, dict) else None
        super().__init__(f"MemoryHub answered {status}: {message or body}")
        self.status = status
        self.body = body


def _digest(*parts: Any) -> str:
    # Digits only: a long run of hex letters and digits reads as a random token to the write gate's secret check.
    return str(int(hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()[:16], 16))


def item_tag(namespace: tuple[str, ...], key: str) -> str:
    return f"lg:k:{_digest(list(namespace), key)}"


def prefix_tag(prefix: tuple[str, ...]) -> str:
    return f"lg:ns:{_digest(list(prefix))}"


def _text_of(value: dict[str, Any]) -> str:
    for field in ("content", "text"):
        if isinstance(value.get(field), str) and value[field].strip():
            return value[field]
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _time(text: str | None) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else datetime.now(UTC)


def _ours(memory: dict[str, Any]) -> dict[str, Any] | None:
    """The LangGraph part of a memory's metadata, or None for a memory this store did not write."""
    found = (memory.get("metadata") or {}).get("langgraph")
    if isinstance(found, dict) and isinstance(found.get("namespace"), list) and "key" in found:
        return found
    return None


def _item(memory: dict[str, Any], score: float | None = None, *, searched: bool = False) -> Item:
    mine = _ours(memory) or {}
    fields = {
        "namespace": tuple(mine["namespace"]),
        "key": mine["key"],
        "value": mine.get("value") or {},
        "created_at": _time(mine.get("created_at") or memory.get("created_at")),
        "updated_at": _time(memory.get("created_at")),
    }
    return SearchItem(**fields, score=score) if searched else Item(**fields)


def _matches(value: dict[str, Any], wanted: dict[str, Any] | None) -> bool:
    return all(value.get(field) == expected for field, expected in (wanted or {}).items())


def _under(memory: dict[str, Any], prefix: tuple[str, ...]) -> bool:
    mine = _ours(memory)
    return mine is not None and tuple(mine["namespace"][: len(prefix)]) == prefix


def _check(answer: Response, *ok: int) -> Any:
    status, body = answer
    if status not in ok:
        raise MemoryHubError(status, body)
    return body


class MemoryHubStore(BaseStore):
    """A LangGraph store whose items are MemoryHub memories (see the module's docstring)."""

    supports_ttl = False

    def __init__(self, url: str, token: str, *, project: str | None = None, timeout: float = 60.0):
        self.base = url.rstrip("/") + "/api/v1/"
        self.project = project
        headers = {"Authorization": f"Bearer {token}"}
        self._client = httpx.Client(base_url=self.base, headers=headers, timeout=timeout)
        self._async_headers = headers
        self._timeout = timeout

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> MemoryHubStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the operations, written once as steps of requests -----------------------------------------------------

    def _project_of(self, namespace: tuple[str, ...]) -> str:
        return self.project or namespace[0]

    def _find(self, namespace: tuple[str, ...], key: str) -> Steps:
        """The memories holding this item (one, unless two puts raced)."""
        params = {"project": self._project_of(namespace), "tag": item_tag(namespace, key), "status": "active"}
        body = _check((yield ("GET", "memories", params, None)), 200)
        return [m for m in body.get("results", []) if (_ours(m) or {}).get("key") == key]

    def _get(self, op: GetOp) -> Steps:
        found = yield from self._find(tuple(op.namespace), op.key)
        return _item(found[0]) if found else None

    def _put(self, op: PutOp) -> Steps:
        namespace = tuple(op.namespace)
        found = yield from self._find(namespace, op.key)
        created_at = (_ours(found[0]) or {}).get("created_at") if found else None
        for memory in found:
            _check((yield ("DELETE", f"memories/{memory['id']}", None, None)), 204, 404)
        if op.value is None:
            return None
        value = dict(op.value)
        item = {
            "content": _text_of(value),
            "project": self._project_of(namespace),
            "tags": [*(label[:64] for label in namespace[0 if self.project else 1 :]), ALL_ITEMS_TAG,
                     item_tag(namespace, op.key), *(prefix_tag(namespace[:n]) for n in range(1, len(namespace) + 1))],
            "metadata": {"langgraph": {"namespace": list(namespace), "key": op.key, "value": value,
                                       "created_at": created_at or datetime.now(UTC).isoformat()}},
        }  # fmt: skip
        _check((yield ("POST", "memories/import", None, {"memories": [item]})), 201)
        return None

    def _search(self, op: SearchOp) -> Steps:
        prefix = tuple(op.namespace_prefix)
        wanted = op.offset + op.limit
        if op.query:
            body = {"query": op.query, "k": SEARCH_MAX_K, "min_score": 0, "mode": "hybrid"}
            if prefix:
                projects = [self._project_of(prefix)]
                body["tags"] = [prefix_tag(prefix)]
            elif self.project:
                projects = [self.project]
            else:  # every namespace: one search per project that holds items (a search sees one project)
                projects = sorted({ns[0] for ns in (yield from self._namespaces(ListNamespacesOp(limit=10**9)))})
            found = []
            for project in projects:
                found += _check((yield ("POST", "search", None, body | {"project": project})), 200)["results"]
            found.sort(key=lambda m: -(m.get("score") or 0.0))
            hits = [m for m in found if _under(m, prefix) and _matches(_ours(m)["value"], op.filter)]
            return [_item(m, m.get("score"), searched=True) for m in hits[op.offset : wanted]]
        params = {"tag": prefix_tag(prefix) if prefix else ALL_ITEMS_TAG, "status": "active", "limit": PAGE}
        if prefix or self.project:
            params["project"] = self._project_of(prefix)
        hits = []
        for memory in (yield from self._every(params)):
            if _under(memory, prefix) and _matches(_ours(memory)["value"], op.filter):
                hits.append(memory)
                if len(hits) >= wanted:
                    break
        return [_item(m, searched=True) for m in hits[op.offset : wanted]]

    def _every(self, params: dict[str, Any]) -> Steps:
        """Every memory of a list, following its `next` links."""
        rows: list[dict[str, Any]] = []
        path: str = "memories"
        while path:
            body = _check((yield ("GET", path, params, None)), 200)
            rows += body.get("results", [])
            following = body.get("next")
            path, params = (following.split("/api/v1/", 1)[1], None) if following else ("", None)
        return rows

    def _namespaces(self, op: ListNamespacesOp) -> Steps:
        params: dict[str, Any] = {"tag": ALL_ITEMS_TAG, "status": "active", "limit": PAGE}
        if self.project:
            params["project"] = self.project
        found = set()
        for memory in (yield from self._every(params)):
            namespace = tuple((_ours(memory) or {}).get("namespace") or ())
            if namespace and all(_condition_holds(namespace, c) for c in op.match_conditions or ()):
                found.add(namespace[: op.max_depth] if op.max_depth is not None else namespace)
        return sorted(found)[op.offset : op.offset + op.limit]

    def _steps(self, op: Op) -> Steps:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            return self._put(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise ValueError(f"unknown operation {type(op).__name__}")

    # --- the two drivers ---------------------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results = []
        for op in ops:
            steps = self._steps(op)
            try:
                request = next(steps)
                while True:
                    request = steps.send(_sent(self._client, request))
            except StopIteration as done:
                results.append(done.value)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        results = []
        async with httpx.AsyncClient(base_url=self.base, headers=self._async_headers, timeout=self._timeout) as client:
            for op in ops:
                steps = self._steps(op)
                try:
                    request = next(steps)
                    while True:
                        request = steps.send(await _sent_async(client, request))
                except StopIteration as done:
                    results.append(done.value)
        return results


def _decoded(answer: httpx.Response) -> Response:
    try:
        return answer.status_code, answer.json() if answer.content else None
    except ValueError:
        return answer.status_code, answer.text


def _sent(client: httpx.Client, request: Request) -> Response:
    method, path, params, body = request
    return _decoded(client.request(method, path, params=params, json=body))


async def _sent_async(client: httpx.AsyncClient, request: Request) -> Response:
    method, path, params, body = request
    return _decoded(await client.request(method, path, params=params, json=body))


def _condition_holds(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :] if path else ()
    return len(part) == len(path) and all(want in ("*", got) for want, got in zip(path, part, strict=True))
