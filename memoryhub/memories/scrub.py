"""Removing secrets that are already in the store (written before a rule caught their kind).

`memories.store.scrub_history` redacts the history events of some memories (an edit that replaces a secret calls it);
`scrub_store` (`python manage.py scrub`) goes through everything the store keeps in text: memories (content,
tags, metadata, source), their history, the gate log (refused secrets' copies redacted again as a refusal redacts
now, `memories.traces`), consolidation proposals, usage records, tokens and roles (`SCRUBBED`); replaces every
secret span with `[REDACTED <kind>, <n> chars]`, re-embeds the memories whose text changed, rebuilds the keyword indexes
(FTS5 keeps its own copy of the words) and vacuums, so no freed page or WAL frame keeps the old bytes
(`secure_delete` is on for every connection as well).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection, transaction

from memoryhub.memories.secrets import redact_rows
from memoryhub.memories.store import record_event, reembed, scrub_history
from memoryhub.memories.traces import redact_refused, redact_refused_value
from memoryhub.models import (
    ApiToken,
    GateLogEntry,
    Membership,
    Memory,
    MemoryEvent,
    Proposal,
    UsageRecord,
    Webhook,
    WebhookDelivery,
)
from memoryhub.storage import sql


@dataclass
class ScrubReport:
    memories: list[int] = field(default_factory=list)
    events: int = 0
    gate_log: int = 0
    proposals: int = 0
    usage: int = 0
    other: int = 0  # tokens' names and projects, roles' projects
    reembedded: int = 0
    vacuumed: bool = False

    @property
    def total(self) -> int:
        return len(self.memories) + self.events + self.gate_log + self.proposals + self.usage + self.other


def scrub_store(*, vacuum: bool = True) -> ScrubReport:
    """Find and remove every stored secret; see the module docstring. Safe to run again (it then changes nothing)."""

    report = ScrubReport()
    fields = ("content", "tags", "metadata", "source", "project", "held_reason")
    memories = redact_rows(Memory.objects.iterator(), fields)
    with transaction.atomic():
        for memory in memories:
            # update(): the content trigger refreshes the FTS rows and drops the vector; reembed() below adds it.
            Memory.objects.filter(pk=memory.pk).update(
                content=memory.content, tags=memory.tags, metadata=memory.metadata, source=memory.source,
                project=memory.project, held_reason=memory.held_reason, embed_model="",
            )  # fmt: skip
        report.memories = [m.pk for m in memories]
    report.events = scrub_history()
    with transaction.atomic():
        for memory in memories:
            record_event(memory.pk, "scrubbed", actor="scrub", note="a secret was removed from this memory")
    report.events += _scrub_rows(MemoryEvent, SCRUBBED["memoryhub.MemoryEvent"])
    report.gate_log = _scrub_refused_entries()
    report.gate_log += _scrub_rows(GateLogEntry, SCRUBBED["memoryhub.GateLogEntry"])
    report.proposals = _scrub_rows(Proposal, SCRUBBED["memoryhub.Proposal"])
    # A secret sent as a project used to be counted in the usage records under its own name.
    report.usage = _scrub_rows(UsageRecord, SCRUBBED["memoryhub.UsageRecord"])
    report.other = _scrub_rows(ApiToken, SCRUBBED["memoryhub.ApiToken"])
    report.other += _scrub_rows(Membership, SCRUBBED["memoryhub.Membership"])
    report.other += _scrub_rows(Webhook, SCRUBBED["memoryhub.Webhook"])
    report.other += _scrub_rows(WebhookDelivery, SCRUBBED["memoryhub.WebhookDelivery"])
    if memories:
        report.reembedded = reembed()
    if report.total:
        sql.fts_rebuild()
    if vacuum:
        vacuum_store()
        report.vacuumed = True
    return report


# Every text column of the store's own tables that may hold what someone typed, by model; the other text columns
# hold a fixed choice, ids or a digest (NOT_FREE_TEXT). A test holds the two lists to the models, so a new column
# is scrubbed or named here. `memories` and history `before`/`after` are scrubbed above (they need more than a save).
SCRUBBED: dict[str, tuple[str, ...]] = {
    "memoryhub.MemoryEvent": ("actor", "note"),
    "memoryhub.GateLogEntry": ("content", "payload", "project", "reason", "source"),
    "memoryhub.Proposal": ("content", "tags", "rationale", "project", "decided_by", "generator", "source_marks"),
    "memoryhub.UsageRecord": ("agent", "project"),
    "memoryhub.ApiToken": ("name", "projects"),
    "memoryhub.Membership": ("project", "granted_by"),
    "memoryhub.Webhook": ("project", "created_by"),
    "memoryhub.WebhookDelivery": ("error",),
}
NOT_FREE_TEXT: dict[str, tuple[str, ...]] = {
    "memoryhub.Memory": ("category", "tier", "status", "embed_model"),
    "memoryhub.MemoryEvent": ("action",),
    "memoryhub.GateLogEntry": ("decision", "kind"),
    "memoryhub.Proposal": ("status", "kind", "choice", "sources", "cluster_key", "category", "tier"),
    "memoryhub.UsageRecord": ("kind",),
    "memoryhub.ApiToken": ("token_hash", "prefix"),
    "memoryhub.Membership": ("role",),
    # A hook's URL and signing secret are what deliveries need: kept as the operator gave them (docs/operations.md).
    "memoryhub.Webhook": ("url", "events", "secret"),
    "memoryhub.WebhookDelivery": ("event",),
}


def _scrub_rows(model, names: tuple[str, ...]) -> int:
    rows = redact_rows(model.objects.iterator(), names)
    with transaction.atomic():
        for row in rows:
            row.save(update_fields=list(names))
    return len(rows)


def _scrub_refused_entries() -> int:
    """Refused secrets logged before a refusal kept nothing beside the secret (an AWS secret next to its key id):
    their copies are redacted again the way a refusal redacts now (`memories.traces`)."""
    changed = []
    for entry in GateLogEntry.objects.filter(kind="secret").iterator():
        content, payload = redact_refused(entry.content), redact_refused_value(entry.payload)
        if (content, payload) != (entry.content, entry.payload):
            entry.content, entry.payload = content, payload
            changed.append(entry)
    with transaction.atomic():
        for entry in changed:
            entry.save(update_fields=["content", "payload"])
    return len(changed)


def vacuum_store() -> None:
    if connection.in_atomic_block:
        raise RuntimeError("VACUUM cannot run inside a transaction")
    sql.vacuum()
