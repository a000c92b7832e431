"""python manage.py rebuild_index: rebuild the FTS and vector indexes from the memory rows, with progress."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from memoryhub.embeddings import EmbeddingError
from memoryhub.memories.health import rebuild_index, run_checks


class Command(BaseCommand):
    help = (
        "Rebuild both keyword indexes from the memory rows, remove vectors whose memory is gone and embed "
        "memories that have no vector. Safe while the server runs. Checks the store afterwards."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=64)

    def handle(self, *args, batch_size: int, **options):
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1")
        last_shown: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            # One line per stage, and for vectors about every 10%: readable in a terminal and in a log file.
            step = max(total // 10, 1)
            if stage in last_shown and done < total and done - last_shown[stage] < step:
                return
            last_shown[stage] = done
            self.stdout.write(f"{stage}: {done}/{total}")
            self.stdout.flush()

        try:
            result = rebuild_index(progress=progress, batch_size=batch_size)
        except EmbeddingError as exc:
            raise CommandError(f"the keyword index was rebuilt, but embedding failed: {exc}") from exc
        self.stdout.write(
            f"rebuilt: {result.keyword_rows} memories indexed, {result.orphans_removed} orphan vectors removed, "
            f"{result.vectors_written} vectors written"
        )
        report = run_checks()
        for line in report.lines():
            self.stdout.write(line)
        if not report.ok:
            raise CommandError("the store still disagrees with itself after the rebuild (see above)")
