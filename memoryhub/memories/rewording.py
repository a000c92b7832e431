"""Whether a write says anything a stored memory does not, once its rewording is undone word by word.

The gate folds a write into a stored memory as a duplicate only when the write adds nothing (memories/details.py
says what a detail is). A paraphrase changes words on both sides: "Test accounts are left out of the training set"
says "The training set excludes test accounts" again; "Errors from the API come back as JSON" says "The API returns
errors as JSON". `unsaid` undoes such rewordings before comparing:

- the forms of one word are one word: plurals, tenses, "-ly", "-ment", "-ence", "-able", a verb and its noun in
  "-ation" ("evaluate" / "evaluation", "prefer" / "preference"), British and American spelling ("recognised");
- a short form and its long form, two everyday words for one act (details.SYNONYM_GROUPS);
- a phrase and the word it stands for (phrasing.PHRASES): "left out" / "excludes", "come back" / "returns",
  "every month" / "monthly", "on a monthly basis" / "monthly", "up to" / "at most";
- words that state nothing on their own: light verbs and polite words (details.FILLER), a universal quantifier
  ("every", "everywhere": the stored fact already speaks of all of them), a verb's particle ("refers back to")
  unless the stored memory has another particle there ("scale up" / "scale down").

What is left of the write is what it says that the stored memory does not: a name, a number, a qualifier, a
restriction ("only", "except", "unless"), a list item. A word put in place of one of the memory's is a rewording
("holds" / "occupies"), unless the two name values of one thing (`swaps_a_value`): "before" / "after", "a week" /
"a month", "read replicas" / "write replicas", "uppercased" / "lowercased".

Nothing is explained away by nearness alone: the embedding model scores antonyms and sibling names as close as
synonyms ("backend" / "frontend" 0.82, "enable" / "disable" 0.72, "fires" / "triggers" 0.39 with the bundled model),
so the model's similarity of the two sentences is asked only after every word of the write is accounted for, to
confirm they speak of the same thing.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass

from memoryhub.memories.details import FILLER, NEGATIONS, STOPWORDS, SYNONYM_GROUPS, joined_from, normalise_word
from memoryhub.memories.phrasing import read_phrases
from memoryhub.memories.times import normalise_times

_WORD = re.compile(r"\w[\w./-]*\w|\w", re.UNICODE)

# Words that add nothing to a stored fact that already speaks of all of its things ("Credit notes reference the
# original invoice" / "Every credit note refers back to the original invoice").
UNIVERSAL = frozenset({"every", "each", "all", "any", "everywhere", "whole", "entire", "everything", "everyone"})
# Nouns that name the kind of a thing another word names ("debug-level lines" / "debug lines", "sales data" /
# "sales"): the word beside them carries what they say.
GENERIC = frozenset({"level", "data", "value", "type", "kind", "sort", "process", "mode"})
# Words that narrow a fact: never explained away, whatever else matches.
RESTRICTIVE = frozenset({"only", "except", "unless", "excluding", "some", "most", "few", "several", "solely",
                         "exclusively"})  # fmt: skip
# Restrictions that say the same: "computed on the training split only" / "computed solely from the training split".
_ONE_RESTRICTION = {"solely": "only", "exclusively": "only"}
# A verb's particle says nothing apart from its verb ("refers back to"), unless the other text has another one.
PARTICLES = frozenset({"back", "out", "up", "down", "off", "away"})
# Prepositions that only link ("paid through SEPA" / "paid via SEPA").
_LINKING = frozenset({"through", "upon", "within", "inside", "across"})
# Words kept whole though they look like a longer form of another: "production" is no form of "product".
_UNSTEMMED = frozenset({"production", "action", "statement", "basement", "apartment", "sentence", "instance"})

# Words that name one of several values of the same thing: a side or direction, an order in time, a unit of time, an
# environment, a mode. Put in place of another word, such a word states another fact, however close the model reads the
# two sentences (0.92-0.98 for "Logs are kept for a week" / "... for a month"). Of a pair whose one word also
# rewords everyday acts ("starts" / "is launched", "more than" / "longer than", "sent" / "delivered"), only the
# other is listed: "end", "less"; a swap of the two is still one of them.
CONTRASTS = frozenset(
    """before after first last end early late earlier later previous next close closed read write reads writes
    upload download import export push pull inbound outbound incoming outgoing input output ingress egress upper
    lower uppercase lowercase left right top bottom front back frontend backend client server internal external
    public private local remote primary secondary leader follower master replica min max minimum maximum low lower
    less least decrease enable disable enabled disabled allow deny allowed denied on off light dark sync async
    synchronous asynchronous sequential sequentially parallel serial concurrent second minute hour day week month
    quarter year weekday weekend weekdays weekends morning afternoon evening night daily nightly hourly weekly
    monthly quarterly yearly annually dev development staging production prod test testing qa sandbox ios android
    web mobile desktop tabs spaces ascending descending asc desc horizontal vertical disk memory hot cold required
    optional mandatory true false""".split()
)
# Two words sharing this many letters at their start or end, their forms undone, are siblings ("uppercase" /
# "lowercase", "weekdays" / "weekends", "uploads" / "downloads"), not two wordings of one thing.
SIBLING_AFFIX = 4

# Suffixes of one word's forms, longest first; "ation" leaves the verb it comes from ("evaluation" -> "evaluate").
_SUFFIXES = ("ations", "ation", "ingly", "ments", "ences", "ances", "ment", "ence", "ance", "able", "ible",
             "ings", "ing", "ies", "ied", "ed", "es", "ly", "s")  # fmt: skip
# British spellings read as American ones: "recognise", "analyse", "colour", "centre".
_BRITISH = (
    (re.compile(r"(?<=\w\w)is(e|es|ed|ing|ation|ations|ement|ements)$"), r"iz\1"),
    (re.compile(r"(?<=\w\w)ys(e|es|ed|ing)$"), r"yz\1"),
    (re.compile(r"(?<=\w\w)our(s|ed|ing)?$"), r"or\1"),
    (re.compile(r"(?<=\w\w[b-df-hj-np-tv-z])re(s?)$"), r"er\1"),
)
MIN_STEM = 4  # letters left after a suffix that makes another word ("-ment", "-ence", "-able", "-ly")
MIN_ROOT = 3  # letters left after an inflection ("owned" -> "own", "needs" -> "need")
_INFLECTIONS = frozenset({"ing", "ies", "ied", "ed", "es", "s"})


@functools.lru_cache(maxsize=8192)  # the words of software facts repeat: each is stemmed once per process
def stem(word: str) -> str:
    """One key for a word's forms: "minified", "minifies" and "minify" are "minifi"; "recognised" and "recognized"
    one word. A key, not a word: two texts are compared by their keys only."""
    if word in _UNSTEMMED or any(c.isdigit() for c in word) or not word.isalpha():
        return word
    for pattern, american in _BRITISH:
        word = pattern.sub(american, word)
    if word.endswith(("ission", "issions")) and len(word) >= 8:
        return stem(word[: word.rindex("ission")] + "it")  # "transmission" / "transmit", "permission" / "permit"
    for suffix in _SUFFIXES:
        shortest = MIN_ROOT if suffix in _INFLECTIONS or suffix.startswith("ation") else MIN_STEM
        if word.endswith(suffix) and len(word) - len(suffix) >= shortest:
            root = word[: -len(suffix)]
            if suffix.startswith("ation"):
                root += "ate"
            elif suffix in ("ies", "ied"):
                root += "y"
            elif suffix == "s" and root.endswith(("s", "u", "i")):
                return word  # "status", "analysis", "class": no plural here
            if len(root) > 2 and root[-1] == root[-2] and root[-1] not in "lsz" and suffix in ("ed", "ing", "es"):
                root = root[:-1]  # "dropped" -> "drop"
            word = root
            break
    if word.endswith("e") and len(word) >= MIN_STEM:
        word = word[:-1]
    if word.endswith("y") and len(word) > MIN_STEM:
        word = word[:-1] + "i"
    return word


# A negation is one meaning however it is said ("not", "never", "instead of"): the texts agree on it or not.
_POLAR = NEGATIONS | {"always"}
_NAME_SHAPE = re.compile(r"\d|\w[_./]\w|^.+[A-Z]")
_SENTENCE_END = ".!?:;\n"


def _names(text: str) -> frozenset[str]:
    """The words `text` writes as names: a number, version, path or identifier, camelCase or ALLCAPS, or a word
    written capitalised inside a sentence. A hyphen between plain words ("debug-level") makes a compound, no name."""
    names = set()
    for match in _WORD.finditer(text):
        token = match.group()
        before = text[: match.start()].rstrip()
        inside = bool(before) and before[-1] not in _SENTENCE_END
        if _NAME_SHAPE.search(token) or (token[0].isupper() and inside):
            names.add(token.lower())
    return frozenset(names)


@dataclass(frozen=True)
class Word:
    key: str  # the one spelling of the word's forms and synonyms
    written: str  # as the text writes it
    named: bool = False  # a name or number: only the same name explains it


# The gate compares one write with each of its near memories, and the same memories meet many writes: each text is
# read once per process while it is asked about.
@functools.lru_cache(maxsize=1024)
def _keys(text: str) -> tuple[Word, ...]:
    """Each word of `text`: contractions and phrases read as their words, stop words left out."""
    found = []
    names = _names(text)
    for token in _WORD.findall(read_phrases(normalise_times(text))):
        lowered = token.lower()
        if len(lowered) < 2 and not lowered.isdigit():
            continue
        if lowered in RESTRICTIVE or lowered in PARTICLES or lowered in _POLAR:
            found.append(Word(_ONE_RESTRICTION.get(lowered, lowered), token))
            continue
        if lowered in STOPWORDS or lowered in _LINKING:
            continue
        named = lowered in names
        if "-" in lowered and lowered.replace("-", "").isalpha():
            lowered = lowered.replace("-", "")  # "hand-over" and "handover", "e-mail" and "email": one word
        word = normalise_word(lowered)
        if word not in STOPWORDS:  # "utilizes" is read as "use", which says nothing
            key = stem(word)
            found.append(Word(_GROUP_OF.get(key, key), token, named))
    return tuple(found)


# The synonym groups by their words' keys: "permitted" is a form of "permit", which is read as "allow".
_GROUP_OF = {stem(word): stem(group.split()[0]) for group in SYNONYM_GROUPS for word in group.split()}
_FREE = frozenset(stem(normalise_word(w)) for w in FILLER | UNIVERSAL | GENERIC)


def _own_key(word: str) -> str:
    return stem(word.lower().replace("-", "") if word.replace("-", "").isalpha() else word.lower())


_CONTRAST_KEYS = frozenset(_own_key(w) for w in CONTRASTS)


@dataclass(frozen=True)
class Rewording:
    """How a write stands to a stored memory, word by word, its rewording undone."""

    unsaid: tuple[str, ...]  # the write's words the memory does not say, and restrictions of the memory it drops
    lacking: tuple[str, ...]  # the memory's words the write does not say (a shorter write, or the other wording)
    fixed: tuple[str, ...]  # of `unsaid`, what no other wording can stand for: names, numbers, restrictions
    swaps_a_value: bool = False  # one word in place of one of the memory's, the two naming values of one thing

    @property
    def adds_nothing(self) -> bool:
        return not self.unsaid

    @property
    def says_the_same(self) -> bool:
        """Each text says every word of the other, in some wording: one statement, never another value of it."""
        return not self.unsaid and not self.lacking

    @property
    def only_reworded(self) -> bool:
        """Every word of the write the memory lacks stands where the memory has a word of its own: the texts differ
        in wording on both sides ("attached to" / "include"), never in a word added to all of the memory's
        ("results and facets come back" / "returns results"), nor in a name, number or restriction."""
        return not self.fixed and len(self.unsaid) <= len(self.lacking)


def _polarity(words: tuple[Word, ...]) -> str:
    keys = {w.key for w in words}
    return "not" if keys & NEGATIONS else "always" if "always" in keys else ""


def compare(text: str, *, than: str) -> Rewording:
    """`text` (a write) against `than` (a stored memory), word by word."""
    mine, theirs = _keys(text), _keys(than)
    their_keys = {w.key for w in theirs}
    my_keys = {w.key for w in mine}
    their_particles = (their_keys & PARTICLES) - my_keys
    # A restriction the memory makes and the write drops widens the claim ("most services" / "services").
    fixed = dict.fromkeys(w.written for w in theirs if w.key in RESTRICTIVE and w.key not in my_keys)
    my_polarity, their_polarity = _polarity(mine), _polarity(theirs)
    if my_polarity != their_polarity:
        fixed.setdefault(my_polarity or {"not": "no negation", "always": "not always"}[their_polarity], None)
    left: dict[str, None] = {}
    said = their_keys | {w.written.lower() for w in theirs}
    for word in mine:
        if word.key in their_keys or word.key in _POLAR or joined_from(word.written, lambda p: _said(p, said)):
            continue
        if word.key in RESTRICTIVE or word.named:
            fixed.setdefault(word.written, None)
        elif word.key in PARTICLES:
            if their_particles:  # "scale up" / "scale down": another particle is another direction
                fixed.setdefault(word.written, None)
        elif word.key not in _FREE:
            left.setdefault(word.written, None)
    # A light verb of the memory's counts as a word the write put another in place of ("relies on" / "depends on"),
    # unless the write has a light verb of its own there ("get a laptop" / "are given a laptop").
    mine_free = any(w.key in _FREE and w.key not in their_keys for w in mine)
    lacking = dict.fromkeys(
        w.written
        for w in theirs
        if w.key not in my_keys and w.key not in PARTICLES | _POLAR and not (mine_free and w.key in _FREE)
    )
    swapped = [w for w in mine if w.written in left]
    taken = [w for w in theirs if w.written in lacking]
    value = len(swapped) == len(taken) == 1 and _values_of_one_thing(swapped[0].written, taken[0].written)
    return Rewording(unsaid=tuple({**fixed, **left}), lacking=tuple(lacking), fixed=tuple(fixed), swaps_a_value=value)


def _said(part: str, said: set[str]) -> bool:
    return part in said or stem(normalise_word(part)) in said


def _values_of_one_thing(mine: str, theirs: str) -> bool:
    """Two words (as written) naming values of one thing: either is a contrast word, or they are siblings by their
    shape. Each is read as its own forms only, not its synonyms: "download" is a contrast word, "fetch" is not."""
    mine, theirs = _own_key(mine), _own_key(theirs)
    if mine in _CONTRAST_KEYS or theirs in _CONTRAST_KEYS:
        return True
    shared_start = len(os.path.commonprefix([mine, theirs]))
    shared_end = len(os.path.commonprefix([mine[::-1], theirs[::-1]]))
    return max(shared_start, shared_end) >= SIBLING_AFFIX


def unsaid(text: str, *, than: str) -> list[str]:
    """The words of `text` that `than` does not say, in any wording, as `text` writes them, and any restriction of
    `than` that `text` drops: empty when `text` is a repeat or a paraphrase of `than`, or says less."""
    return list(compare(text, than=than).unsaid)
