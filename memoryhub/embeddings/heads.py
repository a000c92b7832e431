"""What a head over the bundled model's vectors reads, and its weights file (the gate's chatter head, the planted
head): a small logistic regression shipped as a numpy `.npz` beside the code that reads it, trained by `python -m bench
heads` and `python -m bench planted_head`.

Beside the vector a head reads the text's words and word pairs, hashed into `SLOTS` slots (a link or an address read
as one word): the embedding says what a text is about, the words how it is said ("still", "yet", "whenever", a link
with a referral code), and in cross-validation the two together beat the vector alone for both heads.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path
from typing import Any

import numpy as np

SLOTS = 4096  # hashed word and word-pair slots: few enough for a small file, enough that few pairs share a slot

_LINK = re.compile(r"https?://\S+|\b[\w.-]+\.(?:io|com|net|dev|org|xyz|sh|co|ai|app|cn|ru|tools|cloud|store)\b\S*")
_ADDRESS = re.compile(r"\S+@\S+")
_WORD = re.compile(r"[a-z0-9']+")


def words_and_pairs(text: str) -> set[str]:
    """The lowercased words of `text` and each pair of neighbours; a link is the word `zlink`, an address `zmail`
    (which host a text names is not what a head reads)."""
    lowered = _ADDRESS.sub(" zmail ", _LINK.sub(" zlink ", text.lower()))
    found = _WORD.findall(lowered)
    return set(found) | {f"{a} {b}" for a, b in zip(found, found[1:], strict=False)}


def word_slots(text: str) -> list[int]:
    """The slots `text`'s words and word pairs fill, each once."""
    return sorted({zlib.crc32(item.encode()) % SLOTS for item in words_and_pairs(text)})


def features(text: str, vector: np.ndarray, *, vector_scale: float) -> np.ndarray:
    """What a head with word slots reads: the write's vector (scaled), then one slot per hashed word or pair (0/1)."""
    slots = np.zeros(SLOTS, dtype=np.float32)
    slots[word_slots(text)] = 1.0
    return np.r_[np.asarray(vector, dtype=np.float32) * vector_scale, slots]


def probability(weights: np.ndarray, bias: float, text: str, vector: np.ndarray, *, vector_scale: float) -> float:
    """`sigmoid(features(text, vector) . weights + bias)` without building the features: the vector's part, then
    the weights of the slots the text fills (each 0 or 1, so their weights add up). Weights as long as the vector
    read the vector alone."""
    dims = len(vector)
    logit = float(np.dot(np.asarray(vector, dtype=np.float32), weights[:dims])) * vector_scale + bias
    if len(weights) > dims:
        logit += float(weights[dims:][word_slots(text)].sum())
    return float(1.0 / (1.0 + np.exp(-logit)))


def reads(weights: np.ndarray, vector: np.ndarray) -> bool:
    """Can a head with these weights read this vector: as long as it, or with the word slots after it?"""
    return len(weights) in (len(vector), len(vector) + SLOTS)


def read_head(path: Path) -> dict[str, Any] | None:
    """The file's arrays as a head's fields: `weights` (float32), `model_id` (the model whose vectors it reads), and
    every other entry (the bias and the thresholds) as a number. None when the file is missing."""
    if not path.exists():
        return None
    with np.load(path) as data:
        numbers = {name: float(data[name]) for name in data.files if name not in ("weights", "model_id")}
        return {"weights": data["weights"].astype(np.float32), "model_id": str(data["model_id"]), **numbers}
