"""What the dashboard's two suites (tests/ui through the test client, tests/e2e in a browser) share: a fresh cache
and a fast password hasher for each test, the curator who logs in, and a small store across two projects and the
globals. Each conftest imports the autouse fixture, so pytest applies it to that suite alone."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from memoryhub.models import Membership, Memory
from tests.factories import remember


@pytest.fixture(autouse=True)
def _fresh_test_state(settings):
    from django.core.cache import cache

    cache.clear()  # the filter menus are cached for a minute; each test starts without them
    # The default hasher spends about a second per password on purpose; these tests are not about hashing.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def viewer_of(project: str) -> tuple[Client, object]:
    """A test client logged in as vera, a viewer of `project` only, and vera (to give her more roles)."""
    person = get_user_model().objects.create_user("vera", password="a-long-test-password")
    Membership.objects.create(user=person, project=project, role="viewer")
    client = Client()
    client.force_login(person)
    return client, person


def create_curator(password: str):
    # A hub admin, as every login made before roles existed became (migration 0006): these tests are about the
    # pages, not roles (tests/ui/test_it_honours_roles.py is).
    return get_user_model().objects.create_superuser("curator", password=password)


# The small store, by name: each memory's content and fields, written in this order.
SMALL_STORE: dict[str, dict] = {
    "pagination": {
        "content": "The API uses cursor pagination for every list endpoint",
        "project": "alpha", "category": "decision", "tier": "semantic", "tags": ["api", "pagination"],
        "importance": 0.8,
    },
    "deploy": {
        "content": "Deploys run through GitHub Actions to Fly.io",
        "project": "alpha", "category": "fact", "tier": "semantic", "tags": ["deploy"], "source": "codex",
    },
    "pytest": {
        "content": "Run the tests with pytest -n auto and --reuse-db",
        "project": "beta", "category": "skill", "tier": "procedural", "tags": ["testing"],
    },
    "editor": {
        "content": "The user edits code in Neovim with LazyVim",
        "category": "environment", "tier": "semantic", "tags": ["editor"], "confirmed": True,
    },
}  # fmt: skip


def remember_small_store(**changes: dict) -> dict[str, Memory]:
    """The small store written by the domain, a memory's fields changed where `changes` names it."""
    return {name: remember(**{**fields, **changes.get(name, {})}) for name, fields in SMALL_STORE.items()}
