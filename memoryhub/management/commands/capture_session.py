"""python manage.py capture_session TRANSCRIPT [--project P] [--session-id ID] [--dry-run]: capture a session here."""

from __future__ import annotations

import os

from django.core.management.base import BaseCommand, CommandError

from memoryhub.agents.capture import capture_session
from memoryhub.agents.transcripts import read_turns


class Command(BaseCommand):
    help = (
        "Pick the durable facts of a Claude Code transcript (JSON lines) and store each through the write gate, as "
        "the session-end hook does through the API. --dry-run prints what would be stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("transcript")
        parser.add_argument("--project", default=None, help="default: global")
        parser.add_argument("--session-id", default="", help="default: the transcript's file name")
        parser.add_argument("--dry-run", action="store_true")

    def handle(self, *args, transcript: str, project: str | None, session_id: str, dry_run: bool, **options):
        if not os.path.isfile(transcript):
            raise CommandError(f"{transcript} does not exist")
        turns, _ = read_turns(transcript)
        session = session_id or os.path.splitext(os.path.basename(transcript))[0]
        report = capture_session(turns=turns, project=project or None, session_id=session, source="capture",
                                 dry_run=dry_run)  # fmt: skip
        if report.note:
            self.stdout.write(f"note: {report.note}")
        for item in report.items:
            fact = item.as_dict()
            where = f" #{item.memory_id}" if item.memory_id else ""
            self.stdout.write(
                f"{item.outcome}{where}: [{fact['category'] or '-'}] {fact['content']} ({fact['reason']})"
            )
        if dry_run:
            self.stdout.write("dry run: nothing was stored")
        counts = report.counts
        self.stdout.write(", ".join(f"{n} {k}" for k, n in counts.items()) + f" (extractor: {report.extractor})")
