"""Two memories a person is asked about (a pending conflict: which is current?) both stay searchable until they
decide; meanwhile, wherever both match, the newer ranks above the older, so an agent reads the newer value first.
"""

from __future__ import annotations

from memoryhub.models import ProposalKind, ProposalStatus
from memoryhub.storage import sql


def pending_pairs(memory_ids: set[int]) -> list[tuple[int, int]]:
    """(older, newer) of every pending conflict whose two memories are both among `memory_ids`."""
    if len(memory_ids) < 2:
        return []
    pairs = []
    # Asked on every search: one raw statement (the ORM's took longer to build than to run).
    for sources in sql.proposal_sources(ProposalKind.CONFLICT.value, ProposalStatus.PENDING.value):
        older, newer = sources[:2]
        if older in memory_ids and newer in memory_ids:
            pairs.append((older, newer))
    return pairs


def newer_first(ranked: list[tuple]) -> list[tuple]:
    """`ranked` ((score, id, explain), best first) with each pending conflict's newer memory placed where its
    older one was, if the older ranked first; scores stay in order (the two trade places and scores)."""
    pairs = pending_pairs({mid for _, mid, _ in ranked})
    if not pairs:
        return ranked
    out = list(ranked)
    for older, newer in pairs:
        at = {mid: i for i, (_, mid, _) in enumerate(out)}
        i, j = at[older], at[newer]
        if i < j:
            (score_i, _, explain_i), (score_j, _, explain_j) = out[i], out[j]
            out[i] = (score_i, newer, explain_j | {"conflict": f"newer than #{older}, which a person is asked about"})
            out[j] = (score_j, older, explain_i)
    return out
