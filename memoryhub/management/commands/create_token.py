"""`python manage.py create_token NAME [--project P ...] [--read-only]`: the last line printed is the token."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from memoryhub.agents.tokens import create_token


class Command(BaseCommand):
    help = "Create a bearer token for an agent. The token is shown once, on the last line; only its hash is kept."

    def add_arguments(self, parser):
        parser.add_argument("name", help="the agent's name; it becomes the `source` of every memory it writes")
        parser.add_argument(
            "--project",
            action="append",
            dest="projects",
            metavar="PROJECT",
            help="limit the token to this project (repeat for several); global memories stay readable",
        )
        parser.add_argument("--read-only", action="store_true", help="the token may read and search, never write")
        parser.add_argument(
            "--untrusted", action="store_true", help="its writes are held for a person's review (a scraper, a bot)"
        )

    def handle(self, *args, name: str, projects: list[str] | None, read_only: bool, untrusted: bool, **options):
        try:
            token, raw = create_token(name=name, projects=projects, read_only=read_only, untrusted=untrusted)
        except ValidationError as exc:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from exc
        scope = ", ".join(token.projects) if token.projects else "all projects"
        mode = ("read-only" if token.read_only else "read-write") + ("; untrusted" if token.untrusted else "")
        self.stdout.write(f"Token for agent {token.name!r} ({scope}; {mode}); prefix {token.prefix}. Shown once:")
        self.stdout.write(raw)
