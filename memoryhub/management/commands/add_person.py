"""`python manage.py add_person USERNAME [--admin]`: a dashboard login.

The password comes from MEMORYHUB_PASSWORD when it is set (for scripts); otherwise a one-time set-password link is
printed as the last line, to pass on to the person (no email needed).
"""

from __future__ import annotations

import os

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from memoryhub.people.persons import add_person


class Command(BaseCommand):
    help = "Add a person who can log in to the dashboard; --admin makes a hub admin (sees and does everything)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--admin", action="store_true", help="a hub admin: every project, and manages people")
        parser.add_argument(
            "--base-url",
            default=os.environ.get("MEMORYHUB_BASE_URL", ""),
            help="where the dashboard is served, to print the link whole (default: MEMORYHUB_BASE_URL; else a path)",
        )

    def handle(self, *args, username: str, admin: bool, base_url: str, **options):
        password = os.environ.get("MEMORYHUB_PASSWORD") or None
        try:
            made = add_person(username=username, admin=admin, password=password)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        kind = "hub admin" if admin else "person (no role yet: give one with `.venv/bin/python manage.py grant`)"
        if password:
            self.stdout.write(f"Added {kind} {username!r}; the password is the one in MEMORYHUB_PASSWORD.")
            return
        self.stdout.write(f"Added {kind} {username!r}. Send them this link to set a password; it works once:")
        self.stdout.write(base_url.rstrip("/") + made.set_password_path)
