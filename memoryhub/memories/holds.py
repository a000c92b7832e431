"""Writes held for a person: a planted instruction (memories/planted.py), or anything an untrusted token writes.

A held write is stored, not refused: it is answered 201 with its status `quarantined` and the reason, and it waits in
the dashboard's inbox, out of search, recall, the tools, MCP, the proxy and consolidation (they read active memories
only) until a person approves it (it becomes active) or discards it (it is deleted, its history kept). It neither
folds into nor supersedes an active memory: a planted text must not change what the store already holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from memoryhub.memories.chain import release_successors
from memoryhub.memories.fields import NewMemory
from memoryhub.memories.planted import ADDRESSED, PlantedVerdict, planted_instruction
from memoryhub.memories.planted_head import REASON as HEAD_REASON
from memoryhub.memories.planted_head import reads_as_a_rule, reads_as_planted
from memoryhub.memories.store import delete_memory, record_event, store_new
from memoryhub.models import Memory, Status

UNTRUSTED_REASON = "written by an untrusted source"


def hold_reason(text: str, *, trusted: bool = True, vector: np.ndarray | None = None, model_id: str = "") -> str | None:
    """Why a write must wait for a person, or None when it may be stored active. With the write's `vector` (and the
    model that made it), the planted head reads the text beside the rules (`planted_reason`)."""
    return _reason(planted_reason(text, vector=vector, model_id=model_id), trusted=trusted)


def _reason(planted: str | None, *, trusted: bool) -> str | None:
    why = []
    if planted:
        why.append(f"it reads as an instruction to the model rather than a fact: {planted}")
    if not trusted:
        why.append(UNTRUSTED_REASON)
    return "; ".join(why) or None


def planted_reason(text: str, *, vector: np.ndarray | None = None, model_id: str = "") -> str | None:
    """Why `text` reads as planted: a rule names an act, or the head is sure of it. A text the rules hold only for
    speaking to the model by name is let in when the head is as sure it is a team's rule for its agents."""
    return _planted(planted_instruction(text), text, vector, model_id)


def _planted(verdict: PlantedVerdict | None, text: str, vector: np.ndarray | None, model_id: str) -> str | None:
    """`planted_reason` given the rules' verdict on `text`."""
    if verdict is None:
        return HEAD_REASON if reads_as_planted(text, vector, model_id=model_id) else None
    if verdict.rule == ADDRESSED and reads_as_a_rule(text, vector, model_id=model_id):
        return None
    return verdict.reason


def hold_write(*, command: NewMemory, reason: str, vector: np.ndarray) -> Memory:
    """Store a write held for review (status quarantined, with why), in one transaction with its history."""
    with transaction.atomic():
        memory = store_new(command, vector=vector)
        Memory.objects.filter(pk=memory.pk).update(status=Status.QUARANTINED, held_reason=reason)
        memory.status, memory.held_reason = Status.QUARANTINED, reason
        record_event(memory.pk, "held", actor=command.source, before={"status": Status.ACTIVE},
                     after={"status": Status.QUARANTINED}, note=reason)  # fmt: skip
    return memory


def hold_edited(
    *, memory: Memory, actor: str, by_agent: bool, trusted: bool, reason: str | None = None,
    vector: np.ndarray | None = None,
) -> Memory:  # fmt: skip
    """After an edit: an agent's new text that reads as a planted instruction, or an untrusted token's edit, puts an
    active memory back under review (a person's own edit in the dashboard never does). With the memory's stored
    `vector`, the planted head reads the text too, as it reads a new write's."""
    if not by_agent or memory.status != Status.ACTIVE:
        return memory
    reason = reason or hold_reason(memory.content, trusted=trusted, vector=vector, model_id=memory.embed_model)
    if not reason:
        return memory
    with transaction.atomic():
        # What it superseded is not left replaced by a memory out of search: it comes back, as when one is archived.
        release_successors(memory_ids=[memory.pk], actor=actor, action="held")
        Memory.objects.filter(pk=memory.pk).update(status=Status.QUARANTINED, held_reason=reason)
        record_event(memory.pk, "held", actor=actor, before={"status": Status.ACTIVE},
                     after={"status": Status.QUARANTINED}, note=reason)  # fmt: skip
    memory.status, memory.held_reason = Status.QUARANTINED, reason
    return memory


@dataclass(frozen=True)
class Judged:
    """An imported text as the rules read it, while the model embeds it; `reason` completes the reading with the
    planted head once its vector is there, as a write's own is (`hold_reason`)."""

    text: str
    verdict: PlantedVerdict | None  # the rules' verdict, when the text is judged
    judge_text: bool
    trusted: bool

    def reason(self, vector: np.ndarray | None = None, model_id: str = "") -> str | None:
        planted = _planted(self.verdict, self.text, vector, model_id) if self.judge_text else None
        return _reason(planted, trusted=self.trusted)


def judge_imported(texts: list[str], *, trusted: bool, judge_text: bool) -> list[Judged]:
    """Each imported text read by the rules: an untrusted token's items all wait, and (`judge_text`, every import
    but a restore's) texts that read as planted instructions. The rules read the texts alone, so an import runs them
    while the model embeds; the head reads each text's vector once it is there (`Judged.reason`), and
    `hold_imported` applies the reasons once the items are stored."""
    return [Judged(text, planted_instruction(text) if judge_text else None, judge_text, trusted) for text in texts]


def hold_imported(*, memory_ids: list[int], actor: str, reasons: list[str | None]) -> list[int]:
    """After an import stored items as given: the active ones `judge_imported` gave a reason (`reasons`, in the
    order of `memory_ids`) wait for a person. Returns the ids held."""
    why = {mid: reason for mid, reason in zip(memory_ids, reasons, strict=True) if reason}
    held = []
    if not why:
        return held
    with transaction.atomic():
        for memory in Memory.objects.filter(pk__in=list(why), status=Status.ACTIVE).order_by("pk"):
            held.append(hold_edited(memory=memory, actor=actor, by_agent=True, trusted=True, reason=why[memory.pk]).pk)
    return held


def held_answer(memory: Memory) -> str:
    """The write's reason in its answer: what was stored and why it waits."""
    return f"stored as memory #{memory.pk}, held for a person's review (status quarantined): {memory.held_reason}"


def _held(memory: Memory) -> Memory:
    current = Memory.objects.filter(pk=memory.pk).first()
    if current is None or current.status != Status.QUARANTINED:
        raise ValidationError(f"memory #{memory.pk} is not held for review")
    return current


def approve_held(*, memory: Memory, actor: str) -> Memory:
    """A person lets a held memory in: it becomes active, in search and recall from now on."""
    with transaction.atomic():
        current = _held(memory)
        reason = current.held_reason or ""
        Memory.objects.filter(pk=current.pk).update(status=Status.ACTIVE, held_reason=None, updated_at=timezone.now())
        record_event(current.pk, "approved", actor=actor, before={"status": Status.QUARANTINED},
                     after={"status": Status.ACTIVE}, note=f"approved after review; held because {reason}")  # fmt: skip
    current.refresh_from_db()
    return current


def discard_held(*, memory: Memory, actor: str) -> None:
    """A person turns a held memory away: it is deleted (its history says who discarded it and why it was held)."""
    with transaction.atomic():
        current = _held(memory)
        record_event(current.pk, "discarded", actor=actor, note=f"discarded after review; held because "
                     f"{current.held_reason or ''}")  # fmt: skip
        delete_memory(memory=current, actor=actor)


def check_hold_edit(memory: Memory, status: Any) -> None:
    """An edit never moves a memory into or out of review: a person approves or discards it in the inbox."""
    if status is not None and status != memory.status and Status.QUARANTINED in (status, memory.status):
        raise ValidationError(
            {"status": "a held memory leaves review only when a person approves or discards it in the dashboard"}
        )


def held_memories():
    """The inbox: held memories, oldest first (the one selector the dashboard and the command read)."""
    return Memory.objects.filter(status=Status.QUARANTINED).order_by("created_at", "pk")
