"""Memory tools for agents in OpenAI function-calling shape, and their execution.

`tool_schemas()` is what `GET /api/v1/tools` returns and what a chat proxy hands to the model;
`call_tool(...)` runs one call through the same domain functions as the REST API (the gate for writes,
`search_memories` for search) and the same token checks. A turn may make at most
MEMORYHUB_TOOL_CALLS_PER_TURN memory calls: past that the answer tells the model to use what it has, because a
model that keeps searching rarely finds more.
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError

from memoryhub.agents.tokens import AccessDenied, Agent
from memoryhub.memories.bookkeeping import record_usage
from memoryhub.memories.secrets import WriteRefused, refusal_message, secrets_in_fields
from memoryhub.memories.selectors import MAX_ID, filter_memories, visible_memory
from memoryhub.memories.storable import unstorable
from memoryhub.memories.store import delete_memory, reinforce
from memoryhub.memories.validity import parse_moment
from memoryhub.models import Category, Memory, Status, Tier
from memoryhub.retrieval.moments import statuses_at, then_and_now
from memoryhub.retrieval.search import MODES, MemoryFilter, search_memories
from memoryhub.writes.gate import edit_memory, gate_write
from memoryhub.writes.shape import compact_memory, write_answer

TURN_TTL_SECONDS = 6 * 3600
LIST_LIMIT = 50


class ToolError(Exception):
    """A call that cannot run as asked. `status` is the HTTP answer the API gives; `field` the bad argument."""

    def __init__(self, message: str, *, status: int = 400, field: str | None = None, code: str = ""):
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field
        self.code = code


_ID = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_ID,
    "description": "The memory's id, as shown in search or recall results.",
}
_PROJECT = {
    "type": "string",
    "description": "The project (repository or workspace) name. Omit to use the connection's project.",
}
GLOBAL_SCOPE = "global"
_SCOPE = {
    "type": "string",
    "enum": [GLOBAL_SCOPE],
    "description": "'global' stores a memory for every project (the user's preferences and environment) instead "
    "of the project's; give no project with it.",
}
NO_PROJECT = (
    "memory_store needs a project: this connection names none and the token may use several projects. Pass the "
    "`project` argument, send the X-MemoryHub-Project header (MEMORYHUB_PROJECT for stdio), use a token limited to "
    "one project, or set MEMORYHUB_DEFAULT_PROJECT on the server. For a memory every project should see (the "
    'user\'s preferences, their environment), pass "scope": "global".'
)
_CATEGORY = {"type": "string", "enum": list(Category.values), "description": "What kind of memory this is."}
_TIER = {
    "type": "string",
    "enum": list(Tier.values),
    "description": "semantic: what is true; procedural: how to do something; episodic: what happened.",
}
_TAGS = {"type": "array", "items": {"type": "string"}, "description": "Free labels."}


def _function(name: str, description: str, properties: dict, required: list[str]) -> dict:
    parameters = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


TOOLS: list[dict] = [
    _function(
        "memory_search",
        "Search long-term memory for facts, decisions, gotchas and how-tos relevant to the task. The recall block "
        "at the start of the conversation is already in your context: search only for what is not there.",
        {
            "query": {"type": "string", "description": "What you want to know, in a few words."},
            "project": _PROJECT,
            "k": {"type": "integer", "minimum": 1, "maximum": 20, "description": "How many results (default 5)."},
            "mode": {"type": "string", "enum": list(MODES), "description": "hybrid (default), keyword or semantic."},
            "category": _CATEGORY,
            "tier": _TIER,
            "tags": _TAGS | {"description": "Only memories carrying all these tags (any case)."},
            "as_of": {"type": "string", "description": "ISO 8601 date: what was true then (past facts included)."},
        },
        ["query"],
    ),
    _function(
        "memory_store",
        "Store ONE lasting fact, decision, preference, gotcha or how-to that will matter in later sessions. "
        "Write it so it is true on its own; no session logs, no secrets. Duplicates are folded automatically.",
        {
            "content": {"type": "string", "description": "The fact, in one or two sentences."},
            "project": _PROJECT,
            "scope": _SCOPE,
            "category": _CATEGORY,
            "tier": _TIER,
            "tags": _TAGS,
            "metadata": {"type": "object", "description": "Optional details: file path, URL, commit."},
            "expires_at": {"type": "string", "description": "ISO 8601: when it stops mattering (a freeze, an outage)."},
        },
        ["content"],
    ),
    _function(
        "memory_update",
        "Correct or refine a memory that is wrong or out of date (by id).",
        {
            "id": _ID,
            "content": {"type": "string", "description": "The corrected text."},
            "category": _CATEGORY,
            "tier": _TIER,
            "tags": _TAGS,
            "metadata": {"type": "object", "description": "Replaces the memory's metadata."},
        },
        ["id"],
    ),
    _function("memory_delete", "Delete a memory that is wrong and cannot be corrected (by id).", {"id": _ID}, ["id"]),
    _function(
        "memory_list",
        "List the most recent memories of a project, optionally of one category, tier or tag.",
        {
            "project": _PROJECT,
            "category": _CATEGORY,
            "tier": _TIER,
            "tag": {"type": "string", "description": "Only memories with this tag (any case)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": LIST_LIMIT, "description": "At most (default 20)."},
        },
        [],
    ),
    _function(
        "memory_refresh",
        "Tell the memory that you used one of its memories and it was still true, so it is kept.",
        {"id": _ID},
        ["id"],
    ),
]
TOOL_NAMES = [t["function"]["name"] for t in TOOLS]


def tool_schemas() -> list[dict]:
    return json.loads(json.dumps(TOOLS))  # a copy: callers may annotate it


# --- arguments -----------------------------------------------------------------------------------------------

_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def validate_arguments(name: str, arguments: Any) -> dict[str, Any]:
    """Check arguments against the tool's own schema, so what the model is told and what is enforced agree."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except RecursionError as exc:
            raise ToolError("arguments are nested too deeply", field="arguments") from exc
        except json.JSONDecodeError as exc:
            raise ToolError(f"arguments are not valid JSON: {exc.msg}", field="arguments") from exc
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolError("arguments must be a JSON object", field="arguments")
    schema = next(t["function"]["parameters"] for t in TOOLS if t["function"]["name"] == name)
    properties = schema["properties"]
    for key in arguments:
        if key not in properties:
            raise ToolError(f"{name} has no argument {key!r}; it takes {', '.join(properties)}", field=key)
    for key in schema["required"]:
        if arguments.get(key) in (None, ""):
            raise ToolError(f"{name} needs {key!r}", field=key)
    for key, value in arguments.items():
        spec = properties[key]
        if value is None:
            continue
        # What the API's body parser refuses (NUL is left to the write itself, which refuses it).
        if problem := unstorable(value, nul_allowed=True):
            where = f"{key}.{problem.path}" if problem.path else key
            raise ToolError(f"{where} {problem.why}", field=key)
        types = _TYPES[spec["type"]]
        if isinstance(value, bool) and bool not in types or not isinstance(value, types):
            raise ToolError(f"{key} must be of type {spec['type']}", field=key)
        if "enum" in spec and value not in spec["enum"]:
            raise ToolError(f"{key} must be one of: {', '.join(spec['enum'])}", field=key)
        if spec["type"] == "array" and not all(isinstance(v, str) for v in value):
            raise ToolError(f"{key} must be a list of strings", field=key)
        if spec["type"] == "integer" and not spec.get("minimum", value) <= value <= spec.get("maximum", value):
            raise ToolError(f"{key} must be from {spec.get('minimum')} to {spec.get('maximum', 'any')}", field=key)
    return {k: v for k, v in arguments.items() if v is not None}


# --- shared selectors ----------------------------------------------------------------------------------------


def list_memories(
    *,
    agent: Agent,
    project: str | None = None,
    category: str | None = None,
    tier: str | None = None,
    status: str | None = None,
    tag: str | None = None,
    verified_before: datetime | None = None,
):
    """The memories this agent may see, filtered (memoryhub.memories.selectors); newest first.
    `project` means exactly that project."""
    if project:
        agent.check_read(project)
    rows = filter_memories(
        project=project, category=category, tier=tier, status=status, tag=tag, allowed_projects=agent.projects,
        verified_before=verified_before,
    )  # fmt: skip
    return rows.order_by("-pk")


def get_memory_for(agent: Agent, memory_id: Any) -> Memory:
    """The memory, or a 404 ToolError; another project's memory answers exactly as a missing one (the domain's
    rule, `visible_memory`, as on the API's routes)."""
    memory = visible_memory(memory_id, allowed_projects=agent.projects)
    if memory is None or memory.status == Status.QUARANTINED:  # held for a person: the model never reads it
        raise ToolError(f"no memory #{memory_id}", status=404, field="id")
    return memory


# --- calls ---------------------------------------------------------------------------------------------------


def _count_call(agent: Agent, turn_id: str) -> int:
    key = f"memoryhub:tool-turn:{agent.token_id or agent.name}:{turn_id}"[:240]
    cache.add(key, 0, timeout=TURN_TTL_SECONDS)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=TURN_TTL_SECONDS)
        return 1


def scope_of(project: str | None, *, searched: bool) -> str:
    """Where a call looked or wrote, in words the model can repeat to the person."""
    if project:
        return f"project {project!r} and the global memories" if searched else f"project {project!r}"
    if searched:
        return "the global memories only (no project named: pass `project` or send X-MemoryHub-Project)"
    return "global: visible from every project"


def _store_target(args: dict[str, Any], default_project: str | None) -> str | None:
    """The project a memory_store writes to; global only when the call asks for it."""
    if args.get("scope") == GLOBAL_SCOPE:
        if args.get("project"):
            raise ToolError('give a project or "scope": "global", not both', field="scope")
        return None
    project = args.get("project", default_project) or None
    if project is None:
        # A secret is refused first, on every route and whatever else is missing: the caller must hear that the
        # text may never be stored, not only that it lacks a project.
        found = secrets_in_fields({k: args.get(k) for k in ("content", "tags", "metadata") if args.get(k)})
        if found:
            path, kinds = next(iter(found.items()))
            raise ToolError(refusal_message(kinds), status=422, field=path, code="rejected_secret")
        raise ToolError(NO_PROJECT, field="project", code="project_required")
    return project


def _run(name: str, args: dict[str, Any], agent: Agent, default_project: str | None) -> dict[str, Any]:
    project = args.get("project", default_project) or None
    if name == "memory_search":
        agent.check_read(project)
        as_of = parse_moment(args.get("as_of"), "as_of")
        within = MemoryFilter(
            visible_from=project, allowed_projects=agent.projects, category=args.get("category"),
            tier=args.get("tier"), tags=args.get("tags"), as_of=as_of, status=statuses_at(Status.ACTIVE, as_of),
        )  # fmt: skip
        hits = search_memories(query=args["query"], within=within, k=args.get("k", 5),
                               mode=args.get("mode", "hybrid"), reinforce_results=as_of is None)  # fmt: skip
        return {
            "results": [
                compact_memory(h.memory, score=round(h.score, 4), **then_and_now(h.memory, as_of)) for h in hits
            ],  # fmt: skip
            "scope": scope_of(project, searched=True),
        }
    if name == "memory_store":
        agent.check_may_write()  # a read-only token hears that first, whatever the project
        project = _store_target(args, default_project)
        agent.check_write(project)
        result = gate_write(
            content=args["content"], project=project, category=args.get("category"), tier=args.get("tier"),
            tags=args.get("tags"), metadata=args.get("metadata"), source=agent.name, expires_at=args.get("expires_at"),
            trusted=agent.trusted,
        )  # fmt: skip
        if result.kind == "secret":
            # As on every route, a secret refuses the request itself (422): nothing stored, nothing echoed.
            field_name = next(iter(result.fields), "content")
            raise ToolError(result.reason, status=422, field=field_name, code="rejected_secret")
        return write_answer(result, shape=compact_memory) | {"scope": scope_of(project, searched=False)}
    if name == "memory_list":
        rows = list_memories(
            agent=agent, project=project, category=args.get("category"), tier=args.get("tier"),
            status=Status.ACTIVE, tag=args.get("tag"),
        ).unexpired()  # fmt: skip
        memories = list(rows[: args.get("limit", 20)])
        return {"memories": [compact_memory(m) for m in memories], "count": len(memories)}
    memory = get_memory_for(agent, args["id"])
    if name == "memory_refresh":
        reinforce(memory_ids=[memory.pk])
        memory.refresh_from_db()
        return {"memory": compact_memory(memory)}
    agent.check_write(memory.project)
    if name == "memory_delete":
        delete_memory(memory=memory, actor=agent.name)
        return {"deleted": args["id"]}
    changes = {k: args[k] for k in ("content", "category", "tier", "tags", "metadata") if k in args}
    if not changes:
        raise ToolError("memory_update needs at least one of content, category, tier, tags, metadata")
    edit_memory(memory=memory, changes=changes, actor=agent.name, trusted=agent.trusted)
    memory.refresh_from_db()
    return {"memory": compact_memory(memory)}


def call_tool(
    *,
    name: str,
    arguments: dict[str, Any] | str | None,
    agent: Agent,
    turn_id: str | None = None,
    default_project: str | None = None,
) -> dict[str, Any]:
    """Run one memory tool call for `agent`.

    Returns {"name", "ok", "limited", "calls_in_turn", "result"}; `result` is what to hand back to the model.
    Raises ToolError (unknown tool, bad arguments, unknown id, not allowed) with the HTTP status to answer.
    Calls without a turn_id are not counted against the per-turn limit.
    """
    if name not in TOOL_NAMES:
        raise ToolError(f"unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}", field="name")
    started = time.perf_counter()
    limit = settings.MEMORYHUB_TOOL_CALLS_PER_TURN
    calls = _count_call(agent, str(turn_id)) if turn_id else 0
    answer: dict[str, Any] = {"name": name, "ok": True, "limited": False, "calls_in_turn": calls}
    try:
        if calls > limit:
            answer |= {"ok": False, "limited": True}
            answer["result"] = {
                "message": f"Memory tool limit reached: {limit} calls in this turn. Do not call memory tools again "
                "in this turn; answer with what you already have."
            }
        else:
            args = validate_arguments(name, arguments)
            try:
                answer["result"] = _run(name, args, agent, default_project)
            except AccessDenied as exc:
                raise ToolError(str(exc), status=403) from exc
            except WriteRefused as exc:
                field, message = _first_error(exc)
                code = f"rejected_{exc.kind}" if getattr(exc, "kind", "") else "invalid"
                raise ToolError(message, status=422, field=field, code=code) from exc
            except ValidationError as exc:
                field, message = _first_error(exc)
                raise ToolError(message, field=field) from exc
    finally:
        project = default_project
        if isinstance(arguments, dict) and isinstance(arguments.get("project"), str):
            project = arguments["project"]
        record_usage(
            agent=agent.name, kind="tool", project=project, tool_calls=1,
            latency_ms=(time.perf_counter() - started) * 1000.0,
        )  # fmt: skip
    return answer


def _first_error(exc: ValidationError) -> tuple[str | None, str]:
    if hasattr(exc, "message_dict"):
        field, messages = next(iter(exc.message_dict.items()))
        return field, f"{field}: {' '.join(str(m) for m in messages)}"
    return None, " ".join(exc.messages)
