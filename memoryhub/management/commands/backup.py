"""python manage.py backup [--reason TEXT] [--dest DIR]: an online, consistent copy of the store."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.backup import BackupError, backup_database, list_backups


class Command(BaseCommand):
    help = "Back up the store with SQLite's online backup API (safe while the server runs). Prints the file last."

    def add_arguments(self, parser):
        parser.add_argument("--reason", default="manual", help="a word or two kept in the file name")
        parser.add_argument("--dest", default=None, help="directory (default: MEMORYHUB_BACKUP_DIR)")

    def handle(self, *args, reason: str, dest: str | None, **options):
        try:
            path = backup_database(reason=reason, dest_dir=dest)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        kept = len(list_backups(path.parent))
        self.stdout.write(f"backup written ({path.stat().st_size} bytes, {kept} kept in {path.parent})")
        self.stdout.write(str(path))
