"""The write gate: what an agent asks to store is checked before it becomes a memory.

In order: bad fields are a ValidationError (the caller answers 400); secrets are refused naming their kind
and never stored (the gate log keeps a redacted copy); noise is refused (diary lines, timestamps, command
output, text too short to be a fact); a near-duplicate in the same scope reinforces the existing memory
instead of adding a twin; otherwise the memory is created, with category and tier guessed when omitted and a
warning when the text seems to hold several facts. Refused, folded and warned writes go to the gate log.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from memoryhub import runtime
from memoryhub.embeddings import get_embedder, write_lane
from memoryhub.embeddings.write_lane import embed_for_storage
from memoryhub.memories.checking import set_expiry
from memoryhub.memories.details import NEGATIONS, added_details, fact_differences, normalise_word
from memoryhub.memories.fields import EDITABLE_FIELDS, NewMemory, clean_fields, new_memory
from memoryhub.memories.holds import check_hold_edit, held_answer, hold_edited, hold_reason, hold_write
from memoryhub.memories.rewording import compare
from memoryhub.memories.secrets import (
    WriteRefused,
    find_secrets,
    redact_label,
    refusal_message,
    secrets_in_fields,
)
from memoryhub.memories.store import create_memory, reinforce, store_new, update_memory
from memoryhub.memories.supersession import current_successor, queue_conflict
from memoryhub.memories.times import NUMBER_WORDS, normalise_times
from memoryhub.memories.traces import redact_refused, redact_refused_value
from memoryhub.memories.updates import Verdict
from memoryhub.memories.validity import mark_verified
from memoryhub.models import GateDecision, GateLogEntry, Memory, MemoryEvent, Status
from memoryhub.retrieval.search import similar_in_scope
from memoryhub.runtime import metrics
from memoryhub.storage import sql, vector_index
from memoryhub.writes import chatter_head
from memoryhub.writes.categories import guess_category, guess_tier
from memoryhub.writes.noise import judge_noise, noise_reason, words
from memoryhub.writes.update_gate import apply_updates, judge_neighbours


@dataclass
class GateResult:
    outcome: str  # created | merged | duplicate | rejected
    memory: Memory | None
    reason: str
    kind: str = ""  # why: secret, noise, duplicate, near_duplicate; held (stored for review); "" when created
    warnings: list[str] = field(default_factory=list)
    log_entry: GateLogEntry | None = None
    fields: dict[str, list[str]] = field(default_factory=dict)  # for a refused secret: {field path: [message]}
    supersedes: list[int] = field(default_factory=list)  # memories this write replaced (now superseded)
    conflicts: list[int] = field(default_factory=list)  # conflict proposals this write put to a person


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


# --- near-duplicates -----------------------------------------------------------------------------------------


def normalised(text: str) -> str:
    return " ".join(words(text))


def _spelling(word_list: list[str]) -> str:
    # "hand-over" and "handover", "e-mail" and "email": the same text spelt with other punctuation.
    return "".join(word_list)


def word_overlap(a: str, b: str) -> float:
    return _overlap(_word_set(words(a)), _word_set(words(b)))


def _word_set(word_list: list[str]) -> set[str]:
    # "the DB" and "the database", "tickets" and "an issue" are one word: a paraphrase keeps its overlap.
    return {normalise_word(w) for w in word_list}


def _overlap(sa: set[str], sb: set[str]) -> float:
    return len(sa & sb) / len(sa | sb) if sa and sb else 0.0


_UNIT_AFTER = re.compile(r"(?<=\d)(?:kb|mb|gb|tb|ms|px)$")


_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")


def _claim_words(text: str) -> list[str]:
    """The words a claim is read from: times of day written one way ("9am" / "09:00"), and no thousands separator
    ("10,000" / "10000")."""
    return words(_THOUSANDS.sub("", normalise_times(text)))


def _numbers(word_list: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The numbers a text writes in digits, and those it spells out ("three")."""
    # "09:45" and "9:45" are one time: a number's leading zeros say nothing; "10MB" says the number 10 (and a unit).
    written = {_UNIT_AFTER.sub("", w) for w in word_list if any(c.isdigit() for c in w)}
    digits = frozenset((w.lstrip("0") or "0") if w.isdigit() else w for w in written)
    return digits, frozenset(NUMBER_WORDS[w] for w in word_list if w in NUMBER_WORDS)


def _same_claim(own: list[str], theirs: list[str]) -> bool:
    """Similar wording can still state a different fact: another number, or the opposite. Two texts state the
    same claim only if they hold the same numbers and both or neither negate. A number spelt out is the number
    the other text writes in digits ("three" / "3"); beside no number in digits it is a word like any other."""
    (own_digits, own_spelt), (their_digits, their_spelt) = _numbers(own), _numbers(theirs)
    if own_digits | (own_spelt & their_digits) != their_digits | (their_spelt & own_digits):
        return False
    return bool(set(own) & NEGATIONS) == bool(set(theirs) & NEGATIONS)


def _scope(project: str | None, status: str = Status.ACTIVE):
    rows = Memory.objects.filter(status=status)
    return rows.filter(project=project) if project else rows.filter(project__isnull=True)


# Less close in meaning still folds when the two texts differ in no fact at all: no name, number, swapped word or
# negation one says and the other lacks (`details.fact_differences`); only the wording differs. The small model
# scores such rewordings 0.85-0.92 ("Notebooks are run by data scientists on JupyterHub").
REWORDED_COSINE = 0.85
# A paraphrase that rewords every word ("Test accounts are left out of the training set" / "The training set
# excludes test accounts") folds when, its rewording undone word by word (`rewording.compare`), no word of the write
# is left that the memory does not say, and the two are near enough in meaning to be about the same thing. The
# words decide; the model's similarity only confirms (the bundled model scores such pairs 0.80-0.95).
PARAPHRASE_COSINE = 0.78


def find_duplicate(
    *,
    content: str,
    project: str | None,
    vector=None,
    status: str = Status.ACTIVE,
    candidates: tuple[list[int], dict[int, float]] | None = None,
    skip: Collection[int] = (),
) -> tuple[Memory, str, float] | None:
    """The memory in the same scope (with this status) saying the same thing: (memory, how, similarity), or None.
    `candidates`: what `similar_in_scope` already found; `skip`: memories the update rules judged to state
    another value or another fact, which are never folded into unless they hold the very same text, or the same
    words in another wording (`rewording.compare`).

    Close is not enough: a write that says a detail the memory lacks (a name, number, version, qualifier, negation,
    list item, condition or unit: `details.added_details`), or a word beside all the memory's words even in other
    wording (`rewording.compare`), is no duplicate, however near in meaning, and is stored beside it. Only a write
    that adds nothing (a repeat, a paraphrase, a shorter version) is folded."""
    embedder = get_embedder()
    if candidates is None:
        candidates = similar_in_scope(
            content=content, vector=vector, model_id=embedder.model_id, project=project, limit=50, status=status
        )
    keyword_ids, vector_hits = candidates
    ids = set(keyword_ids) | set(vector_hits)
    if not ids:
        return None
    best: tuple[int, str, float] | None = None
    own = words(content)
    own_numbers = _claim_words(content)
    target, own_set = _spelling(own), _word_set(own)
    # Plain columns, each text split into words once: the gate runs inside the write transaction, and building up
    # to 100 model instances and splitting each text three times held every other writer that much longer.
    rows = _scope(project, status).filter(pk__in=ids).order_by("pk").values_list("pk", "content", "embed_model")
    for pk, text, embed_model in rows:
        theirs = words(text)
        if _spelling(theirs) == target:  # the same text is a repeat whatever the update rules read into it
            return Memory.objects.get(pk=pk), "same text", 1.0
        # The update rules read a rewording as another value at times ("removed" / "dropped", "daily" / "every
        # day"); a text that says every word of the other, in some wording, states no other value.
        if pk in skip and not compare(content, than=text).says_the_same:
            continue
        their_set = _word_set(theirs)
        if not _same_claim(own_numbers, _claim_words(text)):
            continue
        overlap = _overlap(own_set, their_set)
        cosine = vector_hits.get(pk, 0.0) if embed_model == embedder.model_id else 0.0
        for how, similarity in _ways_alike(content, text, overlap=overlap, cosine=cosine):
            if best is None or similarity > best[2]:
                best = (pk, how, similarity)
    if best is None:
        return None
    return Memory.objects.get(pk=best[0]), best[1], best[2]


def _ways_alike(content: str, text: str, *, overlap: float, cosine: float) -> list[tuple[str, float]]:
    """The ways a write says what a stored text says, each (how, similarity); none when it says more, or is not
    near enough by words or meaning. The word rules run only for a text near enough: they are the gate's slow part."""
    if overlap < settings.MEMORYHUB_GATE_WORD_OVERLAP and cosine < min(PARAPHRASE_COSINE, REWORDED_COSINE):
        return []
    # A name or a negation the memory lacks; the words the write adds are judged with its rewording undone.
    if added_details(content, than=text, words_too=False):
        return []
    rewording = compare(content, than=text)
    if rewording.fixed:  # a name, number or restriction the memory does not say
        return []
    if rewording.swaps_a_value:
        # "Logs are kept for a month" / "... for a week": the model scores such pairs as close as a repeat (0.92-0.98),
        # and folding the write would lose the value it states. It is stored beside the memory instead, where the
        # update rules may ask a person which holds.
        return []
    if not rewording.only_reworded:
        # A word beside all the memory says is a detail. Read as one statement by the model, a rewording one word
        # longer than the words it stands for ("due within" / "payment terms on") is still a rewording.
        longer_by_one = rewording.lacking and len(rewording.unsaid) == len(rewording.lacking) + 1
        if longer_by_one and cosine >= settings.MEMORYHUB_GATE_DUPLICATE_COSINE:
            return [("the same meaning", cosine)]
        return _carried_by_the_wording(content, text, rewording.unsaid, cosine=cosine)
    ways = []
    if overlap >= settings.MEMORYHUB_GATE_WORD_OVERLAP:
        ways.append(("nearly the same words", overlap))
    if cosine >= settings.MEMORYHUB_GATE_DUPLICATE_COSINE:
        ways.append(("the same meaning", cosine))
    elif cosine >= PARAPHRASE_COSINE and rewording.adds_nothing:
        ways.append(("the same meaning, reworded", cosine))
    elif cosine >= REWORDED_COSINE and not fact_differences([content, text]):
        ways.append(("the same meaning, reworded", cosine))
    return ways or _carried_by_the_wording(content, text, rewording.unsaid, cosine=cosine)


# How much nearer the memory a write must come without its unsaid words for them to be a detail: a detail taken out
# brings the write closer to the memory that lacks it; a paraphrase's own words taken out leave a broken sentence
# that moves away from it (the development fold pairs: details +0.015 to +0.25, all but three above 0; paraphrases
# the word rules leave open -0.12 to +0.12). Only a write that moves this far away folds.
WORDING_DROP = -0.02


def _carried_by_the_wording(content: str, text: str, unsaid: tuple[str, ...], *, cosine: float) -> list:
    """The write's words the memory does not say, read by the model: taken out of the write, does it move away from
    the memory (they were its wording) rather than nearer (they were a detail)?"""
    if not unsaid or cosine < PARAPHRASE_COSINE:
        return []
    without = content
    for word in sorted(unsaid, key=len, reverse=True):
        without = re.sub(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", " ", without)
    vectors = get_embedder().embed([content, " ".join(without.split()), text])
    moved = float(vectors[1] @ vectors[2]) - float(vectors[0] @ vectors[2])
    if moved <= WORDING_DROP:
        return [("the same meaning, in other words", float(vectors[0] @ vectors[2]))]
    return []


def _fold(memory: Memory, command: NewMemory, explicit: set[str]) -> dict[str, Any]:
    """What the new write adds to the existing memory: new tags and metadata keys, a missing category or tier."""
    changes: dict[str, Any] = {}
    new_tags = [t for t in command.tags if t not in memory.tags]
    if new_tags:
        changes["tags"] = list(memory.tags) + new_tags
    new_meta = {k: v for k, v in command.metadata.items() if k not in memory.metadata}
    if new_meta:
        changes["metadata"] = dict(memory.metadata) | new_meta
    for name in ("category", "tier"):
        if name in explicit and getattr(command, name) and not getattr(memory, name):
            changes[name] = getattr(command, name)
    return changes


# --- the gate ------------------------------------------------------------------------------------------------


def _log(decision: str, *, reason: str, kind: str, content: str, payload: dict, project, source, memory=None):
    return GateLogEntry.objects.create(
        decision=decision, reason=reason, kind=kind, content=content, payload=payload, project=project,
        source=source, memory=memory,
    )  # fmt: skip


def gate_write(**fields: Any) -> GateResult:
    """`admit` a write given as the keyword fields of `fields.new_memory` (content, project, category, tier, tags,
    metadata, importance, source, valid_from, valid_to, expires_at, trusted), checked once there. Raises
    ValidationError for bad fields (nothing written)."""
    return admit(new_memory(**fields))


def admit(command: NewMemory) -> GateResult:
    """Judge a checked write (`fields.new_memory`: its form checked, not yet its secrets) and do what it decides:
    refuse it, fold it into its twin, or store it (superseding what it replaces)."""
    # One write at a time through the gate when the model runs here, after the searches running (runtime/turns.py).
    with runtime.write_turn(exclusive=write_lane.uses_lane(get_embedder())):
        result = _admit(command)
    metrics.count_write_outcome(result.outcome, superseded=len(result.supersedes), conflicts=len(result.conflicts))
    return result


def _admit(command: NewMemory) -> GateResult:
    text, project, source = command.content, command.project, command.source
    explicit = {name for name in ("category", "tier") if getattr(command, name)}
    payload = {k: getattr(command, k) for k in ("category", "tier", "tags", "metadata", "importance")}

    found = secrets_in_fields(command.searched_for_secrets())
    if found:
        return _refuse_secret(command, found, payload=payload)

    embedder = get_embedder()
    vector = embed_for_storage([text])[0]  # the one embedding of the write: noise, the twin check and the row use it
    why = judge_noise(text, vector=vector, model_id=embedder.model_id)
    if why == chatter_head.REASON and restates_a_stored_fact(
        text=text, project=project, vector=vector, model_id=embedder.model_id, valid_from=command.valid_from
    ):
        why = None  # the head's reading alone refused it, and chatter does not restate a stored fact's slot
    if why:
        return _refuse_noise(why, text=text, payload=payload, project=project, source=source)

    command, guessed = _guess_missing(command)
    warning = multi_fact_warning(text)
    warnings = [warning] if warning else []

    held = hold_reason(text, trusted=command.trusted, vector=vector, model_id=embedder.model_id)
    if held:  # a person decides: nothing folded into, nothing superseded
        return _held(command, held, vector=vector, warnings=warnings)
    vector_index.prepare(embedder.model_id, embedder.dimensions)  # not under the write lock below
    runtime.yield_to_searches()  # before the duplicate check and the insert, the write's other heavy part
    # The twin is looked for inside the write transaction, which writers enter one at a time, in this process and in
    # every other (SQLite: IMMEDIATE takes the write lock at BEGIN, behind the process's writer slot; PostgreSQL: the
    # twin check's advisory lock), so a second write waits here instead of storing the same fact beside it.
    with transaction.atomic():
        sql.serialize_writes("twin-check")
        candidates = similar_in_scope(
            content=text, vector=vector, model_id=embedder.model_id, project=project, limit=50
        )
        verdicts = judge_neighbours(text=text, project=project, candidates=candidates,
                                    valid_from=command.valid_from)  # fmt: skip
        # A memory the update rules judged to hold another value, or to be another fact, is never folded into.
        skip = {v.memory_id for v in verdicts if v.verdict != Verdict.NONE}
        duplicate = find_duplicate(content=text, project=project, vector=vector, candidates=candidates, skip=skip)
        # Only a scope holding superseded memories pays for the second look.
        if duplicate is None and _scope(project, Status.SUPERSEDED).exists():
            repeated = find_duplicate(content=text, project=project, vector=vector, status=Status.SUPERSEDED)
            if repeated is not None:
                return _repeat_of_superseded(repeated[0], text=text, payload=payload, project=project,
                                             source=source, warnings=warnings)  # fmt: skip
        if duplicate is not None:
            return _fold_into_twin(duplicate, command, explicit, payload=payload, warnings=warnings)

        memory = store_new(command, vector=vector)
        update = apply_updates(memory=memory, verdicts=verdicts, actor=source)
    return _explain_created(memory, update, guessed=guessed, warnings=warnings, text=text, payload=payload,
                            project=project, source=source)  # fmt: skip


def restates_a_stored_fact(
    *, text: str, project: str | None, vector: Any, model_id: str, valid_from: datetime | None = None
) -> bool:
    """Does the write give another value of a fact its scope holds ("Coding font: Berkeley Mono at 14 pt." beside
    "Coding font: JetBrains Mono at 14 pt.")? Asked only of a write the chatter head alone would refuse (the gate,
    and its dry run): a short change of a stored fact reads like chatter to it, and losing the change loses the
    fact."""
    candidates = similar_in_scope(content=text, vector=vector, model_id=model_id, project=project)
    verdicts = judge_neighbours(text=text, project=project, candidates=candidates, valid_from=valid_from)
    return any(v.verdict in (Verdict.SUPERSEDE, Verdict.CONFLICT) for v in verdicts)


def _held(command: NewMemory, reason: str, *, vector: Any, warnings: list[str]) -> GateResult:
    memory = hold_write(command=command, reason=reason, vector=vector)
    return GateResult("created", memory, held_answer(memory), kind="held", warnings=warnings)


def _refuse_noise(why: str, *, text: str, payload: dict, project: str | None, source: str) -> GateResult:
    reason = f"refused: {why}"
    entry = _log(GateDecision.REJECTED, reason=reason, kind="noise", content=text, payload=payload,
                 project=project, source=source)  # fmt: skip
    return GateResult("rejected", None, reason, kind="noise", log_entry=entry)


def _guess_missing(command: NewMemory) -> tuple[NewMemory, list[str]]:
    """A category and tier the writer left out, guessed from the text; what was guessed, for the write's reason."""
    guessed = []
    category = command.category or guess_category(command.content)
    if category and not command.category:
        guessed.append(f"category guessed: {category}")
    tier = command.tier or guess_tier(command.content, category)
    if tier and not command.tier:
        guessed.append(f"tier guessed: {tier}")
    return replace(command, category=category, tier=tier), guessed


def _fold_into_twin(
    duplicate: tuple[Memory, str, float], command: NewMemory, explicit: set[str], *, payload: dict,
    warnings: list[str],
) -> GateResult:  # fmt: skip
    """Store nothing new: add to the twin what the write brings (merged) or only reinforce it (duplicate)."""
    existing, how, similarity = duplicate
    source = command.source
    changes = _fold(existing, command, explicit)
    # The same fact said again with another end ("the freeze lasts until ..."): the stored fact takes the new one.
    moves_expiry = command.expires_at is not None and command.expires_at != existing.expires_at
    with transaction.atomic():
        if changes:
            update_memory(memory=existing, changes=changes, actor=source, action="merged")
        if moves_expiry:
            set_expiry(memory=existing, expires_at=command.expires_at, actor=source)
        reinforce(memory_ids=[existing.pk])
        mark_verified(memory_ids=[existing.pk])  # an agent wrote the fact again: it still holds
    existing.refresh_from_db()
    added = sorted([*changes, *(["expires_at"] if moves_expiry else [])])
    outcome = "merged" if added else "duplicate"
    detail = f"{how}, similarity {similarity:.2f}" if how != "same text" else how
    if added:
        reason = f"merged into memory #{existing.pk} ({detail}): added {', '.join(added)}; reinforced it"
    else:
        reason = f"duplicate of memory #{existing.pk} ({detail}); reinforced it instead of storing a twin"
        # Nothing of the memory changed, but its history says the gate folded a twin into it (who, why).
        MemoryEvent.objects.create(
            memory_id=existing.pk, action="reinforced", actor=source, note=f"duplicate, reinforced: {detail}"
        )
    entry = _log(
        GateDecision.MERGED if added else GateDecision.DUPLICATE, reason=reason, kind="duplicate",
        content=command.content, payload=payload, project=command.project, source=source, memory=existing,
    )  # fmt: skip
    return GateResult(outcome, existing, reason, kind="duplicate", warnings=warnings, log_entry=entry)


def _explain_created(
    memory: Memory, update, *, guessed: list[str], warnings: list[str], text: str, payload: dict,
    project: str | None, source: str,
) -> GateResult:  # fmt: skip
    reason = "stored as a new memory" + (f" ({'; '.join(guessed)})" if guessed else "")
    if update.notes:
        reason += "; " + "; ".join(update.notes)
    entry = None
    if warnings:
        entry = _log(GateDecision.WARNED, reason=warnings[0], kind="multi_fact", content=text, payload=payload,
                     project=project, source=source, memory=memory)  # fmt: skip
    return GateResult("created", memory, reason, warnings=warnings, log_entry=entry, supersedes=update.superseded,
                      conflicts=update.proposals)  # fmt: skip


def _repeat_of_superseded(
    old: Memory, *, text: str, payload: dict, project: str | None, source: str, warnings: list[str]
) -> GateResult:
    """A write repeating a superseded fact: not revived, not reinforced; a person decides which is current (the
    fact may have changed back)."""
    successor = current_successor(old)
    proposal = None
    if successor.pk != old.pk:
        proposal = queue_conflict(older=old, newer=successor, actor=source,
                                  reason=f"a write repeated #{old.pk}, which #{successor.pk} superseded")  # fmt: skip
    reason = f"repeats memory #{old.pk}, which memory #{successor.pk} superseded; not revived or reinforced" + (
        f"; asked a person which is current (proposal #{proposal.pk})" if proposal else ""
    )
    entry = _log(GateDecision.DUPLICATE, reason=reason, kind="superseded", content=text, payload=payload,
                 project=project, source=source, memory=old)  # fmt: skip
    conflicts = [proposal.pk] if proposal else []
    return GateResult("duplicate", old, reason, kind="duplicate", warnings=warnings, log_entry=entry,
                      conflicts=conflicts)  # fmt: skip


def _refuse_secret(command: NewMemory, found: dict[str, list[str]], *, payload: dict) -> GateResult:
    """Log a refused secret with every secret span redacted (the kind and length kept, the value never)."""
    kinds = [kind for path_kinds in found.values() for kind in path_kinds]
    reason = refusal_message(kinds)
    text = command.content
    spans = [{"field": "content", "kind": f.kind, "length": f.end - f.start} for f in find_secrets(text)]
    spans += [{"field": path, "kind": k} for path, path_kinds in found.items() if path != "content" for k in path_kinds]
    safe_payload = {k: payload[k] for k in ("category", "tier", "importance")} | {
        "tags": [redact_label(t) for t in payload["tags"]], "metadata": redact_refused_value(payload["metadata"]),
        "redacted": True, "secrets": spans,
    }  # fmt: skip
    project = redact_label(command.project) if command.project else command.project
    entry = _log(GateDecision.REJECTED, reason=reason, kind="secret", content=redact_refused(text),
                 payload=safe_payload, project=project, source=command.source)  # fmt: skip
    fields = {path: [refusal_message(path_kinds)] for path, path_kinds in found.items()}
    return GateResult("rejected", None, reason, kind="secret", log_entry=entry, fields=fields)


def refuse_noise(content: Any) -> None:
    """New text for an existing memory (an edit, a proposal accepted with other words) passes the noise rules
    too: WriteRefused (422) naming why. Only promoting a refused write overrules them (a person's decision)."""
    if isinstance(content, str) and content.strip():
        why = noise_reason(content)
        if why:
            raise WriteRefused({"content": f"refused: {why}; nothing was changed"}, kind="noise")


# The event an edit leaves in a memory's history: an agent's edit, a person's new text, a person's retag.
EditAction = Literal["updated", "edited", "retagged"]


def edit_memory(
    *, memory: Memory, changes: dict[str, Any], actor: str, action: EditAction = "updated", trusted: bool = True
) -> Memory:
    """The one edit, whoever makes it (the API, the agents' tools, the dashboard's edit and retag forms).

    Only the editable fields change, each checked as for any write; a secret in any field is refused (422) by
    `clean_fields`, before the noise rules judge new text, with nothing changed. New text is re-embedded, and one
    history event named `action` records what was there before (`store.update_memory`). Supersession is not an
    edit: a memory becomes superseded only when a newer one replaces it, and leaves that state by a restore,
    which also unlinks its successor. An agent's edit (`updated`) that plants an instruction, or any edit by an
    untrusted token, sends the memory back to review (memories/holds.py)."""
    if not changes:
        raise ValidationError({"non_field_errors": "nothing to change: send at least one field"})
    _check_editable(memory, changes)
    if "content" in changes:
        clean_fields({"content": changes["content"]}, partial=True)  # a secret is named before noise
        refuse_noise(changes["content"])
    memory = update_memory(memory=memory, changes=changes, actor=actor, action=action)
    by_agent = action == "updated"
    # An agent's edit is read by the planted head as a new write is, with the vector its text was stored with.
    vector = sql.read_vectors([memory.pk], get_embedder().dimensions).get(memory.pk) if by_agent else None
    return hold_edited(memory=memory, actor=actor, by_agent=by_agent, trusted=trusted, vector=vector)


def _check_editable(memory: Memory, changes: dict[str, Any]) -> None:
    """What an edit may change: the editable fields, and a status other than supersession's."""
    unknown = sorted(set(changes) - set(EDITABLE_FIELDS))
    if unknown:
        editable = ", ".join(EDITABLE_FIELDS)
        raise ValidationError({name: f"cannot be edited; the editable fields are {editable}" for name in unknown})
    status = changes.get("status")
    check_hold_edit(memory, status)
    if status is None or status == memory.status:
        return
    if status == Status.SUPERSEDED:
        raise ValidationError({"status": "a memory becomes superseded only when a newer memory replaces it"})
    if memory.status == Status.SUPERSEDED:
        raise ValidationError(
            {"status": f"memory #{memory.pk} is superseded: restore it, which also unlinks the memory that replaced it"}
        )


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
    vector = embed_for_storage([content])[0]  # before the write lock, never under it
    with transaction.atomic():
        memory = create_memory(
            content=content, vector=vector, project=entry.project, category=payload.get("category") or "",
            tier=payload.get("tier") or "", tags=payload.get("tags") or [], metadata=payload.get("metadata") or {},
            importance=payload.get("importance"), source=entry.source, actor=actor,
        )  # fmt: skip
        entry.promoted_to = memory
        entry.save(update_fields=["promoted_to"])
    return memory
