"""Word-level differences between a proposal's sources and its proposed text, for the review screen."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from memoryhub.memories.details import STOPWORDS


@dataclass
class Segment:
    kind: str  # "same", "del" (in the source, not in the proposal) or "ins" (new in the proposal)
    text: str


def _words(text: str) -> list[str]:
    return text.split()


def _key(word: str) -> str:
    # "minutes)" and "Minutes" are the same word to a reader: compare without case and edge punctuation.
    return re.sub(r"^\W+|\W+$", "", word.lower()) or word


def _kept_positions(a: list[str], b: list[str]) -> tuple[set[int], set[int]]:
    """Positions of words in a and in b that the longest matching blocks pair up."""
    matcher = SequenceMatcher(None, [_key(w) for w in a], [_key(w) for w in b], autojunk=False)
    in_a, in_b = set(), set()
    for block in matcher.get_matching_blocks():
        in_a.update(range(block.a, block.a + block.size))
        in_b.update(range(block.b, block.b + block.size))
    return in_a, in_b


def _segments(words: list[str], kept: set[int], changed_kind: str) -> list[Segment]:
    out: list[Segment] = []
    for index, word in enumerate(words):
        # "is", "a", "and" or a lone dash carry no fact: marking them drowns the names and numbers that do.
        carries_nothing = _key(word) in STOPWORDS or not re.search(r"\w", word)
        kind = "same" if index in kept or carries_nothing else changed_kind
        if out and out[-1].kind == kind:
            out[-1].text += " " + word
        else:
            out.append(Segment(kind, word if not out else " " + word))
    # Keep the separating space outside the marked span so highlights hug the words.
    for i, segment in enumerate(out):
        if segment.kind != "same" and segment.text.startswith(" ") and i > 0:
            out[i - 1].text += " "
            segment.text = segment.text[1:]
    return out


def source_segments(source: str, proposed: str) -> list[Segment]:
    """The source text with the words the proposal dropped marked as deleted."""
    a, b = _words(source), _words(proposed)
    kept, _ = _kept_positions(a, b)
    return _segments(a, kept, "del")


def proposed_segments(proposed: str, sources: list[str]) -> list[Segment]:
    """The proposed text with the words found in none of the sources marked as inserted."""
    b = _words(proposed)
    kept: set[int] = set()
    for source in sources:
        _, in_b = _kept_positions(_words(source), b)
        kept |= in_b
    return _segments(b, kept, "ins")


def pair_segments(older: str, newer: str) -> tuple[list[Segment], list[Segment]]:
    """Two texts side by side, each with the words the other does not have marked (older: del, newer: ins): what
    changed, in the memories' own words."""
    return source_segments(older, newer), proposed_segments(newer, [older])


# The update rules end a reason with the words they compared, stemmed and normalised ("'goe' -> 'honeybadger'"):
# right for a log, unreadable on a page that shows both texts with the changed words marked.
_COMPARED = re.compile(r"(:\s*)?'[^']*' -> '[^']*'")


def plain_reason(reason: str) -> str:
    """A reason without the rules' stemmed words: "says it changed ('moved')", "the same statement with another
    value, not said to be a change"."""
    return " ".join(_COMPARED.sub("", reason).split()).rstrip(" :;,")
