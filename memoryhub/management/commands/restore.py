"""python manage.py restore PATH: check a backup file, then replace the store with it."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.backup import BackupError, RestoreRefused, database_name, restore_database


class Command(BaseCommand):
    help = (
        "Replace the store with a backup after checking it (integrity, tables, FTS5). The current store is "
        "backed up first. Safe while the server runs."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="the backup file")
        parser.add_argument(
            "--no-input", "--noinput", action="store_false", dest="interactive", help="do not ask for confirmation"
        )

    def handle(self, *args, path: str, interactive: bool, **options):
        if interactive:
            answer = input(f"Replace the store {database_name()} with {path}? Type 'yes' to continue: ")
            if answer.strip().lower() != "yes":
                raise CommandError("restore cancelled")
        try:
            restore_database(path=path)
        except RestoreRefused as exc:
            raise CommandError(f"refused to restore {path}: {exc}") from exc
        except BackupError as exc:
            raise CommandError(f"could not back up the current store first, nothing was changed: {exc}") from exc
        self.stdout.write(f"restored {database_name()} from {path}")
        self.stdout.write("run `.venv/bin/python manage.py migrate` if the backup was made by an older version")
