"""Leave-one-conversation-out tuning of fusion on LoCoMo (`python -m bench locomo --cv`).

Each question is retrieved once (hybrid candidates: word, substring and meaning lists with their ranks, BM25
and distances; fusion.py then orders them), and every setting of a small grid re-fuses those candidates in
memory, so the grid costs no embedding and no SQL. For each conversation in turn, the setting with the best
MRR + hit@10 on the other conversations is chosen and measured on the held-out one: that is the
cross-validated figure. The in-sample figure (the best setting chosen and measured on all of them) is printed
beside it, to show how much of it is fit. With conversation ranking on, the grid includes how the reply to a
matching question is lifted (conversations.lift_answers): a question is ranked once and only the lift is redone
for each of those settings.

Pseudo-relevance feedback is tried the same way: for a short question, the query vector is moved toward the
mean of its first results' vectors and the meaning list re-ranked over the conversation's vectors.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from memoryhub.retrieval import conversations, fusion
from memoryhub.retrieval.search import _Signals

CUTOFFS = (1, 3, 10)


@dataclass
class Asked:
    """One question, retrieved once: its candidates and what counts as its answer."""

    conversation: str
    evidence: set[str]
    rows: dict
    signals: dict
    kq: Any
    vector: np.ndarray | None = None
    answers: dict = field(default_factory=dict)  # the reply of each candidate asking a question (conversations)
    following: dict = field(default_factory=dict)  # the speaker's next turn after each candidate (conversations)


@dataclass
class Conversation:
    name: str
    dia: dict[int, str]  # memory id -> dia_id
    questions: list[Asked] = field(default_factory=list)
    ids: np.ndarray | None = None  # every turn's memory id, in the order of `vectors`
    vectors: np.ndarray | None = None  # normalised
    rows: dict = field(default_factory=dict)  # every turn's fusion row, for PRF's new candidates
    context: dict = field(default_factory=dict)  # what each turn's metadata says it leaves implicit (the date)


def score(ranked: list[str], evidence: set[str]) -> dict[str, float]:
    out = {f"hit@{k}": float(bool(evidence & set(ranked[:k]))) for k in CUTOFFS}
    first = next((i for i, d in enumerate(ranked[:10], 1) if d in evidence), None)
    out["MRR"] = 1.0 / first if first else 0.0
    return out


def _prf_signals(asked: Asked, conv: Conversation, first: list[int], beta: float, pool: int) -> tuple[dict, dict]:
    """Signals and rows with the meaning list re-ranked for the query vector moved toward its first results."""

    index = {mid: i for i, mid in enumerate(conv.ids.tolist())}
    top = [index[m] for m in first if m in index]
    if asked.vector is None or not top:
        return asked.signals, asked.rows
    moved = asked.vector + beta * conv.vectors[top].mean(axis=0)
    moved /= np.linalg.norm(moved) or 1.0
    sims = conv.vectors @ moved
    order = np.argsort(-sims)[:pool]
    signals = {mid: replace(s, vector_rank=None, distance=None) for mid, s in asked.signals.items()}
    rows = dict(asked.rows)
    for rank, i in enumerate(order.tolist(), 1):
        mid = int(conv.ids[i])
        s = signals.setdefault(mid, _Signals())
        s.vector_rank, s.distance = rank, round(float(1.0 - sims[i]), 6)
        if mid not in rows:
            rows[mid] = replace(conv.rows[mid], coverage=None)
    return signals, rows


def ranked_dia(asked: Asked, conv: Conversation, params: fusion.Params, mode: str, floor: float,
               prf: tuple[float, int] | None = None) -> list[str]:  # fmt: skip
    """The dia_ids of the first 10 results of `asked` fused with `params` (and PRF: (beta, max content words))."""
    lift = conversations.lift_replies(asked.answers, asked.kq.text, asked.following)
    out = fusion.fuse(asked.rows, asked.signals, asked.kq, mode, 10, params, min_match=floor, context=conv.context,
                      lift=lift)  # fmt: skip
    if prf and mode != "keyword" and len(asked.kq.terms) <= prf[1]:
        signals, rows = _prf_signals(asked, conv, [mid for _, mid, _ in out[:3]], prf[0], 50)
        out = fusion.fuse(rows, signals, asked.kq, mode, 10, params, min_match=floor, context=conv.context,
                          lift=lift)  # fmt: skip
    return [conv.dia[mid] for _, mid, _ in out]


def _empty() -> dict[str, float]:
    return {f"hit@{k}": 0.0 for k in CUTOFFS} | {"MRR": 0.0, "n": 0.0}


def _add(totals: dict[str, float], ranked: list[str], evidence: set[str]) -> None:
    for key, value in score(ranked, evidence).items():
        totals[key] += value
    totals["n"] += 1


def measure(conv: Conversation, params: fusion.Params, mode: str, floor: float, prf=None) -> dict[str, float]:
    """Sums over the conversation's questions (divide by the count for means)."""
    totals = _empty()
    for asked in conv.questions:
        _add(totals, ranked_dia(asked, conv, params, mode, floor, prf), asked.evidence)
    return totals


def measure_answers(conv: Conversation, params: list[fusion.Params], mode: str, floor: float) -> list[dict]:
    """`measure` for settings that differ only in how replies are lifted: each question is ranked once and only
    the lift (conversations.lift_answers) is redone per setting."""
    out = [_empty() for _ in params]
    for asked in conv.questions:
        scored = fusion.ranked(asked.rows, asked.signals, asked.kq, mode, params[0], floor, conv.context)
        for totals, p in zip(out, params, strict=True):
            lifted = conversations.lift_answers(scored, asked.answers, p.answer_share, p.answer_top)
            if conversations.enabled():
                lifted = conversations.named_speaker_first(lifted, asked.kq.text, p.other_speaker_share)
                lifted = conversations.lift_continuations(lifted, asked.following, p.continuation_share,
                                                          p.continuation_top)  # fmt: skip
            _add(totals, [conv.dia[mid] for _, mid, _ in lifted[:10]], asked.evidence)
    return out


# How replies to matching questions are lifted (answer_share, answer_top): off, or two shares at two depths.
ANSWER_GRID = ((0.0, 5), (0.5, 2), (0.5, 5), (0.8, 2), (0.8, 5))


def grid(mode: str) -> list[fusion.Params]:
    """Coarse: a few values of each lever that matters for the mode (the answer lift innermost: `cross_validate`
    ranks once for consecutive settings that differ only there; with conversation ranking off there are no
    replies to lift, and the lift stays off)."""
    base = fusion.Params.from_defaults()
    answer_grid = ANSWER_GRID if conversations.enabled() else ((0.0, base.answer_top),)
    if mode == "keyword":
        values = itertools.product((3, 5, 10, 30), (0.0, 0.5, 1.0, 2.0), (0.3, 0.7, 0.9), (0.0, 1.0), answer_grid)
        return [replace(base, rrf_k=k, coverage_weight=c, score_absolute=a, rare_words=r,
                        answer_share=share, answer_top=top) for k, c, a, r, (share, top) in values]  # fmt: skip
    values = itertools.product((3, 10), (0.5, 0.8, 1.1), (0.5, 1.0, 2.0), (0.5, 0.9), (0.0, 1.0), answer_grid)
    return [replace(base, rrf_k=k, semantic_weight=s, coverage_weight=c, score_absolute=a, rare_words=r,
                    answer_share=share, answer_top=top)
            for k, s, c, a, r, (share, top) in values]  # fmt: skip


def _same_ranking(a: fusion.Params, b: fusion.Params) -> bool:
    return replace(a, answer_share=0.0, answer_top=1) == replace(b, answer_share=0.0, answer_top=1)


def _objective(totals: dict[str, float]) -> float:
    return (totals["MRR"] + totals["hit@10"]) / max(totals["n"], 1.0)


def add_up(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: sum(r[key] for r in rows) for key in rows[0]}


Setting = tuple[fusion.Params, "tuple[float, int] | None"]


def cross_validate(convs: list[Conversation], settings_list: list[Setting], mode: str, floor: float):
    """(in-sample totals and setting, held-out totals, the setting chosen for each held-out conversation).

    A setting is (fusion parameters, PRF as (beta, most content words) or None)."""
    table = []  # per setting: per conversation totals
    start = 0
    while start < len(settings_list):
        params, prf = settings_list[start]
        if prf:
            table.append([measure(c, params, mode, floor, prf) for c in convs])
            start += 1
            continue
        end = start + 1
        while end < len(settings_list) and not settings_list[end][1] and _same_ranking(params, settings_list[end][0]):
            end += 1
        group = [p for p, _ in settings_list[start:end]]
        per_conv = [measure_answers(c, group, mode, floor) for c in convs]
        table.extend([per_conv[j][i] for j in range(len(convs))] for i in range(len(group)))
        start = end
    totals = [add_up(per) for per in table]
    best = max(range(len(table)), key=lambda i: _objective(totals[i]))
    held_out, chosen = [], []
    for held in range(len(convs)):
        others = [add_up([per[j] for j in range(len(convs)) if j != held]) for per in table]
        pick = max(range(len(table)), key=lambda i: _objective(others[i]))
        held_out.append(table[pick][held])
        chosen.append(settings_list[pick])
    return (totals[best], settings_list[best]), add_up(held_out), chosen


def means(totals: dict[str, float]) -> dict[str, float]:
    n = max(totals["n"], 1.0)
    return {key: value / n for key, value in totals.items() if key != "n"}
