"""Consolidation: clusters of memories that say the same thing become proposals a person accepts or rejects.

A proposal's text comes from the configured LLM when there is one, else (or when the LLM fails) from a
deterministic rule: the most informative source text, the union of the tags, the highest importance.
Accepting creates the merged memory and archives the sources (merged_into -> it) in one transaction; undo
brings the sources back as they were and archives the merged memory. `merge_memories` is the same merge for a
selection a person makes by hand, recorded as an accepted proposal so it can be undone the same way.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from memoryhub.consolidation.clustering import Cluster, cluster_key, find_clusters, word_set
from memoryhub.consolidation.update_pairs import StoredUpdate, find_update_pairs
from memoryhub.embeddings.write_lane import embed_for_storage
from memoryhub.judges.llm import ChatClient, LLMError, get_llm
from memoryhub.memories.chain import passed_back
from memoryhub.memories.details import dropped_details
from memoryhub.memories.lifecycle import archive
from memoryhub.memories.store import clean_fields, create_memory, record_event
from memoryhub.memories.supersession import decide_conflict, queue_conflict
from memoryhub.memories.updates import Verdict
from memoryhub.models import (
    Category,
    ConflictChoice,
    Memory,
    Proposal,
    ProposalKind,
    ProposalStatus,
    Status,
    Tier,
    source_mark,
)
from memoryhub.storage import sql
from memoryhub.writes.gate import refuse_noise

logger = logging.getLogger(__name__)

DETERMINISTIC = "deterministic"
MANUAL = "manual"
# After this many LLM failures in a row a run stops asking: a down endpoint must not cost a timeout per cluster.
LLM_FAILURES_BEFORE_GIVING_UP = 3


# --- proposal text -------------------------------------------------------------------------------------------


def _most_common(values: list[str], fallback: str) -> str:
    counted = Counter(v for v in values if v)
    if not counted:
        return ""
    best = max(counted.values())
    # Ties go to the value of the most informative memory.
    return fallback if counted.get(fallback) == best else sorted(v for v, n in counted.items() if n == best)[0]


def most_informative(memories: list[Memory]) -> Memory:
    """The memory that says the most: distinct content words, then length, then importance, then the oldest."""
    return max(memories, key=lambda m: (len(word_set(m.content)), len(m.content), m.importance, -m.pk))


def union_tags(memories: list[Memory]) -> list[str]:
    return list(dict.fromkeys(tag for m in sorted(memories, key=lambda m: m.pk) for tag in m.tags))


def deterministic_fields(memories: list[Memory]) -> dict[str, Any]:
    best = most_informative(memories)
    return {
        "content": best.content,
        "tags": union_tags(memories),
        "category": _most_common([m.category for m in memories], best.category),
        "tier": _most_common([m.tier for m in memories], best.tier),
        "importance": max(m.importance for m in memories),
    }


def _scope_name(project: str | None) -> str:
    return f"project {project}" if project else "the global scope"


def deterministic_rationale(cluster: Cluster, memories: list[Memory]) -> str:
    best = most_informative(memories)
    return (
        f"{len(memories)} memories in {_scope_name(cluster.project)} say nearly the same thing "
        f"(similarity at least {cluster.similarity:.2f}, {cluster.overlap:.0%} words shared); "
        f"kept the most informative text, #{best.pk}'s."
    )


SYSTEM_PROMPT = (
    "You consolidate the long-term memory of AI coding agents. You are given memories that were found to say the "
    "same or nearly the same thing. Write ONE memory that keeps every distinct, still-true fact they state, once, "
    "as a short standalone statement (no preamble, no mention of merging). Answer with a single JSON object and "
    'nothing else: {"content": string, "tags": [string], "category": string, "tier": string, "rationale": string}. '
    f"category is one of: {', '.join(Category.values)}. tier is one of: {', '.join(Tier.values)}. "
    "rationale is one short line saying why these belong together."
)


def flag_dropped_details(rationale: str, memories: list[Memory], content: str) -> str:
    """The rationale, flagged when the proposed text drops a detail a source says (a name, number, qualifier,
    negation, list item: the rule the gate folds by), so a person checks it before accepting."""
    dropped = dropped_details([m.content for m in memories], content)
    if not dropped:
        return rationale
    return f"{rationale} Check before accepting: the text drops {', '.join(dropped)}, which a source says.".strip()


def llm_fields(client: ChatClient, memories: list[Memory], fallback: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Ask the LLM for the merged memory; returns (fields, rationale). Raises LLMError on an unusable answer."""
    sources = [
        {"id": m.pk, "content": m.content, "category": m.category, "tier": m.tier, "tags": m.tags}
        for m in sorted(memories, key=lambda m: m.pk)
    ]
    answer = client.complete_json(
        [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": json.dumps({"memories": sources}, ensure_ascii=False)},
        ]
    )
    content = answer.get("content")
    if not isinstance(content, str) or not content.strip():
        raise LLMError("the LLM's answer has no merged content")
    if len(content) > settings.MEMORYHUB_MAX_CONTENT_CHARS:
        raise LLMError("the LLM's merged content is longer than a memory may be")
    tags = answer.get("tags")
    if not isinstance(tags, list) or not all(isinstance(t, str) and t.strip() for t in tags):
        tags = fallback["tags"]
    try:
        tags = clean_fields({"tags": [t.strip() for t in tags]}, partial=True)["tags"]
    except ValidationError:
        tags = fallback["tags"]
    category = answer.get("category") if answer.get("category") in Category.values else fallback["category"]
    tier = answer.get("tier") if answer.get("tier") in Tier.values else fallback["tier"]
    rationale = answer.get("rationale") if isinstance(answer.get("rationale"), str) else ""
    fields = {
        "content": content.strip(),
        "tags": tags,
        "category": category,
        "tier": tier,
        # Importance is earned by the sources, not asserted by the model.
        "importance": fallback["importance"],
    }
    return fields, " ".join(rationale.split())[:300]


# --- consolidation runs --------------------------------------------------------------------------------------


def _pending_source_ids() -> set[int]:
    ids: set[int] = set()
    for sources in Proposal.objects.filter(status=ProposalStatus.PENDING).values_list("sources", flat=True):
        ids.update(int(i) for i in sources)
    return ids


def _declined_sets() -> list[frozenset[int]]:
    """Clusters a person rejected or took apart again: neither they nor a part of them is proposed again."""
    declined = Proposal.objects.filter(status__in=[ProposalStatus.REJECTED, ProposalStatus.UNDONE])
    return [frozenset(int(i) for i in sources) for sources in declined.values_list("sources", flat=True)]


def _resolve_llm(llm: ChatClient | bool | None) -> tuple[ChatClient | None, str]:
    """The client to ask, and why there is none when the configuration is broken (shown on each proposal)."""
    if llm is False:
        return None, ""
    if llm is None or llm is True:
        try:
            return get_llm(), ""
        except LLMError as exc:
            logger.warning("consolidation: the configured LLM is unusable: %s", exc)
            return None, f"{DETERMINISTIC} (LLM failed: {exc})"[:200]
    return llm, ""


def run_consolidation(
    *, project: str | None = None, actor: str = "", llm: ChatClient | bool | None = None, limit: int | None = None
) -> list[Proposal]:
    """Find clusters and write a pending proposal for each new one. Returns the proposals made, oldest first.

    `project`: that project's memories only; None: every project and the global memories, each on its own.
    `llm`: a ChatClient to use, None for the configured one (if any), False for the deterministic path only.
    A cluster already proposed (whatever became of it), or inside one a person rejected, is not proposed again;
    memories waiting in a pending proposal are left out until it is decided.
    """
    close_stale_proposals()  # their sources are free again, and may cluster anew
    client, unusable = _resolve_llm(llm)
    limit = settings.MEMORYHUB_CONSOLIDATE_MAX_PROPOSALS if limit is None else limit
    scopes = None if project is None else [project]
    # A stale proposal's cluster may be proposed again: its texts changed since.
    proposed = Proposal.objects.exclude(status=ProposalStatus.STALE)
    known_keys = set(proposed.values_list("cluster_key", flat=True))
    declined = _declined_sets()
    pending_ids = _pending_source_ids()
    # Pairs where a newer memory replaces or contradicts an older one go to a person as conflicts, and are never
    # proposed as a merge: folding two texts that disagree would keep both values in one memory.
    updates = find_update_pairs(scopes=scopes, exclude_ids=pending_ids)
    disagreeing = {frozenset((u.older, u.newer)) for u in updates}
    made: list[Proposal] = _queue_stored_updates(updates, actor=actor, limit=limit)
    clusters = [
        c
        for c in find_clusters(scopes=scopes, exclude_ids=pending_ids)
        if c.key not in known_keys
        and not any(set(c.ids) <= d for d in declined)
        and not any(frozenset((a, b)) in disagreeing for a in c.ids for b in c.ids if a < b)
    ][: max(0, limit - len(made))]
    failures_in_a_row = 0
    for cluster in clusters:
        memories = list(Memory.objects.filter(pk__in=cluster.ids).order_by("pk"))
        fields = deterministic_fields(memories)
        rationale = deterministic_rationale(cluster, memories)
        generator = unusable or DETERMINISTIC
        if client is not None and failures_in_a_row >= LLM_FAILURES_BEFORE_GIVING_UP:
            generator = f"{DETERMINISTIC} (LLM skipped after {failures_in_a_row} failures in a row)"
        elif client is not None:
            try:
                fields, llm_rationale = llm_fields(client, memories, fields)
                rationale = llm_rationale or rationale
                generator = client.name
                failures_in_a_row = 0
            except LLMError as exc:
                failures_in_a_row += 1
                logger.warning("consolidation: LLM failed on cluster %s, deterministic text used: %s", cluster.key, exc)
                generator = f"{DETERMINISTIC} (LLM failed: {exc})"[:200]
        rationale = flag_dropped_details(rationale, memories, fields["content"])
        with transaction.atomic():
            sql.serialize_writes("consolidation")  # runs in other server processes check and create in turn
            # Another run may have proposed the same cluster while the LLM was thinking.
            if proposed.filter(cluster_key=cluster.key).exists():
                continue
            proposal = Proposal(
                sources=list(cluster.ids),
                cluster_key=cluster.key,
                project=cluster.project,
                rationale=rationale,
                generator=generator,
                **fields,
            )
            # The sources as they are now, read under the lock: an edit while the LLM was thinking makes it stale.
            proposal.mark_sources(list(Memory.objects.filter(pk__in=cluster.ids)))
            proposal.save()
            made.append(proposal)
    if made:
        logger.info("consolidation by %s: %d proposals", actor or "someone", len(made))
    return made


def _queue_stored_updates(updates: list[StoredUpdate], *, actor: str, limit: int) -> list[Proposal]:
    """A conflict proposal for each pair a person was never asked about, up to `limit`."""
    made: list[Proposal] = []
    for update in updates:
        if len(made) >= limit:
            break
        with transaction.atomic():
            sql.serialize_writes("consolidation")
            pair = Memory.objects.in_bulk([update.older, update.newer])
            if len(pair) < 2:
                continue
            what = "replaces" if update.verdict == Verdict.SUPERSEDE else "disagrees with"
            reason = f"found by consolidation: the newer {what} the older ({update.reason})"
            proposal = queue_conflict(older=pair[update.older], newer=pair[update.newer], reason=reason, actor=actor)
            if proposal is not None:
                made.append(proposal)
    return made


# --- merging, accepting, rejecting, undoing ------------------------------------------------------------------


def _load_sources(memory_ids: list[int]) -> list[Memory]:
    ids = sorted({int(i) for i in memory_ids})
    if len(ids) < 2:
        raise ValidationError({"memory_ids": "a merge needs at least two different memories"})
    memories = list(Memory.objects.filter(pk__in=ids).order_by("pk"))
    missing = sorted(set(ids) - {m.pk for m in memories})
    if missing:
        raise ValidationError({"memory_ids": f"no such memories: {', '.join(f'#{i}' for i in missing)}"})
    archived = [m.pk for m in memories if m.status != Status.ACTIVE]
    if archived:
        raise ValidationError(
            {"memory_ids": f"only active memories can be merged; archived: {', '.join(f'#{i}' for i in archived)}"}
        )
    if len({m.project for m in memories}) > 1:
        raise ValidationError({"memory_ids": "memories of different projects (or a project and global) never merge"})
    return memories


def _merge(
    *,
    memories: list[Memory],
    fields: dict[str, Any],
    actor: str,
    proposal: Proposal,
    vector: Any,
) -> Memory:
    """Inside the caller's transaction: the merged memory (its `vector` computed before the transaction opened),
    the sources archived into it, the events."""
    ids = [m.pk for m in memories]
    metadata: dict[str, Any] = {}
    for m in memories:
        for key, value in (m.metadata or {}).items():
            metadata.setdefault(key, value)
    metadata["merged_from"] = ids
    merged = create_memory(
        content=fields["content"],
        project=memories[0].project,
        category=fields["category"],
        tier=fields["tier"],
        tags=fields["tags"],
        metadata=metadata,
        importance=fields["importance"],
        confirmed=any(m.confirmed for m in memories),
        source=actor or "consolidation",
        actor=actor,
        vector=vector,
    )
    archive(
        memory_ids=ids,
        actor=actor,
        action="merged",
        merged_into=merged,
        note=f"merged into #{merged.pk} (proposal #{proposal.pk})",
    )
    record_event(
        merged.pk,
        "merged",
        actor=actor,
        after={"sources": ids},
        note=f"merged from {', '.join(f'#{i}' for i in ids)} (proposal #{proposal.pk})",
    )
    proposal.status = ProposalStatus.ACCEPTED
    proposal.merged_memory = merged
    proposal.decided_at = timezone.now()
    proposal.decided_by = actor
    proposal.save()
    return merged


def _clean_merge_fields(fields: dict[str, Any]) -> dict[str, Any]:
    cleaned = clean_fields({k: fields[k] for k in ("content", "category", "tier", "tags", "importance")})
    return {"category": "", "tier": "", "tags": []} | cleaned


def merge_memories(
    *,
    memory_ids: list[int],
    content: str | None,
    actor: str,
    category: str | None = None,
    tier: str | None = None,
    tags: list[str] | None = None,
) -> Memory:
    """Merge a selection by hand: one new memory, the sources archived into it. Undo through its proposal."""
    memories = _load_sources(memory_ids)
    fields = deterministic_fields(memories)
    overrides = {"content": content, "category": category, "tier": tier, "tags": tags}
    fields |= {k: v for k, v in overrides.items() if v is not None}
    fields = _clean_merge_fields(fields)
    ids = [m.pk for m in memories]
    _backup_before_merge()
    vector = embed_for_storage([fields["content"]])[0]  # before the write lock, never under it
    with transaction.atomic():
        sql.serialize_writes("curation")  # merges, accepts and sweeps in every server process take turns
        # Re-check inside the write lock: another request may have archived or merged one meanwhile.
        memories = _load_sources(ids)
        proposal = Proposal(
            sources=ids,
            cluster_key=cluster_key(ids),
            project=memories[0].project,
            rationale=f"merged by hand by {actor or 'someone'}",
            generator=MANUAL,
            **fields,
        )
        proposal.mark_sources(memories)
        proposal.save()
        return _merge(memories=memories, fields=fields, actor=actor, proposal=proposal, vector=vector)


def _backup_before_merge() -> None:
    # A merge can be undone, but a backup is the net under the undo; a run of accepts in one review makes one.
    from memoryhub.memories.backup import auto_backup

    auto_backup("merge", min_interval=600)


def _locked_proposal(proposal: Proposal, *, expected: str, verb: str) -> Proposal:
    current = Proposal.objects.filter(pk=proposal.pk).first()
    if current is None:
        raise ValidationError(f"proposal #{proposal.pk} no longer exists", code="not_found")
    if current.status != expected:
        raise ValidationError(
            f"proposal #{current.pk} is {current.status}; it must be {expected} to be {verb}",
            code="invalid_state",
        )
    return current


def check_choice(proposal: Proposal, choice: str | None) -> None:
    """`choice` answers a conflict (newer, both or older); a merge proposal takes none. Every face asks here."""
    if choice is None:
        return
    if choice not in ConflictChoice.values:
        raise ValidationError({"choice": f"must be one of: {', '.join(ConflictChoice.values)} (got {choice!r})"})
    if proposal.kind != ProposalKind.CONFLICT:
        raise ValidationError({"choice": "a merge proposal takes no choice (only a conflict does); send none"})


def _decide_unless_stale(proposal: Proposal, decide, *, actor: str):
    """Run `decide(current)` under the curation lock, unless a source changed since the proposal was made: then the
    proposal is closed as stale (that close is kept) and a ValidationError says why."""
    with transaction.atomic():
        sql.serialize_writes("curation")
        current = _locked_proposal(proposal, expected=ProposalStatus.PENDING, verb="accepted")
        reason = stale_reason(current, Memory.objects.in_bulk([int(i) for i in current.sources]))
        if reason:
            _close_stale(current, reason, actor=actor)
        else:
            result = decide(current)
    proposal.refresh_from_db()
    if reason:
        raise ValidationError(
            f"proposal #{proposal.pk} is stale: {reason} since it was made; it is closed and nothing changed",
            code="invalid_state",
        )
    return result


def accept_proposal(
    *, proposal: Proposal, content: str | None = None, actor: str = "", choice: str | None = None
) -> Memory:
    """Create the merged memory (with the edited text, if given) and archive the sources into it. A conflict
    proposal is decided instead (`choice`: newer by default, older or both); the current memory is returned.
    Refused (`check_choice`) for an unknown choice or a choice on a merge; refused and closed as stale when a source
    changed its text, project or status since the proposal was made (`stale_reason`)."""
    check_choice(proposal, choice)
    if proposal.kind == ProposalKind.CONFLICT:
        return _decide_unless_stale(
            proposal,
            lambda current: decide_conflict(proposal=current, choice=choice or ConflictChoice.NEWER, actor=actor),
            actor=actor,
        )
    fields = {
        "content": proposal.content if content is None else content,
        "category": proposal.category,
        "tier": proposal.tier,
        "tags": proposal.tags,
        "importance": proposal.importance,
    }
    fields = _clean_merge_fields(fields)
    if content is not None:
        refuse_noise(fields["content"])  # new words from a person or an agent: the gate's noise rules too
    _backup_before_merge()
    vector = embed_for_storage([fields["content"]])[0]  # before the write lock, never under it

    def merge(current: Proposal) -> Memory:
        try:
            memories = _load_sources(current.sources)
        except ValidationError as exc:
            raise ValidationError(
                f"proposal #{current.pk} is out of date: {' '.join(exc.messages)}", code="invalid_state"
            ) from exc
        return _merge(memories=memories, fields=fields, actor=actor, proposal=current, vector=vector)

    return _decide_unless_stale(proposal, merge, actor=actor)


def reject_proposal(*, proposal: Proposal, actor: str = "") -> Proposal:
    """Record that these memories are not to be merged; the cluster (and any part of it) is not proposed again.
    Rejecting a conflict says the two are different facts: both are kept (the same as accepting it with `both`)."""
    if proposal.kind == ProposalKind.CONFLICT:
        accept_proposal(proposal=proposal, actor=actor, choice=ConflictChoice.BOTH)
        proposal.refresh_from_db()
        return proposal
    return _move(proposal, expected=ProposalStatus.PENDING, to=ProposalStatus.REJECTED, verb="rejected", actor=actor)


def reopen_rejected(*, proposal: Proposal, actor: str = "") -> Proposal:
    """Take a merge's rejection back (its Undo): the proposal is pending again, as it was before the decision."""
    return _move(proposal, expected=ProposalStatus.REJECTED, to=ProposalStatus.PENDING, verb="reopened", actor=actor)


def _move(proposal: Proposal, *, expected: str, to: str, verb: str, actor: str) -> Proposal:
    """A merge proposal from `expected` to `to` (pending again: undecided), with a `merge_<verb>` event on each
    source."""
    with transaction.atomic():
        current = _locked_proposal(proposal, expected=expected, verb=verb)
        current.status = to
        current.decided_at, current.decided_by = (None, "") if to == ProposalStatus.PENDING else (timezone.now(), actor)
        current.save(update_fields=["status", "decided_at", "decided_by"])
        for memory_id in current.sources:
            record_event(int(memory_id), f"merge_{verb}", actor=actor, note=f"proposal #{current.pk} {verb}")
    proposal.refresh_from_db()
    return proposal


def undo_proposal(*, proposal: Proposal, actor: str = "") -> Proposal:
    """Take an accepted merge apart: the sources come back as they were, the merged memory is archived."""
    if proposal.kind == ProposalKind.CONFLICT:
        raise ValidationError(
            f"proposal #{proposal.pk} is a conflict: restore the superseded memory instead", code="invalid_state"
        )
    with transaction.atomic():
        current = _locked_proposal(proposal, expected=ProposalStatus.ACCEPTED, verb="undone")
        merged = Memory.objects.filter(pk=current.merged_memory_id).first() if current.merged_memory_id else None
        if merged is not None and merged.merged_into_id is not None:
            raise ValidationError(
                f"memory #{merged.pk} was merged again into #{merged.merged_into_id}; undo that merge first",
                code="invalid_state",
            )
        sources = list(Memory.objects.filter(pk__in=current.sources).order_by("pk"))
        moved = [m.pk for m in sources if m.merged_into_id not in (None, current.merged_memory_id)]
        if moved:
            raise ValidationError(
                f"memories {', '.join(f'#{i}' for i in moved)} have since been merged elsewhere; undo that first",
                code="invalid_state",
            )
        for m in sources:
            if m.merged_into_id is None and m.status == Status.ACTIVE:
                continue  # already brought back by hand
            before = {"status": m.status, "merged_into": m.merged_into_id}
            m.status = Status.ACTIVE
            m.merged_into = None
            m.save(update_fields=["status", "merged_into"])
            record_event(
                m.pk,
                "unmerged",
                actor=actor,
                before=before,
                after={"status": Status.ACTIVE, "merged_into": None},
                note=f"merge undone (proposal #{current.pk})",
            )
        if merged is not None:
            # What the sources superseded passed to the merged memory; it goes back to them (the rest is released).
            passed_back(merged=merged, actor=actor, note=f"merge undone (proposal #{current.pk})")
            archive(memory_ids=[merged.pk], actor=actor, note=f"merge undone (proposal #{current.pk})")
        current.status = ProposalStatus.UNDONE
        current.decided_at = timezone.now()
        current.decided_by = actor
        current.save(update_fields=["status", "decided_at", "decided_by"])
    proposal.refresh_from_db()
    return proposal


def reject_proposals(*, proposal_ids: list[int], actor: str = "") -> list[int]:
    """Reject each pending proposal among `proposal_ids` (a person clearing a queue); returns the ids rejected.
    A proposal decided meanwhile is skipped, not an error: the person's intent for it is already moot."""
    rejected = []
    for proposal in Proposal.objects.filter(pk__in=proposal_ids, status=ProposalStatus.PENDING).order_by("pk"):
        try:
            reject_proposal(proposal=proposal, actor=actor)
        except ValidationError:
            continue
        rejected.append(proposal.pk)
    return rejected


def stale_reason(proposal: Proposal, memories: dict[int, Memory]) -> str:
    """Why a pending proposal can no longer be accepted as written ("" if it still can): a source was deleted, or
    its text, project or status differs from the mark the proposal took of it when made (`Proposal.source_marks`).
    A proposal made before marks existed falls back to what its row can tell: a source archived (or merged
    elsewhere), or edited (`updated_at`, which every edit of text, project or status moves) after it was made."""
    marks = proposal.source_marks or {}
    for memory_id in proposal.sources:
        memory = memories.get(int(memory_id))
        if memory is None:
            return f"memory #{memory_id} was deleted"
        mark = marks.get(str(memory_id))
        if mark:
            now = source_mark(memory)
            changed = [name for name in ("text", "project", "status") if mark.get(name) != now[name]]
            if changed:
                status = f" (now {memory.status})" if "status" in changed else ""
                return f"memory #{memory_id}'s {' and '.join(changed)} changed{status}"
            continue
        # A conflict may be about a superseded memory (a write repeated it): only archiving takes it away.
        if memory.status == Status.SUPERSEDED and proposal.kind == ProposalKind.CONFLICT:
            continue
        if memory.status != Status.ACTIVE:
            return f"memory #{memory_id} was {memory.status}"
        if memory.updated_at > proposal.created_at:
            return f"memory #{memory_id} was edited"
    return ""


def close_stale_proposals(*, actor: str = "consolidation") -> list[int]:
    """Close every pending proposal whose sources changed since it was made (status `stale`, with the reason in
    its rationale's place for the record); returns their ids. Cheap: one read of the pending proposals' sources.
    The queue calls it before it lists, and every consolidation run does, so nobody reviews a proposal that
    would merge memories that are no longer what it shows."""
    pending = list(Proposal.objects.filter(status=ProposalStatus.PENDING))
    if not pending:
        return []
    ids = {int(i) for p in pending for i in p.sources}
    memories = Memory.objects.only("pk", "status", "updated_at", "content", "project").in_bulk(list(ids))
    closed = []
    for proposal in pending:
        reason = stale_reason(proposal, memories)
        if reason and _close_stale(proposal, reason, actor=actor):
            closed.append(proposal.pk)
    if closed:
        logger.info("consolidation: %d stale proposals closed", len(closed))
    return closed


def _close_stale(proposal: Proposal, reason: str, *, actor: str) -> bool:
    """Close one pending proposal as stale, the reason in front of its rationale; False if it was not pending."""
    return bool(
        Proposal.objects.filter(pk=proposal.pk, status=ProposalStatus.PENDING).update(
            status=ProposalStatus.STALE,
            decided_at=timezone.now(),
            decided_by=actor,
            rationale=f"Closed as stale: {reason}. {proposal.rationale}".strip()[:2000],
        )
    )


def source_projects(proposal: Proposal) -> set[str | None]:
    """The projects of the proposal's sources that still exist: a face lets someone decide only if they may see
    every one (a source moved to another project must not be superseded or merged from the first)."""
    ids = [int(i) for i in proposal.sources]
    return set(Memory.objects.filter(pk__in=ids).values_list("project", flat=True))


def proposal_for_merged(memory: Memory) -> Proposal | None:
    """The accepted proposal (or hand merge) that made this memory, if any: what the dashboard's undo needs."""
    return Proposal.objects.filter(merged_memory=memory, status=ProposalStatus.ACCEPTED).first()
