"""drf-spectacular hooks: document the paths as the contract spells them (no trailing slash; both are served)."""

from __future__ import annotations


def strip_trailing_slashes(endpoints):
    return [(path.rstrip("/") or "/", regex, method, callback) for path, regex, method, callback in endpoints]
