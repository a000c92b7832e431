"""`python manage.py list_webhooks`: every webhook, with where its deliveries stand."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from memoryhub.operations.webhooks import hooks_of


class Command(BaseCommand):
    help = "List the webhooks: id, URL, project, events, and failed tries of the event waiting, if any."

    def handle(self, *args, **options):
        hooks = hooks_of(None)
        if not hooks:
            self.stdout.write("No webhooks.")
        for hook in hooks:
            state = f"failing ({hook.failures} tries; next {hook.next_attempt_at:%H:%M:%S})" if hook.failures else "ok"
            self.stdout.write(
                f"#{hook.pk}\t{hook.url}\t{hook.project or '(every project)'}\t{','.join(hook.events)}\t{state}"
            )
