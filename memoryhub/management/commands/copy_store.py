"""python manage.py copy_store --to postgresql://user@host/db   (or --to /path/to/store.sqlite3 to come back)

Copies this store (the configured one: the SQLite file, or MEMORYHUB_DATABASE_URL) into a new, empty one: every
memory with its history, proposals, the gate log, usage, agent tokens and dashboard users, and the vectors as
stored. The target is migrated first; it must hold no memories. The copy then checks itself (counts of every
kind, and a sample of searches) and the command fails if anything disagrees. The source is not changed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.transfer import dump_to


def target_env(target: str) -> dict[str, str]:
    """This process's environment with the store switched to `target` (a URL or a file path)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MEMORYHUB_DATABASE_URL", "MEMORYHUB_DB")}
    if target.startswith(("postgresql://", "postgres://")):
        env["MEMORYHUB_DATABASE_URL"] = target
    else:
        env["MEMORYHUB_DB"] = str(Path(target).expanduser().resolve())
    return env


class Command(BaseCommand):
    help = "Copy this store into a new PostgreSQL database or SQLite file, and check the copy."

    def add_arguments(self, parser):
        parser.add_argument("--to", required=True, help="postgresql://user:password@host:port/name, or a file path")
        parser.add_argument("--keep-dump", help="also keep the store's JSON-lines dump at this path")

    def handle(self, *args, to: str, keep_dump: str | None, **options):
        if not to.startswith(("postgresql://", "postgres://")):
            path = Path(to).expanduser().resolve()
            if str(path) == str(Path(settings.DATABASES["default"]["NAME"]).resolve()):
                raise CommandError("--to names this store itself")
        with tempfile.TemporaryDirectory(prefix="memoryhub-copy-") as scratch:
            dump = Path(keep_dump) if keep_dump else Path(scratch) / "store.jsonl"
            counts = dump_to(dump)
            self.stdout.write("read: " + ", ".join(f"{n} {label}" for label, n in counts.items()))
            manage = Path(settings.BASE_DIR) / "manage.py"
            env = target_env(to)
            for step in (["migrate", "--no-input", "-v", "0"], ["load_store", str(dump)]):
                result = subprocess.run([sys.executable, str(manage), *step], env=env, text=True, capture_output=True)
                if result.stdout.strip():
                    self.stdout.write(result.stdout.rstrip())
                if result.returncode != 0:
                    raise CommandError(f"{step[0]} on the target failed:\n{result.stderr.strip()}")
        self.stdout.write(self.style.SUCCESS("copied and checked"))
