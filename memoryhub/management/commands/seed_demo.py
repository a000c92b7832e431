"""`manage.py seed_demo [--force]` writes the demo memories (into an empty store unless --force);
`manage.py seed_demo --remove` deletes them again."""

from django.core.management.base import BaseCommand

from memoryhub.memories.demo import DEMO_PROJECTS, remove_demo, seed_demo

REMOVE_HINT = (
    "Remove them with `.venv/bin/python manage.py seed_demo --remove` or the dashboard's 'Remove demo data' button."
)


class Command(BaseCommand):
    help = (
        "Load a small set of realistic coding-agent memories into their own demo projects (only into an empty store "
        "unless --force); --remove deletes them."
    )

    def add_arguments(self, parser):
        what = parser.add_mutually_exclusive_group()
        what.add_argument("--force", action="store_true", help="seed even if the store already has memories")
        what.add_argument("--remove", action="store_true", help="delete the demo memories")

    def handle(self, *args, force: bool = False, remove: bool = False, **options):
        if remove:
            removed = remove_demo(actor="seed_demo --remove")
            self.stdout.write(self.style.SUCCESS(f"Removed {removed} demo memories."))
            return
        ids = seed_demo(force=force)
        if ids is None:
            self.stdout.write("The store already has memories; nothing seeded (use --force to add the demo set).")
            return
        projects = " and ".join(DEMO_PROJECTS)
        self.stdout.write(
            self.style.SUCCESS(f"Seeded {len(ids)} demo memories into the projects {projects} (tagged demo).")
        )
        self.stdout.write(f"They stay out of your own projects. {REMOVE_HINT}")
