"""A second reader of agent chatter: a linear head over the write's own embedding, for what the sentence rules
(`noise`, `chatter`) let through. Rules read how a text is said word by word, and each new voice of an agent needs
new words; the head reads what the embedding model makes of the whole text (narration, a status read-out, a step
of the session, a pleasantry), so it carries over to voices no rule names.

Beside the vector it reads the text's words and word pairs (`embeddings.heads`): "still", "yet", "lol", "for now" say
how a turn is said where the embedding says only what it is about.

The weights are a file beside this module (`chatter_head.npz`), trained by the lab (`python -m bench heads`) on the
labelled chatter and facts in bench/, with two thresholds chosen by cross-validation so that the head refuses almost
no fact the rules keep there (at most one in 400): a higher one for a text the rules keep with a mark of a durable
fact (a word such as "because" or "never", a category they can name, a long text), where a fact that merely sounds
like chatter is likelier. They belong to one embedding model: with another (a provider's, or the e5 model) the head
stays silent and the rules alone decide.

It also speaks for a fact the rules refuse by a guess about its phrasing ("Let's keep the flags in flags.yaml", "I
checked with legal: IP addresses are kept 30 days", "Deleting a project soft-deletes its memories"): below a third,
low threshold, chosen by the same cross-validation so that it costs at most one point of labelled chatter refused, the
head reads the text as a fact and the write is kept. Losing a fact costs more than storing a line of chatter.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memoryhub.embeddings import heads
from memoryhub.embeddings.heads import read_head

WEIGHTS = Path(__file__).with_name("chatter_head.npz")
REASON = (
    "it reads as agent chatter (narration, status or a step of the session), not a fact; store the lasting fact, "
    "decision or gotcha instead (true on its own, for any agent reading it later)"
)


@dataclass(frozen=True)
class Head:
    weights: np.ndarray
    bias: float
    threshold: float  # refuse above this probability of chatter
    model_id: str  # the embedding model the weights were trained on
    threshold_marked: float = 0.0  # for a text the rules mark as durable; 0: the same as `threshold`
    threshold_fact: float = 0.0  # read as a fact below this probability of chatter; 0: never
    vector_scale: float = 1.0  # the vector's part, weighed against the word slots (0/1 each)

    def threshold_for(self, *, marked_durable: bool) -> float:
        return max(self.threshold, self.threshold_marked) if marked_durable else self.threshold

    def chatter_probability(self, text: str, vector: np.ndarray) -> float:
        return heads.probability(self.weights, self.bias, text, vector, vector_scale=self.vector_scale)


@functools.cache
def _head() -> Head | None:
    fields = read_head(WEIGHTS)
    return None if fields is None else Head(**fields)


def _probability(text: str, vector: np.ndarray, model_id: str) -> tuple[Head, float] | None:
    """The head and its probability that `text` (whose embedding is `vector`) is chatter, or None when no head
    belongs to this model."""
    head = _head()
    if head is None or head.model_id != model_id or not heads.reads(head.weights, vector):
        return None
    return head, head.chatter_probability(text, np.asarray(vector, dtype=np.float32))


def reads_as_chatter(text: str, vector: np.ndarray, *, model_id: str, marked_durable: bool = False) -> bool:
    """Does the head, trained for this model's vectors, read `text` (whose embedding is `vector`) as chatter?
    `marked_durable`: the rules found a mark of a durable fact in the text, and the head must be surer."""
    read = _probability(text, vector, model_id)
    return read is not None and read[1] > read[0].threshold_for(marked_durable=marked_durable)


def reads_as_fact(text: str, vector: np.ndarray, *, model_id: str) -> bool:
    """Is the head, trained for this model's vectors, sure enough that `text` is a fact to overturn a refusal the
    rules made by how the text is phrased?"""
    read = _probability(text, vector, model_id)
    return read is not None and read[1] < read[0].threshold_fact
