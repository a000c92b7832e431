"""Asking the configured LLM for a second opinion on one question of the gate, the way both judges ask.

Only with MEMORYHUB_GATE_LLM_JUDGE on and an LLM configured. Thinking is off (`llm.ChatClient`); an empty,
reasoning-only or malformed answer, one `read` refuses (LLMError), or none at all, is no opinion: the rules' verdict
stands.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings

from memoryhub.judges.llm import LLMError, get_llm

logger = logging.getLogger(__name__)

Opinion = TypeVar("Opinion")


def second_opinion(*, prompt: str, question: str, read: Callable[[dict[str, Any]], Opinion],
                   about: str) -> Opinion | None:  # fmt: skip
    """What `read` makes of the LLM's JSON answer to `question` under the system `prompt`, or None (switched off,
    not configured, or no usable answer; `about` names the question in the log line)."""
    if not settings.MEMORYHUB_GATE_LLM_JUDGE:
        return None
    try:
        client = get_llm()
        if client is None:
            return None
        messages = [{"role": "system", "content": prompt}, {"role": "user", "content": question}]
        return read(client.complete_json(messages))
    except LLMError as exc:
        logger.info("the LLM could not judge %s (%s); the rules decide", about, exc)
        return None
