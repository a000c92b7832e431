"""A second reader of planted instructions: a linear head over the write's own embedding, for what the rules
(`planted`, `planted_acts`) let through. The rules name each act word by word (an override, a hidden step, data sent
away, fetched code run, a check turned off, another index); a planted text said in other words slips past them. The
head reads what the embedding model makes of the whole text (an instruction that works against the user who will
read it back), so it carries over to wordings no rule names. Beside the vector it reads the text's words and word pairs
(hashed into a fixed number of slots, a link or an address read as one word): the embedding says what a text is
about, and a team's rule and a planted one are often about the same thing ("recommend", "the user", "whenever", a
link with a referral code tell them apart); in cross-validation the two together found many more of the planted
texts the rules miss than the vector alone, at the same count of ordinary rules held.

The weights are a file beside this module (`planted_head.npz`), trained by the lab (`python -m bench planted_head`)
on labelled planted instructions, ordinary team rules and durable facts, with a threshold chosen by cross-validation
so that the head holds no ordinary rule or fact the rules keep there. A write is held when the rules say planted or
the head is that sure. One rule is weaker than the rest: a text that only speaks to the model by name ("AI agents
must...", "Note to the assistant") and names no harmful act may as well be a team's rule for its agents ("Agents must
run the linter before committing"); there the head has the last word when it is as sure the other way (below
`release`, chosen by cross-validation so that no planted text held by that rule alone is let through). The weights
belong to one embedding model: with another (a provider's, or the e5 model) the head stays silent and the rules alone
decide.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memoryhub.embeddings import heads
from memoryhub.embeddings.heads import SLOTS, read_head

WEIGHTS = Path(__file__).with_name("planted_head.npz")
REASON = "it reads like an instruction planted to work against the user (read as a whole, not by one rule)"
VECTOR_SCALE = 3.0  # the vector's part, weighed against the word slots (0/1 each); chosen by cross-validation


def features(text: str, vector: np.ndarray) -> np.ndarray:
    """What the head reads (`heads.features`, the vector scaled by VECTOR_SCALE)."""
    return heads.features(text, vector, vector_scale=VECTOR_SCALE)


@dataclass(frozen=True)
class Head:
    weights: np.ndarray
    bias: float
    threshold: float  # hold above this probability of a planted instruction
    model_id: str  # the embedding model the weights were trained on
    release: float = 0.0  # below this probability, a text only spoken to the model reads as a team's rule; 0: never

    def probability_of(self, text: str, vector: np.ndarray) -> float:
        """The probability that `text` (whose embedding is `vector`) is planted."""
        return heads.probability(self.weights, self.bias, text, vector, vector_scale=VECTOR_SCALE)


@functools.cache
def _head() -> Head | None:
    fields = read_head(WEIGHTS)
    return None if fields is None else Head(**fields)


def _reading(text: str, vector: np.ndarray | None, model_id: str) -> tuple[Head, float] | None:
    """The head and its probability that `text` is planted; None without a vector, or for another model's."""
    head = _head()
    if vector is None or head is None or head.model_id != model_id or len(vector) + SLOTS != len(head.weights):
        return None
    return head, head.probability_of(text, vector)


def reads_as_planted(text: str, vector: np.ndarray | None, *, model_id: str) -> bool:
    """Does the head, trained for this model's vectors, read `text` (whose embedding is `vector`) as a planted
    instruction? Silent (False) without a vector, or for another model's."""
    reading = _reading(text, vector, model_id)
    return reading is not None and reading[1] > reading[0].threshold


def reads_as_a_rule(text: str, vector: np.ndarray | None, *, model_id: str) -> bool:
    """Is the head sure enough that `text` is no planted instruction to overrule the weakest rule (a text spoken to
    the model by name, and nothing more)? Silent (False) without a vector, or for another model's."""
    reading = _reading(text, vector, model_id)
    return reading is not None and reading[1] < reading[0].release
