"""Benchmark consolidation on a synthetic store with planted duplicate clusters, in a throw-away database."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from django.core.management.base import BaseCommand
from django.db import connection

from bench.consolidation import generate, score
from memoryhub.consolidation.proposals import run_consolidation
from memoryhub.memories.store import import_memories
from memoryhub.models import Memory, Proposal


class Command(BaseCommand):
    help = (
        "Build N memories (default 10k) with planted duplicate clusters in a temporary database, run consolidation "
        "without an LLM, and print recall of the planted clusters, the false-proposal rate and the time taken. "
        "Your own database is not touched."
    )

    def add_arguments(self, parser):
        parser.add_argument("--size", type=int, default=10_000)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--projects", type=int, default=6, help="projects besides the global scope")

    def handle(self, *args, size: int, seed: int, projects: int, **options):
        with tempfile.TemporaryDirectory(prefix="memoryhub-bench-") as tmp:
            # The test-database machinery: a fresh migrated file, and the real one is restored afterwards.
            connection.settings_dict.setdefault("TEST", {})["NAME"] = str(Path(tmp) / "bench.sqlite3")
            old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
            try:
                self._bench(size, seed, projects)
            finally:
                connection.creation.destroy_test_db(old_name, verbosity=0)

    def _bench(self, size: int, seed: int, projects: int) -> None:
        data = generate(size, projects=projects, seed=seed)
        self.stdout.write(
            f"Building {len(data.items)} memories ({len(data.planted)} planted clusters, "
            f"{data.cross_project_pairs} facts repeated across two projects, {projects} projects + global)..."
        )
        started = time.perf_counter()
        ids = import_memories(items=data.items, source="bench", batch_size=256)
        built = time.perf_counter() - started
        self.stdout.write(f"  built and embedded in {built:.1f} s")

        started = time.perf_counter()
        proposals = run_consolidation(actor="bench", llm=False, limit=len(data.items))
        elapsed = time.perf_counter() - started

        planted = [[ids[i] for i in cluster] for cluster in data.planted]
        result = score([p.sources for p in proposals], planted)
        memories = Memory.objects.count()
        cross = sum(1 for p in proposals if len({m.project for m in Memory.objects.filter(pk__in=p.sources)}) > 1)
        self.stdout.write(f"memories:                {memories}")
        self.stdout.write(f"planted clusters:        {result.planted}")
        self.stdout.write(f"proposals:               {result.proposals} ({Proposal.objects.count()} stored)")
        self.stdout.write(f"recall (exact clusters): {result.recall:.1%} ({result.found_exactly}/{result.planted})")
        self.stdout.write(f"partly found:            {result.found_partly}")
        self.stdout.write(
            f"false proposals:         {result.false_rate:.1%} ({result.false_proposals}/{result.proposals})"
        )
        self.stdout.write(f"cross-project proposals: {cross}")
        self.stdout.write(f"consolidation time:      {elapsed:.1f} s")
        ok = result.recall >= 0.95 and result.false_rate <= 0.05 and elapsed < 60 and cross == 0
        style = self.style.SUCCESS if ok else self.style.ERROR
        self.stdout.write(style("PASS: recall >= 95%, false <= 5%, under 60 s" if ok else "FAIL: targets missed"))
