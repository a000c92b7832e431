"""Security headers: a strict Content-Security-Policy everywhere, and API answers that no cache keeps."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_dashboard_allows_only_its_own_scripts_and_cannot_be_framed():
    response = Client().get("/", follow=False)
    policy = response["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'self';" in policy and "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert "camera=()" in response["Permissions-Policy"]


def test_api_answers_are_never_cached():
    response = Client().get("/api/v1/health")
    assert response["Cache-Control"] == "no-store"
    assert "Content-Security-Policy" in response
