"""First-start chores for the run command: an admin login, demo data in an empty store, an agent token."""

import secrets

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from memoryhub.agents.tokens import create_token
from memoryhub.memories.demo import demo_present
from memoryhub.models import ApiToken, Memory

MANAGE = ".venv/bin/python manage.py"


class Command(BaseCommand):
    help = "Create the admin login and a first agent token if there are none, and seed demo data into an empty store."

    def add_arguments(self, parser):
        parser.add_argument("--no-demo", action="store_true", help="do not seed demo memories")
        parser.add_argument("--admin-user", default="admin")

    def handle(self, *args, no_demo: bool, admin_user: str, **options):
        User = get_user_model()
        if not User.objects.filter(is_superuser=True).exists():
            password = secrets.token_urlsafe(12)
            User.objects.create_superuser(admin_user, f"{admin_user}@localhost", password)
            self.stdout.write(f"Dashboard login: user {admin_user!r}, password {password!r} (shown once).")
        else:
            self.stdout.write(f"Dashboard login: your existing superuser ({MANAGE} changepassword NAME to reset).")
        if not no_demo and not Memory.objects.exists():
            call_command("seed_demo", stdout=self.stdout)
            self.stdout.write(
                "To start without demo data: remove it, or next time on an empty store run `bash scripts/run.sh "
                "--no-demo`."
            )
        elif demo_present():
            self.stdout.write(f"Demo data is still here; remove it with `{MANAGE} seed_demo --remove`.")
        if not ApiToken.objects.filter(revoked_at__isnull=True).exists():
            _, token = create_token(name="default-agent")
            self.stdout.write(
                f"API token for agent 'default-agent' (shown once; it may use every project, so name one per request "
                f"or set MEMORYHUB_PROJECT): {token}"
            )
        else:
            self.stdout.write(f"API tokens exist already; make another with: {MANAGE} create_token NAME")
