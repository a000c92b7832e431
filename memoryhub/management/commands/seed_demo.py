from django.core.management.base import BaseCommand

from memoryhub.bench.demo import DEMO_MEMORIES
from memoryhub.memories.store import import_memories
from memoryhub.models import Memory


class Command(BaseCommand):
    help = "Load a small set of realistic coding-agent memories (only into an empty store unless --force)."

    def add_arguments(self, parser):
        parser.add_argument("--force", action="store_true", help="seed even if the store already has memories")

    def handle(self, *args, force: bool = False, **options):
        if Memory.objects.exists() and not force:
            self.stdout.write("The store already has memories; nothing seeded (use --force to add the demo set).")
            return
        ids = import_memories(items=DEMO_MEMORIES, source="demo", actor="seed_demo")
        self.stdout.write(self.style.SUCCESS(f"Seeded {len(ids)} demo memories across 2 projects and globals."))
