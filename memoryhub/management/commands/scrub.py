"""Find secrets already in the store and remove them (every text column, login records); then vacuum."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from memoryhub.memories.backup import list_backups
from memoryhub.memories.scrub import scrub_store
from memoryhub.people.logins import scrub_login_records


class Command(BaseCommand):
    help = (
        "Replace every secret stored so far (in memories, their tags and metadata, history, the gate log, "
        "proposals, usage records, tokens and roles) with [REDACTED <kind>, <n> chars], re-embed the memories that "
        "changed, rebuild the keyword indexes, hash the usernames the login records kept, and vacuum the database so "
        "the old bytes leave the file. Safe to run again."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--delete-backups",
            action="store_true",
            help="also delete the backups taken so far: they hold the store as it was, secrets included",
        )
        parser.add_argument("--no-vacuum", action="store_true", help="skip VACUUM (faster; freed pages remain)")

    def handle(self, *args, delete_backups: bool, no_vacuum: bool, **options):
        # Login records first: the vacuum at the end of scrub_store then leaves none of their old bytes either.
        logins = scrub_login_records()
        report = scrub_store(vacuum=not no_vacuum)
        ids = ", ".join(f"#{i}" for i in report.memories[:20]) + (" ..." if len(report.memories) > 20 else "")
        self.stdout.write(f"Memories scrubbed: {len(report.memories)}" + (f" ({ids})" if ids else ""))
        self.stdout.write(f"History events scrubbed: {report.events}")
        self.stdout.write(f"Gate log entries scrubbed: {report.gate_log}")
        self.stdout.write(f"Proposals scrubbed: {report.proposals}")
        self.stdout.write(f"Usage records scrubbed: {report.usage}")
        self.stdout.write(f"Tokens and roles scrubbed: {report.other}")
        self.stdout.write(f"Login records scrubbed: {logins}")
        if report.reembedded:
            self.stdout.write(f"Memories re-embedded: {report.reembedded}")
        if report.total:
            self.stdout.write("Keyword indexes rebuilt.")
        self.stdout.write("Database vacuumed and WAL truncated." if report.vacuumed else "Vacuum skipped.")
        backups = list_backups()
        if delete_backups:
            for path in backups:
                path.unlink(missing_ok=True)
            self.stdout.write(f"Backups deleted: {len(backups)}")
        elif backups and report.total:
            self.stdout.write(
                f"{len(backups)} backup(s) taken before this scrub may still hold these secrets; "
                "run again with --delete-backups to remove them."
            )
        self.stdout.write(self.style.SUCCESS(f"Done: {report.total} record(s) held a secret."))
