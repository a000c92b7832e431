"""`python manage.py held [--approve ID ...] [--discard ID ...]`: the memories held for review, and a person's say."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from memoryhub.memories.holds import approve_held, discard_held, held_memories
from memoryhub.models import Memory


class Command(BaseCommand):
    help = "List the memories held for a person's review (planted instructions, untrusted sources); approve or discard."

    def add_arguments(self, parser):
        parser.add_argument("--approve", type=int, action="append", default=[], metavar="ID", help="let it in")
        parser.add_argument("--discard", type=int, action="append", default=[], metavar="ID", help="delete it")
        parser.add_argument("--actor", default="operator", help="who decides, as history names them")

    def handle(self, *args, approve: list[int], discard: list[int], actor: str, **options):
        for decide, ids, verb in ((approve_held, approve, "approved"), (discard_held, discard, "discarded")):
            for pk in ids:
                memory = Memory.objects.filter(pk=pk).first()
                if memory is None:
                    raise CommandError(f"no memory #{pk}")
                try:
                    decide(memory=memory, actor=actor)
                except ValidationError as exc:
                    raise CommandError(" ".join(exc.messages)) from exc
                self.stdout.write(f"#{pk} {verb}")
        if approve or discard:
            return
        rows = list(held_memories())
        for memory in rows:
            self.stdout.write(f"#{memory.pk} [{memory.source}] {memory.content[:80]}\n    held: {memory.held_reason}")
        self.stdout.write(f"{len(rows)} held for review")
