"""What a text says, word by word: the details one text holds that another lacks.

One rule, three users: the write gate folds a write into a stored memory only when the write adds no detail
(`added_details`); the consolidation pass flags a merge proposal whose text drops a detail of a source
(`dropped_details`); the dashboard warns before a merge of sources that differ (`fact_differences`).

A detail is
- a name: a number, version, time, identifier or path, camelCase or ALLCAPS, or a word written capitalised inside a
  sentence (`text_words`, `scope_lexicon`): another service, version, person, region or unit;
- a polarity: "always" / "never" (or a "not", "no", "don't"): the same words saying the opposite;
- words added to all of another text's words: a qualifier ("in staging"), a condition ("only on weekdays"), a unit
  ("30 days"), a list item. A rewording changes words on both sides ("big files" / "large files") and adds nothing;
- for merges of several sources, a swapped noun too: "the billing-svc team owns the payments module" / "... the
  checkout module" differ in one word on each side, with the rest the same; the word each says instead of the
  other's is the fact a merge would drop. A paraphrase that rewords much ("restart the workers after a change" /
  "after changing it, restart them") is not flagged word by word: only a difference of at most SWAP_WORDS words on
  each side counts as a swap. The gate leaves swaps to the update rules, which tell another value from a synonym.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from memoryhub.memories.phrasing import read_phrases
from memoryhub.memories.times import NUMBER_WORDS, lengths_as_written, normalise_times, times_of_day

# Identifiers stay whole: `stone-signal` and `stone-tower`, `config/app.toml` and `config/web.toml` are
# different things, not two memories sharing the word "stone" or "config".
_WORD = re.compile(r"\w[\w./-]*\w|\w", re.UNICODE)
# A token that names one particular thing by its shape: a number or version, an identifier or path, camelCase or
# ALLCAPS. Capitalised words inside a sentence are names too (see `_is_name`).
_SPECIFIC_SHAPE = re.compile(r"\d|\w[-_./]\w|^.+[A-Z]")
_SENTENCE_END = frozenset(".!?:;\n")
STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto over under about as is are was
    were be been being it its this that these those there here we our us you your they their them i me my he she
    his her not no do does did done has have had having will would should can could may might must shall so than
    too very just also only use used uses using when while where which who whom what why how all any each every
    some such via per one fyi nb note todo""".split()
) | frozenset(  # what is left of "doesn't" once split into words: the negation is judged apart (`_polarity`)
    "don doesn didn isn aren wasn weren hasn haven hadn shouldn wouldn couldn mustn".split()
)


# Words that name the same thing in the way people write about software: a short form and its long form, or two
# everyday words for one act. Each group is read as its first word, so "the DB" and "the database", "a ticket" and
# "an issue" are one word to every rule here. Only unambiguous pairs: "stage", "min" (minute or minimum), "load"
# (the noun) and "host" name more than one thing and stay as written.
SYNONYM_GROUPS = (
    "database db", "repository repo", "production prod", "environment env", "configuration config cfg conf",
    "documentation doc", "kubernetes k8s", "issue ticket", "authentication auth authn", "authorization authz",
    "dependency dep", "application app", "development dev", "message msg", "information info", "package pkg",
    "directory dir folder", "memory ram", "primary main", "large big huge", "small little tiny", "fast quick",
    "delete remove purge erase drop", "fetch retrieve download", "store save keep kept retain persist", "start begin",
    "show display", "need require", "help assist", "buy purchase", "javascript js", "node.js node nodejs",
    "typescript ts", "postgresql postgres", "variable var", "function func fn", "parameter param",
    "argument arg", "statistic stat", "administrator admin", "specification spec", "temporary temp tmp",
    "maximum max", "hour hrs", "website site", "library lib", "credential cred", "setting option",
    # An irregular verb's forms are one word ("pay" / "paid"), as a regular verb's are by their shared stem.
    "pay paid", "send sent", "write wrote written", "build built compile", "run ran", "hold held",
    "find found", "choose chose chosen", "take took taken", "give gave given", "break broke broken",
    # Two everyday verbs for one act in what software does.
    "trigger fire", "generate produce", "include contain", "exclude omit", "allow permit",
    "forbid prohibit disallow", "change modify alter", "limit cap", "stop halt", "restart reboot",
    "use utilize utilise leverage", "login signin logon", "talk communicate", "run execute", "call invoke",
    "verify check validate", "reject refuse decline", "need require mandatory", "bug defect",
    "prefer favour favor", "several multiple", "many numerous", "release publish ship", "charge bill",
    "due payable",
    # A missing value is a null, and imputing one fills it in.
    "null missing", "impute fill",
)  # fmt: skip


def _singular(word: str) -> str:
    # A plural and its singular are the same word for overlap; anything heavier than this is not worth it here.
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


# A count written as a word is the number ("three etcd members" / "3 etcd members"): times.NUMBER_WORDS.
_CANONICAL = {
    _singular(word): _singular(group.split()[0]) for group in SYNONYM_GROUPS for word in group.split()[1:]
} | NUMBER_WORDS


def _verb_stems(word: str) -> tuple[str, ...]:
    # "produced", "triggering": a grouped verb's other forms find its group by their stem.
    if word.endswith("ing") and len(word) > 5:
        return word[:-3], word[:-3] + "e"
    if word.endswith("ed") and len(word) > 4:
        return word[:-2], word[:-1]
    return ()


def normalise_word(word: str) -> str:
    """One spelling for one word: a plural and its singular, a short form and its long form (`SYNONYM_GROUPS`)."""
    single = _singular(word)
    if single in _CANONICAL:
        return _CANONICAL[single]
    return next((_CANONICAL[stem] for stem in _verb_stems(word) if stem in _CANONICAL), single)


@dataclass(frozen=True)
class Words:
    words: frozenset[str]  # normalised content words
    specific: frozenset[str]  # those that name one particular thing
    names: frozenset[str] = frozenset()  # written capitalised inside a sentence here
    plain: frozenset[str] = frozenset()  # written in lower case here
    initial: frozenset[str] = frozenset()  # its capitalised first word ("Priya asks...", "Start x")

    def knowing(self, lexicon: frozenset[str] | set[str]) -> Words:
        """The same words, with the names of the whole scope: "Oskar asks..." starts with a name too, and the
        "Run" of "Cloud Run" is no name where the scope mostly writes "run"."""
        shaped = self.specific - self.names
        return Words(self.words, shaped | (self.words & lexicon), self.names, self.plain, self.initial)


def scope_lexicon(parsed: list[Words]) -> frozenset[str]:
    """The scope's names: words written capitalised inside sentences at least as often as in lower case, and
    words that open a memory but are never written in lower case (a person's name: "Priya asks...")."""
    capitalised = Counter(w for p in parsed for w in p.names)
    lower = Counter(w for p in parsed for w in p.plain)
    opening = Counter(w for p in parsed for w in p.initial)
    names = {w for w, n in capitalised.items() if n >= lower[w]}
    # A memory's capitalised first word that the scope never writes in lower case names someone or something
    # ("Priya prefers tabs" / "Oskar prefers tabs" are two people's preferences, never one memory).
    names |= {w for w, n in opening.items() if n >= 1 and not lower[w]}
    return frozenset(names)


def _is_name(token: str, text: str, start: int) -> bool:
    # A capitalised word inside a sentence is a name (Rosa, Kubernetes); at a sentence's start it may be any word.
    if not token[0].isupper():
        return False
    before = text[:start].rstrip()
    return bool(before) and before[-1] not in _SENTENCE_END


def _label_end(text: str) -> int:
    """Where a leading label such as "Note:" or "Seen before:" ends (0 if none): it says how, not what."""
    head, colon, _ = text.partition(":")
    return len(head) + 1 if colon and len(head.split()) <= 3 and head.replace(" ", "").isalpha() else 0


def text_words(text: str) -> Words:
    text = read_phrases(normalise_times(text))  # "left out" is "exclude", "once a month" is "monthly"
    words, specific, names, plain, initial = set(), set(), set(), set(), set()
    label_end = _label_end(text)
    for match in _WORD.finditer(text):
        token = match.group()
        lowered = token.lower()
        if (len(lowered) < 2 and not lowered.isdigit()) or lowered in STOPWORDS:
            continue
        word = normalise_word(lowered)
        words.add(word)
        if _SPECIFIC_SHAPE.search(token):
            specific.add(word)
        elif _is_name(token, text, match.start()):
            specific.add(word)
            names.add(word)
        elif token == lowered:
            plain.add(word)
        elif token[0].isupper() and match.start() >= label_end and not text[label_end : match.start()].strip():
            initial.add(word)  # the memory's first word (after a label): later sentences open with remarks
    return Words(frozenset(words), frozenset(specific), frozenset(names), frozenset(plain), frozenset(initial))


def differing_names(texts: list[str]) -> list[str]:
    """The names (numbers, times, paths, identifiers, capitalised names) some of `texts` use and another lacks,
    in first-seen order: what a person should check before accepting a merge of them."""
    parsed = [text_words(t) for t in texts]
    lexicon = scope_lexicon(parsed)
    parsed = [p.knowing(lexicon) for p in parsed]
    seen: dict[str, None] = {}
    for p in parsed:
        for name in sorted(p.specific):
            if any(name not in other.words for other in parsed):
                seen.setdefault(name, None)
    return list(seen)


SWAP_WORDS = 2  # at most this many words on each side, the rest shared: a substitution, not a rewording
# The words that turn a statement into its opposite; the gate's claim check reads the same list.
NEGATIONS = frozenset(
    {"never", "not", "no", "don't", "dont", "doesn't", "isn't", "aren't", "won't", "cannot", "can't", "shouldn't",
     "mustn't", "avoid", "without", "instead"}
)  # fmt: skip
_POLARITY = re.compile(r"\b(always|" + "|".join(re.escape(w) for w in sorted(NEGATIONS)) + r")\b", re.I)


def _polarity(text: str) -> str:
    words = {w.lower() for w in _POLARITY.findall(text)}
    if words & NEGATIONS:
        return "never"
    return "always" if "always" in words else ""


_TOKEN = re.compile(r"\w[\w./-]*\w|\w")


def _as_written(texts: list[str]) -> dict[str, str]:
    """Each normalised word as a text wrote it first ("payments", not the stem "payment"): a warning names words."""
    written: dict[str, str] = {}
    for text in texts:
        for token in _TOKEN.findall(text):
            written.setdefault(normalise_word(token.lower()), token.lower())
        for token, words in lengths_as_written(times_of_day(text)).items():
            written.setdefault(token, words)  # "14day" named as the text wrote it: "two weeks"
    return written


def _variants(a: str, b: str) -> bool:
    # "change"/"changing", "build"/"built": one word in two forms, not two facts.
    stem = min(len(a), len(b)) - 2
    return stem >= 3 and a[:stem] == b[:stem]


def _swapped(texts: list[str]) -> list[str]:
    parsed = [text_words(t).words - NEGATIONS - {"always", "alway"} for t in texts]  # polarity is judged apart
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
    polar = NEGATIONS | {"always", "alway"}  # said once, as "always/never", not as two names
    found = dict.fromkeys(name for name in differing_names(texts) if name not in polar)
    shown = {normalise_word(w) for w in found}
    written = _as_written(texts)
    for word in _swapped(texts):
        if word not in shown:
            found.setdefault(written.get(word, word), None)
    if len({_polarity(t) for t in texts}) > 1:
        found.setdefault("always/never", None)
    return list(found)


# Words a rewording adds that state nothing on their own ("staging gets reset", "notebooks are run on JupyterHub",
# "built on React 17", "Braintree handles our payments", "we monitor everything with Datadog").
# A light verb standing where the other text has "use" or "have" states nothing either ("the app relies on SwiftPM",
# "a depth limit applies to queries", "events get sent in batches"), nor does a polite word ("please call me Rita"),
# nor a word for how or where that the rest already says ("in a round-robin way", "located in Frankfurt").
FILLER = frozenset(
    {"get", "got", "gotten", "make", "made", "run", "ran", "happen", "happened", "built", "handle", "handled",
     "rely", "relied", "apply", "applied", "send", "sent", "please", "kindly",
     "actually", "really", "everything", "everywhere", "anything", "something", "thing", "stuff", "way",
     "manner", "fashion", "basis", "located", "take", "took", "taken", "give", "gave", "given", "perform",
     "performed", "live", "lives", "sit", "sits", "reside", "resides"}
)  # fmt: skip
FILLER = frozenset(normalise_word(w) for w in FILLER)  # as the words compared are: "built" is read as "build"
_POLAR = NEGATIONS | {"always", "alway"}


def _first_seen(words: set[str] | frozenset[str], text: str) -> list[str]:
    """`words` in the order `text` writes them, each as written (the stem "payment" named "payments")."""
    written = _as_written([text])
    tokens = [normalise_word(t.lower()) for t in _TOKEN.findall(normalise_times(text))]
    order = {w: i for i, w in reversed(list(enumerate(tokens)))}
    return [written.get(w, w) for w in sorted(words, key=lambda w: (order.get(w, len(tokens)), w))]


def added_details(text: str, *, than: str, words_too: bool = True) -> list[str]:
    """The details `text` says that `than` lacks, as `text` writes them: empty when `than` already says all of it
    (a repeat, a paraphrase, or `text` saying less). With `words_too=False`, only the names and the polarity: the
    gate judges added words with the rewording undone (rewording.py)."""
    mine, theirs = text_words(text), text_words(than)
    # Names by their shape or written capitalised inside a sentence; not a first word the other text words
    # differently ("Large files ..." / "Big files ..."): two texts are too few to tell a name from a rewording.
    # A compound with a number whose every part the other says ("RS256-signed" / "signed with RS256") is its words.
    found = {
        w
        for w in mine.specific - theirs.words - _POLAR
        if not joined_from(w, lambda part: normalise_word(part) in theirs.words)
    }
    extra = {w for w in mine.words - theirs.words if not any(_variants(w, v) for v in theirs.words)}
    lacking = {w for w in theirs.words - mine.words if not any(_variants(w, v) for v in mine.words)}
    if words_too and not lacking - _POLAR:  # all of `than`'s words and more: an addition, not a rewording
        found |= extra - FILLER - _POLAR
    named = _first_seen(found, text)
    if _polarity(text) != _polarity(than):
        named.append(_polarity(text) or "no negation")
    return named


def joined_from(word: str, said: Callable[[str], bool]) -> bool:
    """A compound with a number in it whose every part the other text says (`said`): "RS256-signed" after "signed
    with RS256", "15-minute" after "15 minutes". The same words joined, not a new name."""
    parts = [p for p in word.lower().split("-") if p]
    return len(parts) >= 2 and any(any(c.isdigit() for c in p) for p in parts) and all(said(p) for p in parts)


def dropped_details(sources: list[str], kept: str) -> list[str]:
    """The details of `sources` that `kept` (a merge's text) lacks, in first-seen order: empty when it keeps all."""
    seen: dict[str, None] = {}
    for source in sources:
        seen.update(dict.fromkeys(added_details(source, than=kept)))
    return list(seen)
