"""`python manage.py grant USERNAME ROLE --project P`: give a person a role (viewer, curator, owner) in a project."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from memoryhub.models import Role
from memoryhub.people.persons import OPERATOR, grant_role


class Command(BaseCommand):
    help = "Give a person a role in a project (replacing the role they had there)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("role", choices=Role.values)
        parser.add_argument("--project", required=True)

    def handle(self, *args, username: str, role: str, project: str, **options):
        try:
            membership = grant_role(username=username, role=role, project=project, by=OPERATOR)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        self.stdout.write(f"{username} is now {membership.role} of {membership.project}.")
