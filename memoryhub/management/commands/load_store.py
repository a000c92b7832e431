"""python manage.py load_store DUMP: fill this (migrated, empty) store from a `copy_store` dump, then check it.

`copy_store` runs this in the target's process; it is a command of its own so a dump kept with `--keep-dump` can
be loaded later, on another machine.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.transfer import load_from
from memoryhub.retrieval.search import search_memories


class Command(BaseCommand):
    help = "Load a store dump (from copy_store --keep-dump) into this empty store and check it."

    def add_arguments(self, parser):
        parser.add_argument("dump", type=Path)

    def handle(self, *args, dump: Path, **options):
        if not dump.is_file():
            raise CommandError(f"no such file: {dump}")
        try:
            report = load_from(dump, search=search_memories)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write("wrote: " + ", ".join(f"{n} {label}" for label, n in report.counts.items()))
        self.stdout.write(f"searches: {report.found_first} of {report.searches} sampled memories found first")
        if not report.ok:
            raise CommandError("the copy disagrees with its source:\n  " + "\n  ".join(report.problems))
