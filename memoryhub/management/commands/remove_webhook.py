"""`python manage.py remove_webhook ID`: the hook and its delivery log go; nothing more is sent to it."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from memoryhub.operations.webhooks import remove_webhook


class Command(BaseCommand):
    help = "Remove a webhook by its id (see list_webhooks)."

    def add_arguments(self, parser):
        parser.add_argument("id", type=int)

    def handle(self, *args, id: int, **options):
        if not remove_webhook(hook_id=id):
            raise CommandError(f"no webhook #{id}")
        self.stdout.write(f"Webhook #{id} removed.")
