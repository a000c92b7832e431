"""The chat proxy's round policy: one home for both of its paths, the JSON answer and the stream.

A round is one request to the upstream model. When the model calls memory tools the proxy runs them and asks again,
for at most MAX_MEMORY_ROUNDS rounds; the tool answers of the last one carry LIMIT_NOTE, and the request after it
may call no tool unless the client brought tools of its own. Past the limit the model's memory calls are dropped and
the client's are handed back. A model that still asks only for memory tools and says nothing is asked once more with
every tool switched off, and if that brings no text either the client gets NO_ANSWER, never an empty reply.

The proxy reads the limit only through these functions, so both paths stop where this module says.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

MAX_MEMORY_ROUNDS = 3
LIMIT_NOTE = (
    "Memory tool limit reached ({rounds} rounds in this request). Do not call memory tools again; "
    "answer now with what you already have."
)
NO_ANSWER = (
    "(MemoryHub: the model kept asking for memory tools after the limit of {rounds} rounds and gave no answer. "
    "Ask again, perhaps more precisely.)"
)


class RoundState(Protocol):
    """What the policy reads of an exchange (the proxy's `Exchange` is one)."""

    rounds: int  # memory rounds run so far
    forced_answer: bool  # the one request with every tool switched off has been made


class Step(StrEnum):
    """What the proxy does with the model's turn."""

    MEMORY_ROUND = "memory round"  # run our calls, then ask the model again with their results
    FORCE_ANSWER = "force answer"  # ask once more with every tool switched off
    NO_ANSWER = "no answer"  # the forced request said nothing either: the client gets NO_ANSWER
    ANSWER = "answer"  # hand the turn to the client: its text and the client's own tool calls

    @property
    def asks_again(self) -> bool:
        """Does the proxy make another request to the model?"""
        return self in (Step.MEMORY_ROUND, Step.FORCE_ANSWER)


def next_step(state: RoundState, *, ours: bool, theirs: bool, said: bool) -> Step:
    """The step after a turn that asked for memory tools (`ours`) and client tools (`theirs`) and said something
    (`said`, text that is not blank)."""
    if ours and not rounds_spent(state):
        # A mixed turn runs only our calls; the model asks for the client's again with the results in hand.
        return Step.MEMORY_ROUND
    if ours and not theirs and not said:
        return Step.NO_ANSWER if state.forced_answer else Step.FORCE_ANSWER
    return Step.ANSWER  # past the limit our calls are dropped and the client's kept


def rounds_spent(state: RoundState) -> bool:
    """Have the memory rounds of this request all been run?"""
    return state.rounds >= MAX_MEMORY_ROUNDS


def tools_switched_off(state: RoundState, *, offers_memory_tools: bool, client_has_tools: bool) -> bool:
    """May the next request call no tool at all? Once the rounds are spent, when only memory tools were offered
    (the client's own stay callable), and always for the forced request."""
    return (rounds_spent(state) and offers_memory_tools and not client_has_tools) or state.forced_answer


def limit_note() -> str:
    """The note on every tool answer of the last memory round."""
    return LIMIT_NOTE.format(rounds=MAX_MEMORY_ROUNDS)


def no_answer() -> str:
    """The client's reply when the model gave none, even with every tool switched off."""
    return NO_ANSWER.format(rounds=MAX_MEMORY_ROUNDS)
