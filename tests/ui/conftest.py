"""A logged-in curator, an htmx flavour of the test client, and a small store across two projects and globals."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from memoryhub.models import Memory
from tests.factories import remember

HX = {"HTTP_HX_REQUEST": "true"}  # what htmx sends with every request it makes


@pytest.fixture(autouse=True)
def _fresh_test_state(settings):
    from django.core.cache import cache

    cache.clear()  # the filter menus are cached for a minute; each test starts without them
    # The default hasher spends about a second per password on purpose; these tests are not about hashing.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def curator(db):
    # A hub admin, as every login made before roles existed became (migration 0006): these tests are about the
    # pages, not roles (tests/ui/test_it_honours_roles.py is).
    return get_user_model().objects.create_superuser("curator", password="a-long-test-password")


@pytest.fixture
def ui(curator) -> Client:
    client = Client()
    client.force_login(curator)
    return client


@pytest.fixture
def store(db) -> dict[str, Memory]:
    return {
        "pagination": remember(
            "The API uses cursor pagination for every list endpoint",
            project="alpha",
            category="decision",
            tier="semantic",
            tags=["api", "pagination"],
            importance=0.8,
        ),
        "deploy": remember(
            "Deploys run through GitHub Actions to Fly.io",
            project="alpha",
            category="fact",
            tier="semantic",
            tags=["deploy"],
            source="codex",
        ),
        "pytest": remember(
            "Run the tests with pytest -n auto and --reuse-db",
            project="beta",
            category="skill",
            tier="procedural",
            tags=["testing"],
        ),
        "editor": remember(
            "The user edits code in Neovim with LazyVim",
            category="environment",
            tier="semantic",
            tags=["editor"],
            confirmed=True,
        ),
    }


def row_ids(html: str) -> list[int]:
    """The memory ids of the rows a list response shows, in order."""
    import re

    return [int(n) for n in re.findall(r'<tr id="memory-(\d+)"', html)]
