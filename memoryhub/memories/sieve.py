"""Patterns that pass over the texts they cannot match: `sieved(pattern)` reads once, from the pattern's own parse
tree, strings of which every match holds at least one (its needles), and answers "no match" at once for a text
holding none of them, without running the pattern.

Why: every write and every imported text is read by some eighty hand-written patterns (planted instructions,
secrets), and Python's `re` tries each of them at every position of the text; most texts hold none of the words a
rule starts from. The answers are the same by construction: a needle is part of every match, so a text without any
needle has no match, and any other text runs the pattern as before.

Only ASCII texts are sieved, lower-cased: with IGNORECASE a few letters outside ASCII match ASCII ones ('ſ' is 's',
the Kelvin sign is 'k'), which a lower-cased `in` would miss. For an ASCII text, an ASCII letter of the pattern matches
only itself in either case.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# The `re` module's own parser and its parse tree's opcodes: private, so a Python that moves them sieves nothing.
try:
    from re import _constants as sre
    from re import _parser
except ImportError:  # pragma: no cover - CPython 3.11-3.13 have both
    sre = _parser = None

Needles = frozenset[str]


def _plain(code: int) -> bool:
    """A literal character a needle may hold: ASCII, or one with no case (a CJK character), which IGNORECASE
    cannot match to an ASCII letter."""
    char = chr(code)
    return char.isascii() or char.lower() == char.upper() == char


def _sequence_needles(items: list) -> Needles | None:
    """Needles of a sequence: every item of it is in every match, so the needles of any one item do; the longest
    shortest needle is taken (the rarer). None: no item has any (a class of characters, a lookaround...)."""
    candidates: list[Needles] = []
    run: list[str] = []
    for op, value in [*items, (None, None)]:
        if op is sre.LITERAL and _plain(value):
            run.append(chr(value))
            continue
        if run:
            candidates.append(frozenset(["".join(run).lower()]))
            run = []
        inner = _item_needles(op, value)
        if inner is not None:
            candidates.append(inner)
    return max(candidates, key=lambda needles: (min(map(len, needles)), -len(needles)), default=None)


def _item_needles(op, value) -> Needles | None:
    if op is sre.BRANCH:  # one alternative matches: the needles of all of them, if each has some
        alternatives = [_sequence_needles(list(branch)) for branch in value[1]]
        return None if any(a is None for a in alternatives) else frozenset().union(*alternatives)
    if op is sre.SUBPATTERN:  # (group, flags added, flags removed, the group's items)
        return _sequence_needles(list(value[3]))
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):  # (least, most, the repeated items)
        return _sequence_needles(list(value[2])) if value[0] >= 1 else None
    if op is sre.ATOMIC_GROUP:
        return _sequence_needles(list(value))
    return None  # a class, a category, an anchor, a lookaround, a back reference: nothing certain


def needles(pattern: re.Pattern[str]) -> Needles | None:
    """Strings of which every match of `pattern` holds one (lower-cased), or None when none can be read from it."""
    if _parser is None:
        return None
    try:
        tree = list(_parser.parse(pattern.pattern, pattern.flags))
    except (AttributeError, TypeError, ValueError, re.error):  # a parser that reads otherwise: run the pattern always
        return None
    found = _sequence_needles(tree)
    return found if found and all(found) else None


class Sieved:
    """A compiled pattern, as `re` has it, that skips the texts holding none of its needles."""

    __slots__ = ("needles", "pattern")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.needles = needles(pattern)

    def may_match(self, text: str) -> bool:
        if self.needles is None or not text.isascii():
            return True
        lowered = text.lower()
        return any(needle in lowered for needle in self.needles)

    def search(self, text: str) -> re.Match[str] | None:
        return self.pattern.search(text) if self.may_match(text) else None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.pattern.finditer(text) if self.may_match(text) else iter(())


def sieved(pattern: re.Pattern[str]) -> Sieved:
    return Sieved(pattern)
