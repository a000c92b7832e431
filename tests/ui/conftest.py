"""A logged-in curator, an htmx flavour of the test client, and a small store across two projects and globals."""

from __future__ import annotations

import pytest
from django.test import Client

from memoryhub.models import Memory
from tests.dashboard_fixtures import _fresh_test_state, create_curator, remember_small_store  # noqa: F401 (autouse)
from tests.factories import remember  # noqa: F401 (the suite's tests import it from here)

HX = {"HTTP_HX_REQUEST": "true"}  # what htmx sends with every request it makes


@pytest.fixture
def curator(db):
    return create_curator("a-long-test-password")


@pytest.fixture
def ui(curator) -> Client:
    client = Client()
    client.force_login(curator)
    return client


@pytest.fixture
def store(db) -> dict[str, Memory]:
    return remember_small_store()


def row_ids(html: str) -> list[int]:
    """The memory ids of the rows a list response shows, in order."""
    import re

    return [int(n) for n in re.findall(r'<tr id="memory-(\d+)"', html)]
