"""Archive the memories whose effective importance has decayed below MEMORYHUB_ARCHIVE_THRESHOLD."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from memoryhub.memories.lifecycle import run_decay_sweep


class Command(BaseCommand):
    help = (
        "Archive active memories whose effective importance fell below the archive threshold, each with a history "
        "event. Idempotent: running it again archives nothing more. Archived memories are kept and restorable."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="show what would be archived, change nothing")

    def handle(self, *args, dry_run: bool, **options):
        report = run_decay_sweep(actor="decay command", dry_run=dry_run)
        verb = "Would archive" if dry_run else "Archived"
        for item in report.archived:
            scope = item.project or "global"
            preview = " ".join(item.content.split())[:80]
            self.stdout.write(f"  #{item.id} [{scope}] effective {item.effective_importance:.3f}: {preview}")
        self.stdout.write(
            f"{verb} {len(report.archived)} of {report.checked} active memories (threshold {report.threshold:.2f})."
        )
