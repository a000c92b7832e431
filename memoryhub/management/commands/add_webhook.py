"""`python manage.py add_webhook URL [--project P] [--events E ...]`: the last line printed is the signing secret."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from memoryhub.operations.webhooks import EVENTS, add_webhook


class Command(BaseCommand):
    help = "Add a webhook: a URL told of changes to the memories, signed with a secret shown once on the last line."

    def add_arguments(self, parser):
        parser.add_argument("url", help="the receiver, http:// or https://")
        parser.add_argument("--project", help="only this project's events (default: every project's)")
        parser.add_argument(
            "--events", nargs="+", metavar="EVENT", help=f"the events to send (default: all): {', '.join(EVENTS)}"
        )

    def handle(self, *args, url: str, project: str | None, events: list[str] | None, **options):
        try:
            hook = add_webhook(url=url, project=project, events=events, actor="manage.py")
        except ValidationError as exc:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from exc
        scope = f"project {hook.project}" if hook.project else "every project"
        self.stdout.write(f"Webhook #{hook.pk} -> {hook.url} ({scope}; {', '.join(hook.events)})")
        self.stdout.write("Requests carry X-MemoryHub-Signature: sha256=<HMAC-SHA256 of the body>. Secret, shown once:")
        self.stdout.write(hook.secret)
