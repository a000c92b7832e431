"""Removing secrets that are already in the store (written before a rule caught their kind).

`memories.store.scrub_history` redacts the history events of some memories (an edit that replaces a secret calls it);
`scrub_store` (`python manage.py scrub`) goes through everything the store keeps in text: memories (content,
tags, metadata, source), their history, the gate log, consolidation proposals and usage records; replaces every
secret span with `[REDACTED <kind>, <n> chars]`, re-embeds the memories whose text changed, rebuilds the keyword indexes
(FTS5 keeps its own copy of the words) and vacuums, so no freed page or WAL frame keeps the old bytes
(`secure_delete` is on for every connection as well).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection, transaction

from memoryhub.memories.secrets import redact_rows
from memoryhub.memories.store import record_event, reembed, scrub_history
from memoryhub.models import GateLogEntry, Memory, Proposal, UsageRecord
from memoryhub.storage import sql


@dataclass
class ScrubReport:
    memories: list[int] = field(default_factory=list)
    events: int = 0
    gate_log: int = 0
    proposals: int = 0
    usage: int = 0
    reembedded: int = 0
    vacuumed: bool = False

    @property
    def total(self) -> int:
        return len(self.memories) + self.events + self.gate_log + self.proposals + self.usage


def scrub_store(*, vacuum: bool = True) -> ScrubReport:
    """Find and remove every stored secret; see the module docstring. Safe to run again (it then changes nothing)."""

    report = ScrubReport()
    memories = redact_rows(Memory.objects.iterator(), ("content", "tags", "metadata", "source", "project"))
    with transaction.atomic():
        for memory in memories:
            # update(): the content trigger refreshes the FTS rows and drops the vector; reembed() below adds it.
            Memory.objects.filter(pk=memory.pk).update(
                content=memory.content, tags=memory.tags, metadata=memory.metadata, source=memory.source,
                project=memory.project, embed_model="",
            )  # fmt: skip
        report.memories = [m.pk for m in memories]
    report.events = scrub_history()
    with transaction.atomic():
        for memory in memories:
            record_event(memory.pk, "scrubbed", actor="scrub", note="a secret was removed from this memory")
    entries = redact_rows(GateLogEntry.objects.iterator(), ("content", "payload", "project"))
    with transaction.atomic():
        for entry in entries:
            entry.save(update_fields=["content", "payload", "project"])
    report.gate_log = len(entries)
    proposals = redact_rows(Proposal.objects.iterator(), ("content", "tags", "rationale"))
    with transaction.atomic():
        for proposal in proposals:
            proposal.save(update_fields=["content", "tags", "rationale"])
    report.proposals = len(proposals)
    # A secret sent as a project used to be counted in the usage records under its own name.
    usage = redact_rows(UsageRecord.objects.iterator(), ("project",))
    with transaction.atomic():
        for record in usage:
            record.save(update_fields=["project"])
    report.usage = len(usage)
    if memories:
        report.reembedded = reembed()
    if report.total:
        sql.fts_rebuild()
    if vacuum:
        vacuum_store()
        report.vacuumed = True
    return report


def vacuum_store() -> None:
    if connection.in_atomic_block:
        raise RuntimeError("VACUUM cannot run inside a transaction")
    sql.vacuum()
