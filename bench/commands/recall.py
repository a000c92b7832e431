"""How often the recall block carries the answer, and what the relevance floor keeps and drops.

A scratch store of coding-agent memories (each answering one question a later turn asks, mostly in other
words) among a few thousand generated memories of the same and other projects, with confirmed preferences and
project facts that compete for the block (bench/corpus.py). Printed:

- search: hit@1/3/10 of the answers, with and without the floor;
- recall: how often the answer is inside the block at 400 and 800 characters, over every question and over
  the questions search answers in its top 3;
- the floor: for a few values, the share of made-up queries ("purple elephant trampoline quota") that return
  nothing, and hit@3 on the real questions. The default floor is the setting MEMORYHUB_SEARCH_MIN_SCORE.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction

from bench import corpus
from bench.scratch import scratch_database
from memoryhub.memories.store import import_memories
from memoryhub.models import Memory
from memoryhub.retrieval.recall import build_recall
from memoryhub.retrieval.search import MemoryFilter, search_memories

FLOORS = (0.0, 0.15, 0.2, 0.22, 0.25, 0.3, 0.35, 0.4, 0.5)
BUDGETS = (400, 800)


def answer_rank(hits, answer: int) -> int | None:
    return next((i for i, h in enumerate(hits, 1) if h.memory.pk == answer), None)


class Command(BaseCommand):
    help = "Recall-block hit rates at 400 and 800 characters, and the relevance floor, on generated agent memories."

    def add_arguments(self, parser):
        parser.add_argument("--others", type=int, default=3000, help="generated memories around the agent's ones")
        parser.add_argument("--made-up", type=int, default=100, help="made-up queries to ask")
        parser.add_argument("--db", help="scratch database file to use and keep (default: a temporary file)")

    def handle(self, *args, others: int, made_up: int, db: str | None, **options):

        items, questions = corpus.agent_store(others=others)
        with scratch_database(db) as path:
            self.stdout.write(f"scratch database: {path}")
            if not Memory.objects.exists():
                started = time.perf_counter()
                import_memories(items=items, source="eval")
                self.stdout.write(f"{len(items)} memories stored in {time.perf_counter() - started:.1f} s")
            by_content = {m.content: m.pk for m in Memory.objects.filter(project=corpus.AGENT_PROJECT)}
            cases = [(by_content[items[index]["content"]], question) for index, question in questions]
            # Recall reinforces what it returns: rolled back, so a kept --db measures the same store next time.
            with transaction.atomic():
                self._measure(cases, corpus.made_up_queries(made_up))
                transaction.set_rollback(True)

    def _measure(self, cases: list[tuple[int, str]], made_up: list[str]) -> None:
        project = corpus.AGENT_PROJECT
        floor = settings.MEMORYHUB_SEARCH_MIN_SCORE
        answers: list[tuple[int | None, float]] = []  # unfloored rank, the answer's match strength
        floored_ranks: list[int | None] = []
        in_block = {b: [] for b in BUDGETS}
        for answer, question in cases:
            hits = search_memories(query=question, within=MemoryFilter(visible_from=project), k=10, min_score=0.0)
            rank = answer_rank(hits, answer)
            answers.append((rank, hits[rank - 1].explain["match"] if rank else 0.0))
            floored_ranks.append(
                answer_rank(search_memories(query=question, within=MemoryFilter(visible_from=project), k=10), answer)
            )
            for budget in BUDGETS:
                in_block[budget].append(answer in build_recall(project=project, query=question,
                                                                budget_chars=budget).memory_ids)  # fmt: skip
        tops = []  # the best match strength among a made-up query's unfloored results
        for query in made_up:
            hits = search_memories(query=query, within=MemoryFilter(visible_from=project), k=10, min_score=0.0)
            tops.append(max((h.explain["match"] for h in hits), default=0.0))
        n = len(cases)

        def hit(ranks, cutoff):
            return sum(1 for r in ranks if r and r <= cutoff) / n

        unfloored = [r for r, _ in answers]
        self.stdout.write(f"\n{n} questions, {len(made_up)} made-up queries, floor {floor}")
        self.stdout.write(f"{'search':<16}{'hit@1':>8}{'hit@3':>8}{'hit@10':>8}")
        for label, ranks in (("without floor", unfloored), ("with floor", floored_ranks)):
            self.stdout.write(f"{label:<16}" + "".join(f"{hit(ranks, c):>8.3f}" for c in (1, 3, 10)))
        top3 = [i for i, r in enumerate(floored_ranks) if r and r <= 3]
        self.stdout.write("\nrecall block: answer inside")
        for budget in BUDGETS:
            share_all = sum(in_block[budget]) / n
            share_top3 = sum(in_block[budget][i] for i in top3) / len(top3) if top3 else 0.0
            self.stdout.write(f"  {budget} chars: {share_all:.3f} of all questions, {share_top3:.3f} of the "
                              f"{len(top3)} search answers in its top 3")  # fmt: skip
        self.stdout.write(f"\n{'floor':<8}{'made-up empty':>15}{'hit@3':>8}{'answers lost':>14}")
        base = hit(unfloored, 3)
        for value in sorted({*FLOORS, floor}):
            empty = sum(1 for t in tops if t < value) / len(tops) if tops else 0.0
            kept = [r if r and m >= value else None for r, m in answers]
            lost = sum(1 for (r, m) in answers if r and r <= 3 and m < value)
            mark = "  <- setting" if value == floor else ""
            self.stdout.write(f"{value:<8.2f}{empty:>15.3f}{hit(kept, 3):>8.3f}{lost:>14}{mark}")
        self.stdout.write(f"(hit@3 without a floor: {base:.3f}; a lost answer is one in the top 3 below the floor)")
