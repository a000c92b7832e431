"""python manage.py check: Django's system checks, then the store's (its extensions, integrity, FTS5, row/FTS/vector
counts, no superseded memory without a successor; `--repair-chains` brings such memories back).

It extends Django's own `check` (same options, e.g. --deploy) so there is one command to run at start-up.
"""

from __future__ import annotations

from django.core.management.base import CommandError
from django.core.management.commands import check as django_check

from memoryhub.memories.chain import repair_orphans
from memoryhub.memories.health import run_checks
from memoryhub.storage import sql


class Command(django_check.Command):
    help = (
        "Django's system checks, then the store: PRAGMA integrity_check, FTS5 integrity of both keyword indexes, "
        "and memories, keyword entries and vectors in step. Exits non-zero when something is wrong."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--store-only", action="store_true", help="skip Django's system checks")
        parser.add_argument("--system-only", action="store_true", help="skip the store checks")
        parser.add_argument(
            "--repair-chains",
            action="store_true",
            help="first make every superseded memory without a successor active again (with a history event)",
        )

    def handle(
        self, *app_labels, store_only: bool = False, system_only: bool = False, repair_chains: bool = False, **options
    ):
        if not store_only:
            super().handle(*app_labels, **options)
        if system_only:
            return
        problem = sql.extension_problem()
        if problem:
            raise CommandError(problem)
        if sql.MEMORY_TABLE not in sql.schema_names():
            raise CommandError("the store has no memory table yet: run `.venv/bin/python manage.py migrate`")
        if repair_chains:
            repaired = repair_orphans(actor="check --repair-chains")
            self.stdout.write(f"superseded memories without a successor restored: {len(repaired)}")
        report = run_checks()
        for line in report.lines():
            self.stdout.write(line)
        if not report.ok:
            raise CommandError("the store check failed")
        self.stdout.write(self.style.SUCCESS("store ok"))
