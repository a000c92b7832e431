"""Turning whatever a person or an agent typed into keyword queries: the typed tree storage renders for its
database (memoryhub/storage/keyword.py).

Nothing typed here ever becomes syntax: every term is text the store quotes or passes as a parameter, so
`multi-agent`, `don't`, `c++`, `AI AND`, `NOT`, `ubuntu 20.04`, unbalanced quotes and emoji are all just text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memoryhub.storage import keyword

# Longer queries are cut: 10,000 characters of pasted log must not turn into a 2,000-term OR.
MAX_QUERY_CHARS = 2000
MAX_TERMS = 24
MAX_SUBSTRING_TERMS = 6
MAX_SUBSTRING_CHARS = 40
# The whole query is tried as one verbatim substring (an error message, a file path) up to this length.
MAX_PHRASE_CHARS = 300
MIN_PHRASE_CHARS = 4

_WORD = re.compile(r"\w+", re.UNICODE)
_CHUNK = re.compile(r"\S+")
_EDGE_PUNCT = "\"'`()[]{}<>,;:!?“”‘’«»"
_CAMEL = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]")
_SPACES = re.compile(r"\s+")
_CODE_PUNCT = frozenset(":()[]{}<>=/\\_@#$%^&*|~`;")

# Very common English words. They carry little meaning for BM25 and, more importantly, each one matches a
# large part of any store: an OR over them makes FTS5 score most rows. Question words are here too, because
# agents ask questions ("what did we decide about ...").
STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are aren aren't as at be because been before being
    below between both but by can can't cannot could couldn't did didn't do does doesn't doing don don't down
    during each either else ever few for from further get gets got had hadn't has hasn't have haven't having he
    he'd he'll he's her here here's hers herself him himself his how how's however i i'd i'll i'm i've if in into
    is isn't it it's its itself just let let's ll me might more most much must mustn't my myself no nor not now
    of off on once one only or other ought our ours ourselves out over own re s same shall shan't she she'd
    she'll she's should shouldn't so some such t than that that's the their theirs them themselves then there
    there's these they they'd they'll they're they've this those though through to too under until up upon us
    ve very was wasn't we we'd we'll we're we've were weren't what what's whatever when when's where where's
    whether which while who who's whom whose why why's will with won't would wouldn't yet you you'd you'll
    you're you've your yours yourself yourselves
    """.split()
)


def words(text: str) -> list[str]:
    """Lower-cased word tokens in order, duplicates removed (unicode61 splits on the same boundaries)."""
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(text[:MAX_QUERY_CHARS])))


def is_stopword(token: str) -> bool:
    return token in STOPWORDS or (len(token) == 1 and token.isascii() and token.isalpha())


def content_words(text: str) -> list[str]:
    """Words that carry meaning; all words when the query is nothing but stopwords ("to be or not to be")."""
    tokens = words(text)
    return [t for t in tokens if not is_stopword(t)] or tokens


def looks_like_identifier(chunk: str) -> bool:
    """camelCase, snake_case, dotted.names, paths, ERR_CODES, versions: things typed exactly as written."""
    if len(chunk) < 3:
        return False
    if _CAMEL.search(chunk):
        return True
    inner = chunk[1:-1]
    if any(c in inner for c in "_./\\:#@=$"):
        return any(c.isalnum() for c in chunk)
    has_digit = any(c.isdigit() for c in chunk)
    has_alpha = any(c.isalpha() for c in chunk)
    return has_digit and has_alpha


def _identifier_chunks(text: str) -> list[str]:
    """The query's whitespace-separated chunks that look like identifiers, edge punctuation stripped, once each."""
    found: list[str] = []
    for raw in _CHUNK.findall(text[:MAX_QUERY_CHARS]):
        chunk = raw.strip(_EDGE_PUNCT).rstrip(".")
        if looks_like_identifier(chunk) and chunk.lower() not in (f.lower() for f in found):
            found.append(chunk)
    return found


def _tokens(chunk: str) -> list[str]:
    # unicode61 splits at "_" as at any punctuation; \w would keep it inside the word.
    return _WORD.findall(chunk.replace("_", " "))


def substring_terms(chunks: list[str]) -> list[str]:
    """Of the identifier chunks, the pieces for the trigram index (which finds `UserId` inside `getUserId`).

    Only pieces the word index sees as one token (`getUserId`, `sqlite3`): the parts of a path or a dotted or
    snake_case name are words there already, found as a phrase (`identifier_phrases`). A trigram phrase as long
    as a path walks the doclists of dozens of trigrams (20-30 ms at 100k memories) to find what that phrase
    finds in a millisecond."""
    found: list[str] = []
    for chunk in chunks:
        for piece in _tokens(chunk):
            if looks_like_identifier(piece) and piece.lower() not in (f.lower() for f in found):
                found.append(piece)
    return found[:MAX_SUBSTRING_TERMS]


def identifier_phrases(chunks: list[str]) -> list[str]:
    """Identifiers of several word tokens (`docs/runbooks/notifications.md`, `AWS_REGION`, `INV-6854`), each
    searched in the word index as the phrase of its tokens: rare, precise, and cheap even when every one of
    its words is common."""
    return [c for c in chunks if len(_tokens(c)) > 1][:MAX_SUBSTRING_TERMS]


def verbatim_phrase(text: str, chunks: list[str]) -> str | None:
    """The whole query, whitespace collapsed, when a memory holding it verbatim is what was asked for.

    Something copied (an error message, a path, a command: code punctuation or an identifier in it), or a run of
    at least three words ("reporting runs on Hetzner"). Not one or two plain words: "docker compose" found
    verbatim says little more than both words found. Checked only on the candidates the ranked lists found.
    """
    phrase = _SPACES.sub(" ", text).strip()
    if not MIN_PHRASE_CHARS <= len(phrase) <= MAX_PHRASE_CHARS:
        return None
    if chunks or any(c in _CODE_PUNCT for c in phrase) or len(_WORD.findall(phrase)) >= 3:
        return phrase
    return None


@dataclass(frozen=True)
class KeywordQuery:
    """The pieces of a typed query: its words, identifier terms for the trigram index and a verbatim phrase."""

    text: str
    terms: tuple[str, ...]
    substrings: tuple[str, ...]
    phrase: str | None
    phrases: tuple[str, ...] = ()

    @property
    def only_stopwords(self) -> bool:
        return bool(self.terms) and all(is_stopword(t) for t in self.terms)

    @property
    def word_query(self) -> keyword.TextQuery:
        """Any of the units, for the word index (only when `terms` holds any).

        A query of nothing but stopwords is searched as the phrase it is ("to be or not to be", "the who"):
        an OR of such words would score nearly every row and find nothing in particular."""
        if self.only_stopwords:
            return keyword.Term(" ".join(w.lower() for w in _WORD.findall(self.text)[:MAX_TERMS]))
        return keyword.any_of(self.units)

    @property
    def units(self) -> tuple[str, ...]:
        """What the word index is asked for: each content word, and each multi-word identifier as a phrase."""
        return (*self.terms, *self.phrases)

    @property
    def empty(self) -> bool:
        return not self.terms and not self.substrings and not self.phrase


def parse(text: str) -> KeywordQuery:
    text = (text or "")[:MAX_QUERY_CHARS]
    # NUL cannot travel inside a query to either database; nobody means it.
    text = text.replace("\x00", " ")
    chunks = _identifier_chunks(text)
    phrase = verbatim_phrase(text, chunks)
    # Trigram needs three characters; shorter terms would match nothing (or everything, via a full scan). Long
    # ones (a whole path) cost a trigram doclist each and their words already reach the word index.
    substrings = tuple(s for s in substring_terms(chunks) if 3 <= len(s) <= MAX_SUBSTRING_CHARS)
    phrases = tuple(p for p in identifier_phrases(chunks) if len(p) <= MAX_PHRASE_CHARS)
    return KeywordQuery(
        text=text,
        terms=tuple(content_words(text)[:MAX_TERMS]),
        substrings=substrings,
        phrase=phrase,
        phrases=phrases,
    )
