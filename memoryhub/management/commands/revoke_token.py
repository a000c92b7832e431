"""`python manage.py revoke_token NAME` revokes an agent's tokens; `--prefix mh_abc1234` revokes one."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from memoryhub.agents.tokens import revoke_tokens


class Command(BaseCommand):
    help = "Revoke bearer tokens: all of an agent's active tokens, or the one with the given prefix."

    def add_arguments(self, parser):
        parser.add_argument("name", nargs="?", default=None, help="the agent whose active tokens to revoke")
        parser.add_argument("--prefix", default=None, help="the token prefix shown by create_token (first 10 chars)")

    def handle(self, *args, name: str | None, prefix: str | None, **options):
        if not name and not prefix:
            raise CommandError("give the agent name, or --prefix for one token")
        count = revoke_tokens(name=name, prefix=prefix)
        if count == 0:
            raise CommandError("no active token matched")
        self.stdout.write(f"Revoked {count} token{'s' if count != 1 else ''}.")
