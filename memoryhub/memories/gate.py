"""The write gate: what an agent asks to store is checked before it becomes a memory.

In order: bad fields are a ValidationError (the caller answers 400); secrets are refused naming their kind
and never stored (the gate log keeps a redacted copy); noise is refused (diary lines, timestamps, command
output, text too short to be a fact); a near-duplicate in the same scope reinforces the existing memory
instead of adding a twin; otherwise the memory is created, with category and tier guessed when omitted and a
warning when the text seems to hold several facts. Refused, folded and warned writes go to the gate log.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from memoryhub.embeddings import get_embedder
from memoryhub.memories.store import clean_fields, create_memory, reinforce, update_memory
from memoryhub.models import GateDecision, GateLogEntry, Memory, Status
from memoryhub.retrieval import vector_index
from memoryhub.retrieval.search import similar_in_scope


@dataclass
class GateResult:
    outcome: str  # created | merged | duplicate | rejected
    memory: Memory | None
    reason: str
    kind: str = ""  # why: secret, noise, duplicate, near_duplicate; "" when created
    warnings: list[str] = field(default_factory=list)
    log_entry: GateLogEntry | None = None


# --- secrets -------------------------------------------------------------------------------------------------

# Values that stand for a secret rather than being one: "${DB_PASSWORD}", "<token>", "os.environ[...]".
_PLACEHOLDER = re.compile(
    r"^(\$|\{|<|%|\*{3}|x{3,}|\.\.\.|os\.|env|process\.env|settings\.|config\.|getenv|secrets?\.|vault|none|null|"
    r"changeme$|password$|your[_-]|example|redacted)",
    re.IGNORECASE,
)
_ASSIGNED_KEY = (
    r"(?:password|passwd|pwd|passphrase|secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|auth[_-]?token|"
    r"access[_-]?token|client[_-]?secret|private[_-]?key|token)"
)
SECRET_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "private key block",
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[^-]*-----|$)"),
    ),
    ("Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("OpenAI API key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    ("AWS secret key", re.compile(r"(?i)aws_?secret_?access_?key\s*[=:]\s*[\"']?[A-Za-z0-9/+=]{40}")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Slack webhook URL", re.compile(r"hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("Google OAuth secret", re.compile(r"\b(?:GOCSPX-[A-Za-z0-9_-]{20,}|ya29\.[0-9A-Za-z_-]{20,})")),
    ("Stripe key", re.compile(r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}")),
    ("JWT", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("bearer token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}")),
]
_URL_PASSWORD = re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:([^/\s@]+)@", re.IGNORECASE)
_ASSIGNMENT = re.compile(_ASSIGNED_KEY + r"[\"']?\s*(?:=|:|=>)\s*[\"']?([^\s\"',;]{6,})", re.IGNORECASE)


def find_secrets(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of each secret found in `text`."""
    found: list[tuple[str, int, int]] = []
    for kind, pattern in SECRET_PATTERNS:
        found += [(kind, m.start(), m.end()) for m in pattern.finditer(text)]
    for m in _URL_PASSWORD.finditer(text):
        if not _PLACEHOLDER.match(m.group(1)):
            found.append(("password in a URL", m.start(1), m.end(1)))
    for m in _ASSIGNMENT.finditer(text):
        value = m.group(1)
        if _PLACEHOLDER.match(value) or "(" in value or "[" in value:
            continue
        # "token = refresh_token" names a variable; a real value has a digit or is long and random-looking.
        if not re.search(r"\d", value) and len(value) < 16 and not m.group(0).lower().startswith(("pass", "pwd")):
            continue
        if any(start <= m.start(1) < end for _, start, end in found):
            continue
        found.append(("password or secret assignment", m.start(1), m.end(1)))
    return sorted(found, key=lambda f: f[1])


def redact(text: str, secrets: list[tuple[str, int, int]]) -> str:
    out, position = [], 0
    for kind, start, end in secrets:
        if start < position:
            continue
        out += [text[position:start], f"[REDACTED {kind}]"]
        position = end
    return "".join(out) + text[position:]


# --- noise ---------------------------------------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_TIMESTAMP = re.compile(
    r"\[?\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\]?|"
    r"\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:am|pm)?\b",
    re.IGNORECASE,
)
_DIARY = re.compile(
    r"^\W*(?:"
    r"(?:today|tonight|yesterday|this (?:morning|afternoon|evening|session|sprint)|in this session|"
    r"during this session|so far(?: today)?)\b[^.]{0,20}?\b(?:i|we)\b|"
    r"(?:i|we)(?:'ve| have)? (?:just )?(?:worked on|am working on|was working on|were working on|spent|"
    r"started working|looked into|am going to|will now|am now|'m now|'m going to|continued)\b|"
    r"(?:session (?:log|summary|notes)|dev ?log|daily log|diary|standup|stand-up|progress update|work log)\b|"
    r"(?:let me|now i(?:'ll| will)|next,? i(?:'ll| will)|i(?:'ll| will) now|ok(?:ay)?,? (?:now|let's))\b"
    r")",
    re.IGNORECASE,
)
_STACK_LINE = re.compile(r"^\s+(?:at [\w.$<>/]+\s*\(.*\)|File \".*\", line \d+)", re.MULTILINE)
_LOG_LINE = re.compile(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}|\[?\d{2}:\d{2}:\d{2}|\[?(?:DEBUG|INFO|WARN|WARNING|ERROR|TRACE)\b)"
)
_PROMPT = re.compile(r"^\s*(?:\$|>>>|PS [A-Z]:\\[^>]*>|[\w.-]+@[\w.-]+:[^$#]*[$#])\s+\S", re.MULTILINE)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def noise_reason(text: str) -> str | None:
    """Why `text` is not a fact worth keeping, or None."""
    stripped = text.strip()
    if "Traceback (most recent call last)" in stripped or len(_STACK_LINE.findall(stripped)) >= 2:
        return "it is a stack trace, not a fact; store what you learned from it (the cause and the fix)"
    lines = [line for line in stripped.splitlines() if line.strip()]
    if _PROMPT.match(lines[0]) and len(lines) >= 2:
        return "it is command output, not a fact; store what the command tells you, in a sentence"
    if len(lines) >= 3 and sum(bool(_LOG_LINE.match(line)) for line in lines) * 2 >= len(lines):
        return "it is log output, not a fact; store what the log tells you, in a sentence"
    if (
        re.search(r"npm ERR!|^error(?:\[E\d+\])?:|^fatal:|exit (?:code|status) \d+$", stripped, re.M)
        and len(lines) >= 3
    ):
        return "it is command output, not a fact; store what the command tells you, in a sentence"
    if len(words(_TIMESTAMP.sub(" ", stripped))) < settings.MEMORYHUB_GATE_MIN_WORDS and _TIMESTAMP.search(stripped):
        return "it is a timestamp, not a fact"
    if _DIARY.search(stripped):
        return (
            "it reads like a session log or diary entry; store the lasting fact, decision or gotcha instead "
            "(true on its own, without 'today I...')"
        )
    count = len(words(stripped))
    if len(stripped) < settings.MEMORYHUB_GATE_MIN_CHARS or count < settings.MEMORYHUB_GATE_MIN_WORDS:
        return (
            f"it is too short to be a fact ({count} word{'s' if count != 1 else ''}); write a sentence that is "
            "true on its own"
        )
    return None


# --- several facts in one text -------------------------------------------------------------------------------

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'`(])|\s*\n+\s*(?:[-*•]\s+|\d+[.)]\s+)?")
# A sentence that starts like this leans on the one before it: it explains, not adds, a fact.
_LEANING = re.compile(
    r"^(?:it|its|it's|this|that|these|those|they|them|which|because|so|since|as|the reason|otherwise|"
    r"else|but|and|or|also|then|e\.g\.|i\.e\.|for example|note|see)\b",
    re.IGNORECASE,
)


def separate_facts(text: str) -> list[str]:
    """The sentences of `text` that each state a fact of their own (at least four words, not leaning back)."""
    parts = [p.strip(" -*•\t") for p in _SENTENCE_SPLIT.split(text.strip()) if p and p.strip(" -*•\t")]
    return [p for p in parts if len(words(p)) >= 4 and not _LEANING.match(p)]


def multi_fact_warning(text: str) -> str | None:
    facts = separate_facts(text)
    if len(facts) < 2:
        return None
    named = "; ".join(f"'{f[:48]}{'…' if len(f) > 48 else ''}'" for f in facts[:5])
    return (
        f"this text seems to hold {len(facts)} facts ({named}); store one fact per memory so each can be found, "
        "updated and forgotten on its own"
    )


# --- category and tier ---------------------------------------------------------------------------------------

CATEGORY_KEYWORDS: dict[str, list[tuple[str, float]]] = {
    "preference": [
        (r"\bprefers?\b", 2),
        (r"\b(?:likes?|dislikes?|hates?|loves?)\b", 1.5),
        (r"\bwants?\b", 1),
        (r"\b(?:always|never) (?:use|write|run|do)\b", 1),
        (r"\b(?:i|user|the user|they) (?:like|want)\b", 1),
        (r"\bstyle\b", 0.5),
        (r"\brather than\b", 0.5),
    ],
    "decision": [
        (r"\bdecided\b|\bdecision\b", 2.5),
        (r"\b(?:we|team) (?:chose|picked|agreed|settled)\b", 2.5),
        (r"\bchose\b|\bchosen\b|\bagreed\b", 1.5),
        (r"\bgoing with\b|\bswitched to\b|\bmoved to\b", 1.5),
        (r"\binstead of\b", 1),
        (r"\bbecause\b", 0.5),
        (r"\bwe (?:will|use)\b", 0.5),
    ],
    "gotcha": [
        (r"\bgotcha\b|\bpitfall\b|\bcaveat\b", 2.5),
        (r"\bbeware\b|\bcareful\b|\bwatch out\b", 2),
        (r"\b(?:fails?|breaks?|crash(?:es)?|hangs?) (?:when|if|on|with)\b", 2),
        (r"\bsilently\b", 1.5),
        (r"\b(?:does not|doesn't|won't|cannot|can't) work\b", 1.5),
        (r"\bworkaround\b|\bbug\b", 1.5),
        (r"\bmust not\b|\bnever\b|\bdon't\b|\bdo not\b", 1),
        (r"\bunless\b|\bonly if\b", 0.5),
    ],
    "skill": [
        (r"\bhow to\b", 2),
        (r"^to \w+.*?,\s*(?:run|use|call|do|type)\b", 2.5),
        (r"\b(?:run|execute) `", 1.5),
        (r"\bsteps?\b", 1),
        (r"\bfirst\b.*\bthen\b", 1.5),
        (r"\bcommand\b", 1),
        (r"\busage:\b", 1.5),
    ],
    "reference": [
        (r"https?://", 2.5),
        (r"\bdocs?\b|\bdocumentation\b|\bwiki\b", 1.5),
        (r"\bsee\b", 0.5),
        (r"\blink\b|\burl\b|\bspec\b|\brfc\s?\d+", 1),
        (r"\bdashboard\b|\brunbook\b", 0.5),
    ],
    "person": [
        (r"\b(?:his|her) name\b|\bname is\b", 2),
        (r"\bemail\b|@\w+\.\w+", 1),
        (r"\b(?:is|as) (?:the|our) (?:maintainer|owner|lead|manager|reviewer|designer|cto|ceo)\b", 2.5),
        (r"\bcolleague\b|\bteammate\b|\bworks (?:on|at|in)\b|\breports to\b", 1.5),
        (r"\b(?:he|she)\b", 1),
    ],
    "environment": [
        (r"\b(?:ubuntu|debian|fedora|arch linux|macos|windows|wsl\d?)\b", 2),
        (r"\b(?:zsh|bash|fish|powershell|vscode|vs code|neovim|vim|emacs|jetbrains|pycharm|iterm)\b", 1.5),
        (r"\b(?:machine|laptop|workstation|gpu|cpu|ram|shell|terminal|editor|installed)\b", 1),
        (r"\b(?:python|node|java|go|rust) \d+(?:\.\d+)*\b", 1),
        (r"\benvironment\b|\bhomebrew\b|\bapt\b", 1),
    ],
    "project": [
        (r"\b(?:the |this )?(?:project|repo|repository|codebase|monorepo)\b", 1.5),
        (r"\b(?:module|package|service|endpoint|api|schema|migration|deploy(?:s|ed|ment)?|ci|pipeline)\b", 1),
        (r"\b(?:lives in|is in|located in|under) `?[\w./-]+/", 1.5),
        (r"\buses\b|\bruns on\b", 0.5),
    ],
    "fact": [(r"\bis\b|\bare\b|\bhas\b|\bhave\b", 0.5), (r"\b\d+(?:\.\d+)?\s?(?:ms|s|mb|gb|kb|%)\b", 1)],
}
_COMPILED = {c: [(re.compile(p, re.IGNORECASE), w) for p, w in pairs] for c, pairs in CATEGORY_KEYWORDS.items()}
_PROCEDURAL = re.compile(
    r"^to \w+.*?,|\bhow to\b|\b(?:run|execute|type|call) `|\bfirst\b.*\bthen\b|\bsteps?\b|\busage:", re.IGNORECASE
)
_EPISODIC = re.compile(
    r"\b(?:yesterday|last (?:week|month|night|year)|on (?:monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday)|on \d{4}-\d{2}-\d{2}|in (?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december) \d{4}|happened|incident|outage|was (?:deployed|released|migrated|rolled back))\b",
    re.IGNORECASE,
)


def category_scores(text: str) -> dict[str, float]:
    return {c: sum(w for p, w in pairs if p.search(text)) for c, pairs in _COMPILED.items()}


def guess_category(text: str) -> str:
    """The best-scoring category when it is clearly ahead; '' when unsure."""
    ranked = sorted(category_scores(text).items(), key=lambda kv: -kv[1])
    (best, top), (_, second) = ranked[0], ranked[1]
    if top >= settings.MEMORYHUB_GATE_CATEGORY_MIN_SCORE and top - second >= 1.0:
        return best
    return ""


def guess_tier(text: str, category: str = "") -> str:
    if category == "skill" or _PROCEDURAL.search(text):
        return "procedural"
    if _EPISODIC.search(text):
        return "episodic"
    if category:
        return "semantic"
    return ""


# --- near-duplicates -----------------------------------------------------------------------------------------

_NEGATION = {"not", "no", "never", "don't", "doesn't", "isn't", "aren't", "won't", "can't", "cannot", "shouldn't",
             "mustn't", "without", "avoid", "instead"}  # fmt: skip


def normalised(text: str) -> str:
    return " ".join(words(text))


def word_overlap(a: str, b: str) -> float:
    sa, sb = set(words(a)), set(words(b))
    return len(sa & sb) / len(sa | sb) if sa and sb else 0.0


def _same_claim(a: str, b: str) -> bool:
    """Similar wording can still state a different fact: another number, or the opposite."""
    wa, wb = set(words(a)), set(words(b))
    numbers_a = {w for w in wa if any(ch.isdigit() for ch in w)}
    numbers_b = {w for w in wb if any(ch.isdigit() for ch in w)}
    return numbers_a == numbers_b and bool(wa & _NEGATION) == bool(wb & _NEGATION)


def _scope(project: str | None):
    rows = Memory.objects.filter(status=Status.ACTIVE)
    return rows.filter(project=project) if project else rows.filter(project__isnull=True)


def find_duplicate(*, content: str, project: str | None, vector=None) -> tuple[Memory, str, float] | None:
    """The memory in the same scope saying the same thing: (memory, how, similarity), or None."""
    embedder = get_embedder()
    keyword_ids, vector_hits = similar_in_scope(
        content=content, vector=vector, model_id=embedder.model_id, project=project, limit=50
    )
    ids = set(keyword_ids) | set(vector_hits)
    if not ids:
        return None
    best: tuple[Memory, str, float] | None = None
    target = normalised(content)
    for memory in _scope(project).filter(pk__in=ids).order_by("pk"):
        if normalised(memory.content) == target:
            return memory, "same text", 1.0
        if not _same_claim(content, memory.content):
            continue
        overlap = word_overlap(content, memory.content)
        cosine = vector_hits.get(memory.pk, 0.0) if memory.embed_model == embedder.model_id else 0.0
        candidates = []
        if overlap >= settings.MEMORYHUB_GATE_WORD_OVERLAP:
            candidates.append(("nearly the same words", overlap))
        if cosine >= settings.MEMORYHUB_GATE_DUPLICATE_COSINE:
            candidates.append(("the same meaning", cosine))
        for how, similarity in candidates:
            if best is None or similarity > best[2]:
                best = (memory, how, similarity)
    return best


def _fold(memory: Memory, fields: dict[str, Any], explicit: set[str]) -> dict[str, Any]:
    """What the new write adds to the existing memory: new tags and metadata keys, a missing category or tier."""
    changes: dict[str, Any] = {}
    new_tags = [t for t in fields.get("tags") or [] if t not in memory.tags]
    if new_tags:
        changes["tags"] = list(memory.tags) + new_tags
    new_meta = {k: v for k, v in (fields.get("metadata") or {}).items() if k not in memory.metadata}
    if new_meta:
        changes["metadata"] = dict(memory.metadata) | new_meta
    for name in ("category", "tier"):
        if name in explicit and fields.get(name) and not getattr(memory, name):
            changes[name] = fields[name]
    return changes


# --- the gate ------------------------------------------------------------------------------------------------

# Check-then-create must not interleave in one process, or two identical posts both pass the duplicate check.
_write_lock = threading.Lock()


def _log(decision: str, *, reason: str, kind: str, content: str, payload: dict, project, source, memory=None):
    return GateLogEntry.objects.create(
        decision=decision, reason=reason, kind=kind, content=content, payload=payload, project=project,
        source=source, memory=memory,
    )  # fmt: skip


def gate_write(
    *,
    content: Any,
    project: Any = None,
    category: Any = None,
    tier: Any = None,
    tags: Any = None,
    metadata: Any = None,
    importance: Any = None,
    source: str = "",
) -> GateResult:
    """Check a write and do what the check decides. Raises ValidationError for bad fields (nothing written)."""
    raw = {"content": content, "project": project, "category": category or "", "tier": tier or ""}
    raw |= {"tags": tags or [], "metadata": metadata or {}, "importance": 0.5 if importance is None else importance}
    fields = clean_fields(raw)
    explicit = {name for name, value in (("category", category), ("tier", tier)) if value}
    text = fields["content"]
    project = fields["project"]
    payload = {k: fields[k] for k in ("category", "tier", "tags", "metadata", "importance")}

    extras = json.dumps([fields["tags"], fields["metadata"]], ensure_ascii=False)
    found = find_secrets(text) + [(kind, -1, -1) for kind, _, _ in find_secrets(extras)]
    if found:
        kinds = list(dict.fromkeys(kind for kind, _, _ in found))
        reason = (
            f"refused: the text holds a secret ({', '.join(kinds)}); nothing was stored. Store where the secret "
            "lives (a vault path, an environment variable name), never its value"
        )
        safe_payload = {k: payload[k] for k in ("category", "tier", "importance")} | {"redacted": True}
        entry = _log(
            GateDecision.REJECTED, reason=reason, kind="secret", content=redact(text, [f for f in found if f[1] >= 0]),
            payload=safe_payload, project=project, source=source,
        )  # fmt: skip
        return GateResult("rejected", None, reason, kind="secret", log_entry=entry)

    why = noise_reason(text)
    if why:
        reason = f"refused: {why}"
        entry = _log(GateDecision.REJECTED, reason=reason, kind="noise", content=text, payload=payload,
                     project=project, source=source)  # fmt: skip
        return GateResult("rejected", None, reason, kind="noise", log_entry=entry)

    guessed = []
    if not fields["category"]:
        fields["category"] = guess_category(text)
        if fields["category"]:
            guessed.append(f"category guessed: {fields['category']}")
    if not fields["tier"]:
        fields["tier"] = guess_tier(text, fields["category"])
        if fields["tier"]:
            guessed.append(f"tier guessed: {fields['tier']}")
    warning = multi_fact_warning(text)
    warnings = [warning] if warning else []

    embedder = get_embedder()
    vector = embedder.embed([text])[0]
    vector_index.prepare(embedder.model_id, embedder.dimensions)  # not under the write lock below
    # The twin is looked for inside the write transaction: IMMEDIATE takes SQLite's write lock at BEGIN,
    # so a second server process on the same store waits here instead of storing the same fact beside it.
    with _write_lock, transaction.atomic():
        duplicate = find_duplicate(content=text, project=project, vector=vector)
        if duplicate is not None:
            existing, how, similarity = duplicate
            changes = _fold(existing, fields, explicit)
            with transaction.atomic():
                if changes:
                    update_memory(memory=existing, changes=changes, actor=source, action="merged")
                reinforce(memory_ids=[existing.pk])
            existing.refresh_from_db()
            outcome = "merged" if changes else "duplicate"
            detail = f"{how}, similarity {similarity:.2f}" if how != "same text" else how
            if changes:
                reason = (
                    f"merged into memory #{existing.pk} ({detail}): added {', '.join(sorted(changes))}; reinforced it"
                )
            else:
                reason = f"duplicate of memory #{existing.pk} ({detail}); reinforced it instead of storing a twin"
            entry = _log(
                GateDecision.MERGED if changes else GateDecision.DUPLICATE, reason=reason, kind="duplicate",
                content=text, payload=payload, project=project, source=source, memory=existing,
            )  # fmt: skip
            return GateResult(outcome, existing, reason, kind="duplicate", warnings=warnings, log_entry=entry)

        memory = create_memory(
            content=text, project=project, category=fields["category"], tier=fields["tier"], tags=fields["tags"],
            metadata=fields["metadata"], importance=fields["importance"], source=source, vector=vector,
        )  # fmt: skip
    reason = "stored as a new memory" + (f" ({'; '.join(guessed)})" if guessed else "")
    entry = None
    if warnings:
        entry = _log(GateDecision.WARNED, reason=warnings[0], kind="multi_fact", content=text, payload=payload,
                     project=project, source=source, memory=memory)  # fmt: skip
    return GateResult("created", memory, reason, warnings=warnings, log_entry=entry)


def secret_kinds(*, content: str = "", tags: Any = None, metadata: Any = None) -> list[str]:
    """The kinds of secret in a write's text, tags and metadata (never the secrets themselves)."""
    extras = json.dumps([tags or [], metadata or {}], ensure_ascii=False, default=str)
    return list(dict.fromkeys(kind for kind, _, _ in find_secrets(content or "") + find_secrets(extras)))


def edit_memory(*, memory: Memory, changes: dict[str, Any], actor: str) -> Memory:
    """An edit by an agent: field checks as for any write, and no secret may come in through it."""
    if not changes:
        raise ValidationError({"non_field_errors": "nothing to change: send at least one field"})
    kinds = secret_kinds(
        content=changes.get("content") or "", tags=changes.get("tags"), metadata=changes.get("metadata")
    )
    if kinds:
        field = (
            "content"
            if secret_kinds(content=changes.get("content") or "")
            else ("tags" if secret_kinds(tags=changes.get("tags")) else "metadata")
        )
        raise ValidationError({field: f"refused: it holds a secret ({', '.join(kinds)}); nothing was changed"})
    return update_memory(memory=memory, changes=changes, actor=actor)


def promote_gate_entry(*, entry: GateLogEntry, actor: str) -> Memory:
    """A person overrules the gate: store a refused or folded write as a memory of its own."""
    if entry.promoted_to_id is not None:
        raise ValidationError(f"this write was already promoted to memory #{entry.promoted_to_id}")
    if entry.kind == "secret":
        raise ValidationError("a refused secret cannot be promoted: its value was never kept")
    if entry.decision == GateDecision.WARNED:
        raise ValidationError(
            "this write was stored already" + (f" as memory #{entry.memory_id}" if entry.memory_id else "")
        )
    payload = entry.payload or {}
    content = entry.content.strip()
    vector = get_embedder().embed([content])[0]  # before the write lock, never under it
    with transaction.atomic():
        memory = create_memory(
            content=content, vector=vector, project=entry.project, category=payload.get("category") or "",
            tier=payload.get("tier") or "", tags=payload.get("tags") or [], metadata=payload.get("metadata") or {},
            importance=payload.get("importance"), source=entry.source, actor=actor,
        )  # fmt: skip
        entry.promoted_to = memory
        entry.save(update_fields=["promoted_to"])
    return memory
