"""Writes about people: make a person, give or take a role, and the one-time link that sets a password.

The link is Django's password reset token (the same machinery as "forgot my password"): it is valid until the
password is set or `PASSWORD_RESET_TIMEOUT` passes, and stops working once used, because the token is derived from
the password hash it replaces. No email is needed: whoever creates the person passes the link on.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from memoryhub.memories.actors import check_person_name
from memoryhub.models import Membership, Role
from memoryhub.people.roles import Access, Action


class NotAllowed(Exception):
    """The person may not do this (the dashboard answers 403)."""


@dataclass(frozen=True)
class NewPerson:
    user: AbstractBaseUser
    set_password_path: str  # "" when a password was given; otherwise the one-time link's path, shown once


def set_password_path(user) -> str:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": default_token_generator.make_token(user)})


def add_person(*, username: str, admin: bool = False, password: str | None = None) -> NewPerson:
    """A new dashboard login. With a password it can log in now; without one it gets a one-time link to set it."""
    username = (username or "").strip()
    User = get_user_model()
    if not username or len(username) > 150:
        raise ValidationError({"username": "a username is 1 to 150 characters"})
    if User.objects.filter(username=username).exists():
        raise ValidationError({"username": f"{username!r} already exists"})
    check_person_name(username)
    user = User(username=username, is_superuser=admin, is_staff=admin)
    if password:
        validate_password(password, user)
        user.set_password(password)
    else:
        user.set_unusable_password()
    user.save()
    return NewPerson(user=user, set_password_path="" if password else set_password_path(user))


def _check_manage(access: Access, project: str) -> None:
    if not access.can(Action.MEMBERS, project):
        raise NotAllowed(f"you may not manage the people of project {project!r}")


def _clean_project(project: str) -> str:
    project = (project or "").strip()
    if not project or len(project) > 200:
        raise ValidationError({"project": "a project name is 1 to 200 characters"})
    return project


class NoSuchPerson(ValidationError):
    """A grant named a username nobody has. The dashboard answers an owner as for a grant made (whether a username
    exists is a hub admin's to know); the command line, run by an operator, says so."""


def grant_role(*, username: str, role: str, project: str, by: Access) -> Membership:
    """Give a person a role in a project (replacing the one they had there)."""
    project = _clean_project(project)
    _check_manage(by, project)
    if role not in Role.values:
        raise ValidationError({"role": f"a role is one of {', '.join(Role.values)}"})
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise NoSuchPerson({"username": f"there is no person {username!r}"})
    with transaction.atomic():
        membership, _ = Membership.objects.update_or_create(
            user=user, project=project, defaults={"role": role, "granted_by": by.username}
        )
    return membership


def revoke_role(*, username: str, project: str, by: Access) -> bool:
    """Take a person's role in a project away; False when they had none."""
    _check_manage(by, project)
    deleted, _ = Membership.objects.filter(user__username=username, project=project).delete()
    return bool(deleted)


# The commands run as the machine's operator, who may do everything.
OPERATOR = Access(username="manage.py", is_admin=True)
