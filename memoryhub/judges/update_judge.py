"""A second opinion on the pairs the update rules are unsure of (a disagreement reworded too much to call it an
edit): the configured LLM decides whether the newer replaces the older, disagrees with it, or is another fact.

Only with MEMORYHUB_GATE_LLM_JUDGE on and an LLM configured. Thinking is off; an empty, reasoning-only or
malformed answer, or none at all, leaves the rules' verdict standing (a conflict for a person). Asked by the
gate's update step (`writes.update_gate.judge_neighbours`), which sits on the floor above.
"""

from __future__ import annotations

import json
from typing import Any

from memoryhub.judges.llm import LLMError
from memoryhub.judges.opinion import second_opinion
from memoryhub.memories.updates import Verdict

_PROMPT = (
    "You keep the long-term memory of AI coding agents current. Given an OLDER and a NEWER note about a project, "
    "decide: 'replaces' if the newer states a new value for the same fact (the older is out of date); "
    "'disagrees' if they contradict each other but you cannot tell which is current; 'different' if both can be "
    "true (they are about different things, environments, services, people or places). Answer with one JSON "
    'object: {"verdict": "replaces" | "disagrees" | "different"}.'
)
_VERDICTS = {"replaces": Verdict.SUPERSEDE, "disagrees": Verdict.CONFLICT, "different": Verdict.DIFFERENT}


def ask_llm_about_update(*, older: str, newer: str) -> Verdict | None:
    """The LLM's verdict on one pair, or None (not configured, switched off, or no usable answer)."""
    question = json.dumps({"older": older[:2000], "newer": newer[:2000]}, ensure_ascii=False)
    return second_opinion(prompt=_PROMPT, question=question, read=_verdict, about="an update")


def _verdict(answer: dict[str, Any]) -> Verdict:
    verdict = _VERDICTS.get(answer.get("verdict"))
    if verdict is None:
        raise LLMError("the answer has no verdict of replaces, disagrees or different")
    return verdict
