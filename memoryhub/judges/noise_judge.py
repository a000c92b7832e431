"""A second opinion on the writes the noise rules are unsure of: the configured LLM decides whether a text is a
durable memory or noise.

Only with MEMORYHUB_GATE_LLM_JUDGE on and an LLM configured. Thinking is off; an empty, reasoning-only or
malformed answer, or none at all, leaves the rules' verdict standing. Asked by the noise rules
(`writes.noise.judge_noise`), which sit on the floor above.
"""

from __future__ import annotations

from typing import Any

from memoryhub.judges.llm import LLMError
from memoryhub.judges.opinion import second_opinion

_JUDGE_PROMPT = (
    "You decide whether a note an AI coding agent wants to save is a durable memory or noise. Durable: a fact, "
    "decision, gotcha, preference or procedure that will still be true and useful in a later session, however "
    "short. Noise: session logs or summaries of what was done, status or progress notes, acknowledgements, "
    "greetings, thinking aloud, raw command output or log lines, questions, plans for later. Answer with one JSON "
    'object: {"durable": true or false, "why": "a short reason"}.'
)


def ask_llm_about_noise(text: str) -> tuple[bool, str] | None:
    """(durable, why) from the LLM, or None (not configured, switched off, or no usable answer)."""
    return second_opinion(prompt=_JUDGE_PROMPT, question=text[:2000], read=_durable, about="a write")


def _durable(answer: dict[str, Any]) -> tuple[bool, str]:
    durable = answer.get("durable")
    if not isinstance(durable, bool):
        raise LLMError("the answer has no true/false `durable`")
    why = answer.get("why") if isinstance(answer.get("why"), str) else ""
    return durable, why
