"""Template filters for time on a memory (memories/validity.py): whether it has expired, when it was checked."""

from __future__ import annotations

from django import template

from memoryhub.memories.validity import is_expired

register = template.Library()


@register.filter
def expired(memory) -> bool:
    """Past its `expires_at`: out of search, recall and the tools."""
    return is_expired(memory)
