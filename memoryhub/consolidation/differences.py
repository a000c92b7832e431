"""What the sources of a merge say differently: the words a person must check before one text replaces them all.

`differing_names` (clustering.py) catches what names one thing (numbers, times, paths, capitalised names). Two
more kinds of difference hide in plain lower-case words and are just as much a second fact:
- a swapped noun: "the billing-svc team owns the payments module" / "... the checkout module" differ in one word on
  each side, with the rest the same; the word each says instead of the other's is the fact a merge would drop;
- polarity: "always tabs" / "never tabs" (or a "not", "no", "don't") say the opposite with almost the same words.
A paraphrase that rewords much ("restart the workers after a change" / "after changing it, restart them") is not
flagged word by word: only a difference of at most SWAP_WORDS words on each side counts as a swap.
"""

from __future__ import annotations

import re

from memoryhub.consolidation.clustering import differing_names, normalise_word, text_words

SWAP_WORDS = 2  # at most this many words on each side, the rest shared: a substitution, not a rewording
_POLARITY = re.compile(r"\b(always|never|not|no|don't|dont|doesn't|isn't|aren't|won't|cannot|can't|avoid)\b", re.I)
_NEGATIVE = frozenset(
    {"never", "not", "no", "don't", "dont", "doesn't", "isn't", "aren't", "won't", "cannot", "can't", "avoid"}
)


def _polarity(text: str) -> str:
    words = {w.lower() for w in _POLARITY.findall(text)}
    if words & _NEGATIVE:
        return "never"
    return "always" if "always" in words else ""


_TOKEN = re.compile(r"\w[\w./-]*\w|\w")


def _as_written(texts: list[str]) -> dict[str, str]:
    """Each normalised word as a text wrote it first ("payments", not the stem "payment"): a warning names words."""
    written: dict[str, str] = {}
    for text in texts:
        for token in _TOKEN.findall(text):
            written.setdefault(normalise_word(token.lower()), token.lower())
    return written


def _variants(a: str, b: str) -> bool:
    # "change"/"changing", "build"/"built": one word in two forms, not two facts.
    stem = min(len(a), len(b)) - 2
    return stem >= 3 and a[:stem] == b[:stem]


def _swapped(texts: list[str]) -> list[str]:
    parsed = [text_words(t).words - _NEGATIVE - {"always", "alway"} for t in texts]  # polarity is judged apart
    seen: dict[str, None] = {}
    for i, a in enumerate(parsed):
        for b in parsed[i + 1 :]:
            only_a = {w for w in a - b if not any(_variants(w, v) for v in b - a)}
            only_b = {w for w in b - a if not any(_variants(w, v) for v in a - b)}
            if only_a and only_b and len(only_a) <= SWAP_WORDS and len(only_b) <= SWAP_WORDS and len(a & b) >= 2:
                for word in (*sorted(only_a), *sorted(only_b)):
                    seen.setdefault(word, None)
    return list(seen)


def fact_differences(texts: list[str]) -> list[str]:
    """Every word (name, number, swapped noun) or polarity ("always/never") in which `texts` differ, in a stable
    order: empty when one text could stand for all of them."""
    texts = [t for t in texts if t]
    if len(texts) < 2:
        return []
    polar = _NEGATIVE | {"always", "alway"}  # said once, as "always/never", not as two names
    found = dict.fromkeys(name for name in differing_names(texts) if name not in polar)
    shown = {normalise_word(w) for w in found}
    written = _as_written(texts)
    for word in _swapped(texts):
        if word not in shown:
            found.setdefault(written.get(word, word), None)
    if len({_polarity(t) for t in texts}) > 1:
        found.setdefault("always/never", None)
    return list(found)
