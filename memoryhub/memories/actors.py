"""Who signed a change: an agent (an API token's name), a person (a dashboard login) or the system (a command).

Agents and people sign history with a name, so the two sets of names must never meet: `check_agent_name` refuses a
token name that is a person's username or a reserved word (case and accents aside), and `check_person_name` a
username that is an agent's. `actor_kinds` reads a list of names back as kinds for the history; a name both sets
hold (possible only in a store made before the rule) reads as an agent, so no token passes for a person.
"""

from __future__ import annotations

import unicodedata
from typing import Literal

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from memoryhub.models import ApiToken

ActorKind = Literal["agent", "person", "system"]

# Words a reader of the history would take for a role or the product itself, not for one agent.
RESERVED_NAMES = frozenset(
    {
        "admin", "administrator", "root", "superuser", "system", "memoryhub", "person", "people", "human", "user",
        "owner", "viewer", "agent", "agents", "assistant", "gate", "scrub", "decay", "anonymous", "someone",
        "nobody", "manage.py", "staff",
    }
)  # fmt: skip


def folded(name: str) -> str:
    """A name as two names are compared: case, accents, spaces and separators aside (`Alice`, `alice `, `al-ice`)."""
    text = unicodedata.normalize("NFKD", name).casefold()
    return "".join(ch for ch in text if ch.isalnum())


def _usernames() -> set[str]:
    return {folded(u) for u in get_user_model().objects.values_list("username", flat=True)}


def check_agent_name(name: str) -> None:
    """ValidationError naming why, when an agent may not take `name`."""
    key = folded(name)
    if key in {folded(w) for w in RESERVED_NAMES}:
        raise ValidationError({"name": f"'{name}' is a reserved word; an agent's name must not read as a role or as "
                                       "the system (try the agent's own name, such as claude-code)"})  # fmt: skip
    if key in _usernames():
        raise ValidationError({"name": f"'{name}' is a person's username; an agent's name must differ from every "
                                       "person's, so the history never mistakes one for the other"})  # fmt: skip


def check_person_name(username: str) -> None:
    """ValidationError when `username` is an agent's name (the other way round of `check_agent_name`)."""
    key = folded(username)
    if key in {folded(n) for n in ApiToken.objects.values_list("name", flat=True)}:
        raise ValidationError({"username": f"'{username}' is an agent's name; a person's username must differ from "
                                           "every agent's"})  # fmt: skip


def actor_kinds(names: list[str] | set[str]) -> dict[str, ActorKind]:
    """{name: kind} for the names given (see the module docstring)."""
    names = set(names)
    agents = set(ApiToken.objects.filter(name__in=names).values_list("name", flat=True))
    people = set(get_user_model().objects.filter(username__in=names).values_list("username", flat=True))
    return {n: "agent" if n in agents else "person" if n in people else "system" for n in names}
