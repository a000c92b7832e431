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

A pattern that is a list of alternatives (`a|b|c`, as most rules are) is also read alternative by alternative: only
the alternatives whose needles the text holds are asked where the first match starts, and the whole pattern is then
matched there, so it gives the same spans and groups (`_alternatives`). The planted rules read a text in 260 -> 90
microseconds with it (3,000 synthetic memories, AMD EPYC): an import judges every text it stores.

A text is read for the needles of every sieved pattern at once, the first time any pattern asks about it
(`_needles_in`), and each pattern then only compares its own needles with what was found. Asking each pattern's
needles in turn (about 20 of them, for each of a hundred patterns a text meets) cost more than the patterns it spared.
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

# The `re` module's own parser and its parse tree's opcodes: private, so a Python that moves them sieves nothing.
try:
    from re import _compiler, _parser
    from re import _constants as sre
except ImportError:  # pragma: no cover - CPython 3.11-3.13 have them
    sre = _parser = _compiler = None

Needles = frozenset[str]
T = TypeVar("T")


@functools.cache
def _plain(code: int) -> bool:
    """A literal character a needle may hold: ASCII, or one that no ASCII character matches even under IGNORECASE (a
    CJK character, which has no case; a Cyrillic or Greek letter). Only ASCII texts are sieved, and none holds such a
    character, so an alternative that needs one is passed over in all of them: a Russian alternative of a pattern
    otherwise left the pattern no needle but a space, and it ran on every text. Not 'ſ', 'ı' or the Kelvin sign,
    which IGNORECASE matches to 's', 'i' and 'k'."""
    char = chr(code)
    if char.isascii():
        return True
    literal = re.compile(re.escape(char), re.IGNORECASE)
    return not any(literal.fullmatch(chr(ascii_code)) for ascii_code in range(128))


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


# A long needle is looked for only where the text holds its first HEAD characters: one set of the text's HEAD-long
# pieces answers for some five hundred needles.
HEAD = 4


@dataclass(frozen=True)
class _Index:
    """The needles of every sieved pattern: the short ones, and the others by their first HEAD characters."""

    short: tuple[str, ...]
    by_head: dict[str, tuple[str, ...]]
    heads: frozenset[str]


def _build_index(patterns: list[Sieved]) -> _Index:
    every = set().union(*(pattern.needles for pattern in patterns if pattern.needles))
    by_head: dict[str, list[str]] = {}
    for needle in sorted(every):
        if len(needle) >= HEAD:
            by_head.setdefault(needle[:HEAD], []).append(needle)
    short = tuple(sorted(needle for needle in every if len(needle) < HEAD))
    return _Index(short, {head: tuple(found) for head, found in by_head.items()}, frozenset(by_head))


def _found(index: _Index, lowered: str) -> frozenset[str]:
    """The needles of the index that `lowered` holds: exactly those `needle in lowered` is true for."""
    found = {needle for needle in index.short if needle in lowered}
    pieces = {lowered[at : at + HEAD] for at in range(len(lowered) - HEAD + 1)}
    for head in index.heads & pieces:
        found.update(needle for needle in index.by_head[head] if needle in lowered)
    return frozenset(found)


_patterns: weakref.WeakSet[Sieved] = weakref.WeakSet()
_index: _Index | None = None  # rebuilt when a pattern is made
# The last text read and what it holds, with the index it was read by. Replaced whole, never changed: a thread
# reading it sees one text's answer or another's, and takes it only for its own text and the current index.
_last: tuple[str, _Index, frozenset[str]] | None = None


def _register(pattern: Sieved) -> None:
    global _index
    if pattern.needles is not None:
        _patterns.add(pattern)
        _index = None


def _needles_in(text: str) -> frozenset[str]:
    """The needles of all sieved patterns that the (ASCII) text holds, lower-cased, read once per text."""
    global _index, _last
    index = _index
    if index is None:
        index = _index = _build_index(list(_patterns))
    last = _last
    if last is not None and last[0] is text and last[1] is index:
        return last[2]
    found = _found(index, text.lower())
    _last = (text, index, found)
    return found


@dataclass(frozen=True)
class _Alternative:
    """One alternative of a pattern that is a list of them, compiled alone (its groups keep the pattern's numbers):
    only where it matches first is what it is asked."""

    needles: Needles
    pattern: re.Pattern[str]


# A pattern of this many alternatives or more is read alternative by alternative (`_alternatives`).
MANY = 3


def _alternatives(pattern: re.Pattern[str]) -> tuple[_Alternative, ...] | None:
    """The alternatives of a pattern that is one list of them (`a|b|c`), each with its own needles; None when it is not
    one, has fewer than MANY, or one of them has no needle.

    Why: `re` tries every alternative at every position of a text. A text holds the needles of one or two of a
    rule's forty alternatives, if any; asking only those where the text's first match starts, and then the whole
    pattern at that position, gives the same match (the same span, the same groups) for a fraction of the time."""
    if _parser is None or _compiler is None:
        return None
    try:
        tree = _parser.parse(pattern.pattern, pattern.flags)
        if len(tree) != 1 or tree[0][0] is not sre.BRANCH or len(tree[0][1][1]) < MANY:
            return None
        out = []
        for branch in tree[0][1][1]:
            found = _sequence_needles(list(branch))
            if not found or not all(found):
                return None
            out.append(
                _Alternative(found, _compiler.compile(_parser.SubPattern(tree.state, list(branch)), pattern.flags))
            )
    except (AttributeError, TypeError, ValueError, IndexError, re.error):  # a parser that reads otherwise
        return None
    return tuple(out)


class Sieved:
    """A compiled pattern, as `re` has it, that skips the texts holding none of its needles."""

    __slots__ = ("__weakref__", "alternatives", "needles", "pattern")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.needles = needles(pattern)
        self.alternatives = _alternatives(pattern) if self.needles is not None else None
        _register(self)

    def may_match(self, text: str) -> bool:
        if self.needles is None or not text.isascii():
            return True
        return not self.needles.isdisjoint(_needles_in(text))

    def search(self, text: str) -> re.Match[str] | None:
        if not self.may_match(text):
            return None
        live = self._live(text)
        return self.pattern.search(text) if live is None else next(self._by_alternatives(text, live), None)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if not self.may_match(text):
            return iter(())
        live = self._live(text)
        return self.pattern.finditer(text) if live is None else self._by_alternatives(text, live)

    def _live(self, text: str) -> list[re.Pattern[str]] | None:
        """The alternatives whose needles the text holds, or None when the pattern is read whole."""
        if self.alternatives is None or not text.isascii():
            return None
        found = _needles_in(text)
        return [alt.pattern for alt in self.alternatives if not alt.needles.isdisjoint(found)]

    def _by_alternatives(self, text: str, live: list[re.Pattern[str]]) -> Iterator[re.Match[str]]:
        """The pattern's matches, as `finditer` gives them. The first match starts where the first of the live
        alternatives matches (the others cannot match: they lack their needles), and there the whole pattern gives it,
        trying its alternatives in its own order. No match is empty (each holds a needle), so the next is looked for
        from where the last ended, as `finditer` does."""
        at = 0
        while True:
            starts = [m.start() for m in (alternative.search(text, at) for alternative in live) if m is not None]
            if not starts:
                return
            match = self.pattern.match(text, min(starts))
            if match is None:  # cannot happen: an alternative matches there. Never lose a match to a sieve.
                yield from self.pattern.finditer(text, at)
                return
            yield match
            at = match.end()


def sieved(pattern: re.Pattern[str]) -> Sieved:
    return Sieved(pattern)


class SievedList(Generic[T]):
    """Items that each hold a sieved pattern (a rule: its kind, its pattern, ...), asked in turn of a text:
    `may_match(text)` gives, in order, only those whose pattern may match it, found from the needles the text holds
    rather than by asking each pattern (a text meets some ninety secret rules)."""

    def __init__(self, items: Iterable[T], pattern_of: Callable[[T], Sieved]) -> None:
        self.items = tuple(items)
        self._always = frozenset(at for at, item in enumerate(self.items) if pattern_of(item).needles is None)
        self._by_needle: dict[str, list[int]] = {}
        for at, item in enumerate(self.items):
            for needle in pattern_of(item).needles or ():
                self._by_needle.setdefault(needle, []).append(at)

    def may_match(self, text: str) -> list[T]:
        if not text.isascii():
            return list(self.items)
        positions = set(self._always)
        for needle in _needles_in(text):
            positions.update(self._by_needle.get(needle, ()))
        return [self.items[at] for at in sorted(positions)]
