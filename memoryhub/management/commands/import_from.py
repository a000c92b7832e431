"""python manage.py import_from FORMAT PATH [--project P] [--dry-run]: move in from another memory tool."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from memoryhub.writes.importers import FORMATS, ImportFormatError, import_from, read_path


class Command(BaseCommand):
    help = (
        "Import another tool's memories through the write gate: mcp-memory (the reference MCP memory server's "
        "file), mem0 (mem0's get_all JSON), markdown (CLAUDE.md, AGENTS.md, .cursorrules, Basic Memory notes; a "
        "file or a folder). The last line is 'N created, N merged, N duplicate, N rejected'."
    )

    def add_arguments(self, parser):
        parser.add_argument("format", choices=FORMATS)
        parser.add_argument("path")
        parser.add_argument("--project", default=None, help="the project every item goes to (default: global)")
        parser.add_argument("--dry-run", action="store_true", help="say what the gate would decide; store nothing")

    def handle(self, *args, format: str, path: str, project: str | None, dry_run: bool, **options):
        try:
            read = read_path(format=format, path=path)
            report = import_from(format=format, items=read.items, project=project or None, source=f"import:{format}",
                                 dry_run=dry_run, skipped=read.skipped)  # fmt: skip
        except ImportFormatError as exc:
            raise CommandError(str(exc)) from exc
        for why in report.skipped:
            self.stdout.write(f"skipped {why}")
        verbose = options.get("verbosity", 1) >= 2 or dry_run
        for outcome in report.outcomes:
            if verbose or outcome.outcome == "rejected":
                where = f" #{outcome.memory_id}" if outcome.memory_id else ""
                self.stdout.write(f"{outcome.outcome}{where}: {outcome.item.origin}: {outcome.shown_content[:160]!r} "
                                  f"- {outcome.reason}")  # fmt: skip
        if dry_run:
            self.stdout.write("dry run: nothing was stored")
        self.stdout.write(report.summary())
