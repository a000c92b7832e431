from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from memoryhub.embeddings import get_embedder
from memoryhub.memories.backup import BackupError, auto_backup
from memoryhub.memories.store import reembed
from memoryhub.models import Memory
from memoryhub.storage import sql


class Command(BaseCommand):
    help = "Re-embed memories whose vector came from another model than the active one (or has none)."

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=64)
        parser.add_argument(
            "--all", action="store_true", help="re-embed every memory (e.g. after the local model's build changed)"
        )

    def handle(self, *args, batch_size: int, all: bool = False, **options):
        embedder = get_embedder()
        if all:
            Memory.objects.update(embed_model="")  # vectors stay until each row's new one is written
            sql.renew_generation()  # every process's vector copy rebuilds once, instead of reading each row's entry
        pending = Memory.objects.exclude(embed_model=embedder.model_id).count()
        if not pending:
            self.stdout.write(f"All memories are embedded with {embedder.model_id}.")
            return

        try:
            auto_backup("reembed")
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        with tqdm(total=pending, unit="memory", desc=f"re-embedding with {embedder.model_id}") as bar:
            done = reembed(batch_size=batch_size, progress=bar.update)
        self.stdout.write(self.style.SUCCESS(f"Re-embedded {done} memories with {embedder.model_id}."))
