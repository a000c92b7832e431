"""Does a new write replace an older memory? A pure decision from the new text and its nearest active neighbours
in the same scope, by rules a person can read and undo.

For each neighbour the verdict is one of:
- `supersede`: the same subject with another value, and the write says it changed ("now", "moved from X to Y",
  "switched", "replaced", "no longer", ...) or it is the same sentence with one slot edited ("The bastion host is
  bastion-1." -> "The bastion host is bastion-3.");
- `conflict`: the same subject with another value, but not clearly a replacement (the wording moved too): a
  person decides which is current;
- `different`: look-alikes that differ in a qualifier (environment, platform, region, language, service...), in
  two slots at once ("The staging cluster has 3 nodes." / "The production cluster has 12 nodes.") or in the
  sentence's subject alone ("billing-api listens on port 8080." / "search-api ..."): two facts;
- `none`: nothing to say (another subject, or the same claim: the near-duplicate check decides that).

Values are compared as words: a number, a name, a version, a tool, a place, a time, a negation. Words that only
signal the change ("now", "since", "from", "instead") are set aside before the texts are compared.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from memoryhub.memories.attributes import QUALIFIER_VALUED, QUANTITIES, attributes_named, naming_words, quantity_word
from memoryhub.memories.phrasing import read_contractions
from memoryhub.memories.times import lengths_written_as_in, times_of_day


class Verdict(StrEnum):
    SUPERSEDE = "supersede"
    CONFLICT = "conflict"
    DIFFERENT = "different"
    NONE = "none"


@dataclass(frozen=True)
class Neighbour:
    """An active memory near the write, in the write's scope."""

    id: int
    content: str
    similarity: float  # cosine similarity of the two vectors (0 when unknown)
    newer: bool = False  # the neighbour's fact became true after the write's (the write is the older)


@dataclass(frozen=True)
class UpdateVerdict:
    verdict: Verdict
    memory_id: int
    reason: str
    cue: str = ""  # the change cue the write carries, if any


# Tuning constants, each with why (measured on the dev part of bench/updates_set.py; see docs/updates.md).
RULES = {
    # Below this cosine two texts are about different things, whatever words they share; a write that says
    # it changed may sit lower (a new database's name moves the vector more than the sentence around it).
    "min_similarity": 0.45,
    "cue_min_similarity": 0.35,
    # With a change cue: the share of the older fact's words the write keeps (its subject and attribute), once the
    # scope's own words are set aside and one value of each is allowed to differ. Below it the write is about
    # something else that also changed; a wrong supersession hides a true fact, so the bar is high.
    "cue_subject": 0.6,
    # Without a cue, an edit of one slot: the share of the older sentence's words that stay in place, and how
    # close in meaning the two must still be (templated lines about two services sit lower).
    "edit_kept": 0.55,
    "edit_similarity": 0.65,
    # Without a cue, reworded with another value: shared content words and cosine both this high to ask a person.
    "reworded_subject": 0.75,
    "reworded_similarity": 0.85,
    # Without a cue, reworded more freely but keeping the older's subject and most of its words: this close in
    # meaning to ask a person (look-alikes about another subject lose their first word and never get here).
    "restated_similarity": 0.7,
    # Past this cosine, two texts that each say something the other does not are one fact's two values to ask about.
    "close_disagree": 0.85,
    # Past this cosine, texts reworded in several places are one claim in other words, not two look-alike facts.
    "reworded_same": 0.9,
    # A write that says it changed, where no neighbour qualifies: its nearest, this close, goes to a person.
    "ask_nearest_similarity": 0.6,
}

# Words that say "this changed" (matched on the lower-cased text, as whole words).
_CUE = re.compile(
    r"\b(?:now|no longer|not any ?more|any ?more|moved|moving|switched|switching|replac(?:ed|es|ing)|"
    r"migrated|migrating|instead of|instead|upgraded|downgraded|changed|rescheduled|raised|lowered|increased|"
    r"decreased|reduced|bumped|from now on|as of|since we|renamed|retired|dropped|deprecated|took over|"
    r"taken over|handed over|passed from|passed to|rebuilt|rewritten|went from|going forward|these days|"
    r"nowadays|anymore|is retired|was retired|used to|decommissioned|phased out|sunset|sunsetted|"
    # A passive report of a change from one value to another ("retention was cut from 15 to 7 days", "the window
    # was widened from 3 to 5 days"); an active "scales from 2 to 10" states a range and is no cue.
    r"(?:was|were|got|been)\s+[a-z]+\s+from\s+\S+(?:\s+\S+)?\s+to)\b"
)
# Words by which a write adds a fact rather than replacing one ("also", "switched on", "started", "added"): such a
# write replaces nothing, unless it also names what it replaces ("instead of", "from X to Y", "no longer").
_ADDING = re.compile(
    r"\b(?:also|too|as well|additionally|in addition|besides|on top of|another|extra|started|starting|starts|"
    r"began|begun|begins|switched on|switching on|turned on|turning on|enabled|enables|enabling|added|adds|adding|"
    r"introduced|introduces|set up|rolled out|rolls out|opted in|onboarded|joined|new)\b"
)
_REPLACING = re.compile(
    r"\b(?:instead|rather than|in place of|replac\w*|no longer|not any ?more|anymore|used to|(?:moved|switched|"
    r"migrated|changed|went|upgraded|downgraded|renamed|rescheduled|handed over|passed) from|from \S+(?: \S+)? to|"
    r"retired|dropped|deprecated|took over|taken over|handed|hands over|passed on)\b"
)
# Words by which a write says it adds one more of something rather than another value for it.
_ONLY_ADDS = re.compile(r"\b(?:also|too|as well|additionally|in addition|another|extra|more|second)\b")
# What a write says it replaced: the words after "from", "instead of", "replacing", "no longer" ...
_NAMES_THE_OLD = re.compile(
    r"\b(?:from|instead of|replacing|replaced|replaces|no longer(?: uses?| on| in| at)?|rather than|in place of)"
    r"\s+((?:the |an? )?\S+(?:\s+\S+)?)"
)
# ... and the words before "was decommissioned", "has been retired": the old value named as gone.
_NAMED_AS_GONE = re.compile(
    r"(\S+(?:\s+\S+)?)\s+(?:was|were|is|are|has been|have been|got|gets)\s+"
    r"(?:decommissioned|retired|removed|dropped|sunset|sunsetted|shut down|phased out|deprecated|replaced)\b"
)
# Words that carry the cue or the grammar of a change, not the fact: left out when the texts are compared.
_CHANGE_WORDS = frozenset(
    """now no longer anymore moved moving switched switching replaced replaces replacing migrated migrating
    instead upgraded downgraded changed rescheduled raised lowered increased decreased reduced bumped since
    renamed retired dropped deprecated took taken handed passed rebuilt rewritten went going forward these days
    nowadays used from to of over been has have had was were is are be last this that sprint month week year
    in on at by for q1 q2 q3 q4 january february march april may june july august september october november
    december""".split()
)
_STOP = frozenset(
    """a an the and or but if then of to in on at by for with from into as is are was were be been being it its
    this that these those there we our you your they their them i me my not do does did has have had will
    would should can could may must so than too very just also only all any each every some via per one our
    use uses used using run runs""".split()
)
# "Use pnpm, not npm" and "pnpm instead of npm" say the same: "instead" and "rather" negate as "not" does.
_NEGATION = frozenset("not no never don't doesn't isn't aren't won't can't cannot without instead rather".split())
# What tells two look-alike facts apart rather than one fact's old and new value: the environment, the
# platform, the region, the language, the audience, the side or direction (left/right, input/output, min/max).
# Two texts naming different ones are two facts.
QUALIFIERS = frozenset(
    """dev development develop local staging stage stg prod production prd qa test testing demo sandbox preview
    uat ios android web mobile desktop wear watchos tvos frontend backend front-end back-end eu us uk ca apac emea
    latam europe european america american asia germany german france french spain spanish italy italian canada
    canadian australia australian japan japanese english python javascript typescript java kotlin swift ruby
    elixir rust go golang php scala c# csharp unit integration end-to-end e2e smoke internal external public
    private partner admin marketing transactional
    left right front rear upper lower north south east west inbound outbound ingress egress input output incoming
    outgoing min max minimum maximum replica leader follower""".split()
)
_WORD = re.compile(r"[/#@~]?[A-Za-z0-9][\w.#+/:-]*[\w#+]|[/#@~]?[A-Za-z0-9]")
# Words that are a value by what they mean: counts, days, months, how often.
_VALUE_WORDS = frozenset(
    """two three four five six seven eight nine ten eleven twelve twenty thirty hundred thousand half double
    monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays
    saturdays sundays january february march april may june july august september october november december
    hourly daily nightly weekly biweekly fortnightly monthly quarterly yearly annually morning mornings
    afternoon afternoons evening evenings night noon midnight""".split()
)
# Words that label a note rather than state anything: "Note:", "FYI:", "Reminder:".
_LABELS = frozenset("note fyi nb todo reminder important update heads-up tip warning".split())
# The words that tie a sentence's subject to its value ("... is Aiko", "... uses Intercom", "... built with MkDocs",
# "... through Opsgenie"). A slot closing the sentence after one of them is the value; after any other verb ("then
# start stone-reef") it is what an instruction acts on, and two such instructions are two facts.
_LINKING = frozenset("is are was were be uses use with via through by on at in to from as".split())
_SYNONYMS = {"single": "one", "second": "other", "mins": "minute", "min": "minute", "secs": "second"} | {
    word: str(n)
    for n, word in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
    if n >= 2
}


def _tokens(text: str) -> list[str]:
    # "doesn't" is "does not": split at its apostrophe it would be another value ("doesn", "t") and no negation.
    return [w.lower().rstrip(".:") for w in _WORD.findall(read_contractions(text))]


def _values(text: str) -> set[str]:
    """The words of `text` that name a value rather than say something about it: a number or version, an
    identifier or path, a capitalised name, a day, a month, a count, how often (each normalised as compared)."""
    out = set()
    matches = list(_WORD.finditer(text))
    for i, match in enumerate(matches):
        word = match.group(0).rstrip(".:")
        lower = word.lower()
        if lower in _STOP or lower in _LABELS or lower in _CHANGE_WORDS and lower not in _VALUE_WORDS:
            continue
        # A capital that starts a sentence or follows a label ("Note:") says nothing about the word, unless the
        # next word is capitalised too: the first of a name in several words ("Coding font: Berkeley Mono").
        starts = not text[: match.start()].strip() or text[: match.start()].rstrip()[-1:] in ".!?:;"
        following = matches[i + 1].group(0) if i + 1 < len(matches) else ""
        named_on = word[:1].isupper() and following[:1].isupper() and text[match.end() : matches[i + 1].start()] == " "
        if (
            any(c.isdigit() for c in word)
            or re.search(r"\w[-_./#+]\w|^[/#@~]", word)
            or (word[:1].isupper() and (not starts or named_on))
            or any(c.isupper() for c in word[1:])  # a capital inside marks a name: "iOS", "gRPC", "GitHub"
            or (len(word) > 1 and word.isupper())
            or lower in _VALUE_WORDS
        ):
            out.add(_norm(lower))
    return out


def content_words(text: str) -> set[str]:
    """The words of `text` the rules compare (no stop words or change words), normalised as compared."""
    return set(_content(_tokens(times_of_day(text)), drop_change_words=True))


def project_words(project: str | None) -> frozenset[str]:
    """The words of a project's name ("ledger-api": "ledger", "api"), which name the scope, not a subject."""
    if not project:
        return frozenset()
    return frozenset(_norm(w) for w in re.split(r"[-_./\s]+", project.lower()) if len(w) >= 2)


def _norm(word: str) -> str:
    """One spelling per word for comparison: plural or singular, 'Postgres' or 'PostgreSQL' alike."""
    word = _SYNONYMS.get(word, word)
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss") and not any(c.isdigit() for c in word):
        return word[:-1]
    return word


def _same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    # A short form and its full name ("postgres"/"postgresql", "k8s" aside): one is the other's start.
    # A compound ("tollgate-staging", "http.servemux") is another name than its first part.
    short, long = sorted((a, b), key=len)
    return (
        len(short) >= 4
        and long.startswith(short)
        and long[len(short)] not in "-_./:"
        and not any(c.isdigit() for c in a + b)
    )


def _content(tokens: Sequence[str], *, drop_change_words: bool) -> list[str]:
    out = []
    for token in tokens:
        if token in _STOP or (drop_change_words and token in _CHANGE_WORDS):
            continue
        out.append(_norm(token))
    return out


def _minus(left: Sequence[str], right: Sequence[str]) -> list[str]:
    return [w for w in left if not any(_same_word(w, r) for r in right)]


def change_cue(text: str) -> str:
    """The words by which a write says a fact changed ("now", "moved from", ...), or ""."""
    match = _CUE.search(text.lower())
    return match.group(0) if match else ""


def _negates(tokens: Sequence[str]) -> bool:
    return bool(set(tokens) & _NEGATION)


def _qualifiers(words: Sequence[str]) -> list[str]:
    """The qualifiers among `words`, and among the parts of a compound ("tollgate-staging", "db_prod")."""
    return [part for w in words for part in dict.fromkeys([w, *re.split(r"[-_.]", w)]) if part in QUALIFIERS]


def _qualifier_clash(older_only: Sequence[str], newer_only: Sequence[str]) -> tuple[str, str] | None:
    """Qualifiers on both sides, not the same ones ("staging" / "prod"; "EU ... eu-west-1" / "UK ... eu-west-2"). The
    same ones on both sides are no clash: "us-east-1" / "us-east-2" are one region's two values, not two facts."""
    a, b = _qualifiers(older_only), _qualifiers(newer_only)
    if not (a and b) or set(a) == set(b):
        return None
    return next((q for q in a if q not in b), a[0]), next((q for q in b if q not in a), b[0])


def _runs(older: Sequence[str], newer: Sequence[str]) -> tuple[list[tuple[str, int, int, int, int]], int]:
    """The edited runs between two token sequences, and how many tokens of the older stay in place."""
    matcher = difflib.SequenceMatcher(None, list(older), list(newer), autojunk=False)
    runs = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    kept = sum(i2 - i1 for tag, i1, i2, _, _ in matcher.get_opcodes() if tag == "equal")
    return runs, kept


def _names_the_thing(run: tuple, old: Sequence[str], new: Sequence[str], content_start: int, values: set[str]) -> bool:
    """Is the one edited slot the thing the sentence is about, rather than its value? A slot naming something (a
    value-shaped word: "billing-api") is, when it opens the sentence, or when the words around it keep a number
    (the value, "port 8080") and the slot holds none. A heading or a plain word that differs is neither."""
    _, i1, i2, j1, j2 = run
    if not any(w in values for w in (*old[i1:i2], *new[j1:j2])):
        return False
    if i1 <= content_start:
        return True
    digit = re.compile(r"\d")
    kept = [*old[:i1], *old[i2:]]
    slot = [*old[i1:i2], *new[j1:j2]]
    return any(digit.search(w) for w in kept) and not any(digit.search(w) for w in slot)


def _quote(words: Sequence[str]) -> str:
    return " ".join(words) or "-"


def _closes_on_value(run: tuple, old: Sequence[str], new: Sequence[str]) -> bool:
    """One slot replaced at the very end, after a linking word ("... is Tomasz." / "... is Aiko."; "... built with
    Docusaurus." / "... with MkDocs."): the sentence's value, said the same way. The words alone show it; two
    product names move the vectors apart more than any threshold on meaning could allow for."""
    tag, i1, i2, _, j2 = run
    return tag == "replace" and i2 == len(old) and j2 == len(new) and i1 > 0 and old[i1 - 1] in _LINKING


@dataclass(frozen=True)
class _Pair:
    """What the rules read of an older and a newer text: their words, what differs, and how one became the other."""

    similarity: float
    cue: str  # the change cue the newer text carries ("" when the older says it changed too)
    old_tokens: list[str]
    old_words: list[str]  # content words, normalised
    new_words: list[str]
    old_only: list[str]  # the content words one side has and the other lacks
    new_only: list[str]
    old_values: list[str]  # the value-shaped words among them
    new_values: list[str]
    values: set[str]
    negation_differs: bool
    plain_old: list[str]  # every word, normalised, for the edit between the two sentences
    plain_new: list[str]
    runs: list[tuple[str, int, int, int, int]]
    one_edit: bool  # one slot edited, most of the older sentence kept in place
    closing: bool  # ... and that slot is the value closing the sentence
    adds: bool  # the newer adds a fact ("also", "switched on", "started") and names nothing it replaces
    kept: _Kept  # what the newer keeps of what the older is about
    names_old: bool  # the newer names one of the older's values as what it replaced
    reworded_slot: bool = False  # the older's slot in other linking words with another value (`_same_slot_reworded`)
    says_more: int = 0  # the newer's words the older lacks, past values, linking words and a closing why or when
    labelled: int = 0  # the tokens of a heading both texts open with ("Coding font: ..."); what follows is its value
    # A link an earlier release made between the two: it read the newer as a change to the older. Where the words
    # make that reading plausible (both name one attribute; one name's version changed) it stands and a person
    # decides; a new write gets no such benefit of the doubt, or pairs of two true facts would be put to a person.
    linked: bool = False
    attributes: frozenset[str] = frozenset()  # the attributes both texts name, read for a link only
    subject_shared: bool = False  # the two share a word past those naming the attribute: what it is an attribute of
    only_adds: bool = False  # the newer says it adds to what is there ("also", "too", "another", "as well")

    @property
    def shared(self) -> int:
        return len(self.old_words) - len(self.old_only)

    @property
    def subject(self) -> float:
        """The share of the smaller text's content words the two have in common."""
        return self.shared / max(1, min(len(self.old_words), len(self.new_words)))

    @property
    def changed(self) -> str:
        return f"'{_quote(self.old_only)}' -> '{_quote(self.new_only)}'"


def adds_a_fact(text: str) -> bool:
    """Does the write add a fact ("also", "switched on", "started", "added") without naming one it replaces? A closing
    clause of why or when is not read: "... expire after 5 minutes, per the new PSD2 audit" adds no new thing."""
    lower = _without_closing_clause(text).lower()
    return bool(_ADDING.search(lower)) and not _REPLACING.search(lower)


# Words that say whose fact it is, or only that it is, rather than what it is about: every global memory is the
# user's, and "happens", "lives", "is stored" come and go as a fact is reworded.
_OWNERS = frozenset(
    """user team s company everyone people which who whose where come comes came happen happens happened take
    takes place held hold holds live lives
    lived sit sits located stored kept keep keeps go goes get gets done set""".split()
)


@dataclass(frozen=True)
class _Kept:
    """What the newer keeps of what the older fact is about: the older's own words (without the scope's words,
    which every fact of a project shares, and whose-fact words), which of them the newer holds, and the values
    each side has that the other lacks."""

    share: float  # of the older's own words found in the newer, where one value of the older may differ
    words: list[str]  # the older's own words the newer holds
    head: bool  # the older's subject as written (its first word, unless that is the scope's name) is among them
    lost_values: list[str]  # the older's values the newer lacks
    new_values: list[str]  # the newer's values the older lacks


def _kept(old_words: Sequence[str], new_words: Sequence[str], values: set[str], topic: frozenset[str]) -> _Kept:
    own = list(dict.fromkeys(w for w in old_words if w not in topic and w not in _OWNERS))
    new = [w for w in new_words if w not in topic]
    opens_on_scope = bool(old_words) and old_words[0] in topic
    kept = [w for w in own if any(_same_word(w, n) for n in new)]
    lost_values = [w for w in own if w not in kept and w in values]
    new_values = [w for w in new if w in values and not any(_same_word(w, o) for o in own)]
    allowed = 1 if lost_values and new_values else 0
    return _Kept(
        share=len(kept) / max(1, len(own) - allowed), words=kept, head=opens_on_scope or (bool(own) and own[0] in kept),
        lost_values=lost_values, new_values=list(dict.fromkeys(new_values)),
    )  # fmt: skip


def _said_replaced(text: str) -> set[str]:
    """The words a write names as what it replaced ("from Lokalise", "no longer Segment", "switched from chi"): what
    follows the cue up to the end of its clause ("no longer uses Segment; analytics ...": Segment alone)."""
    lower = times_of_day(text).lower()
    found = _NAMES_THE_OLD.findall(lower) + [phrase.split(";")[-1] for phrase in _NAMED_AS_GONE.findall(lower)]
    return {_norm(w) for phrase in found for w in _tokens(re.split(r"[;,:](?:\s|$)", phrase)[0])}


def _names_the_old(old_words: Sequence[str], newer: str, topic: frozenset[str]) -> bool:
    """Does the newer name a word of the older as what it replaced?"""
    return bool(set(old_words) - topic - _OWNERS - _STOP & _said_replaced(newer))


# The verbs and particles that only tie a subject to its value ("is powered by", "runs on", "lives in", "is
# built with", "goes through"): a fact reworded keeps its subject and value and often trades these for others.
_LINK_WORDS = frozenset(
    """is are was were be been being use uses used using run runs running ran power powered drive driven drives
    build built builds write written writes live lived living locate located base based host hosted hosts go goes
    gone going went through via with by on in at to as handle handled handles kept keep store stored stores sit sits
    serve served serves set move moved moves switch switched require requires required or later their its his her
    our from into onto over""".split()
)
# A closing clause that says why or when a value changed ("... after the harness redesign", "... per the new PSD2
# audit", "... in September"): it tells nothing about which fact changed.
_WHY_OR_WHEN = re.compile(
    r"\b(?:after|per|since|following|because|due to|as part of|last \w+|this \w+|in (?:january|february|march|april"
    r"|may|june|july|august|september|october|november|december))\b.*$",
    re.IGNORECASE,
)


def _without_closing_clause(text: str) -> str:
    """`text` without a closing clause of why or when, if one follows at least three words ("Since v2, ..." opens
    the sentence and stays)."""
    match = _WHY_OR_WHEN.search(text)
    if match is None or len(_tokens(text[: match.start()])) < 3:
        return text
    return text[: match.start()].rstrip(" ,;")


def _kinds(values: frozenset[str] | set[str]) -> set[str]:
    """What kind of value each is: a time ("nightly", "02h00", "monday"), an amount ("500", "2.11", "25mb") or a
    name. Two values of no common kind are two slots ("Backups run nightly" / "Backups go to the eu-west-2 bucket")."""
    return {
        "time" if w in _VALUE_WORDS or re.fullmatch(r"\d{1,2}h\d\d", w) else
        "amount" if re.fullmatch(r"[$€£]?[\d.,]+[a-z%/]{0,4}", w) else "name"
        for w in values
    }  # fmt: skip


@functools.lru_cache(maxsize=4096)  # each text of a pair is read by the slot rule and by `_says_more`
def _slot_words(text: str, topic: frozenset[str]) -> tuple[tuple[str, ...], frozenset[str]]:
    """The words that say which fact a text is about once its values, the scope's names and the linking words are
    set aside, and its values."""
    text = times_of_day(text)
    values = frozenset(_norm(v) for v in _values(text)) - topic
    words = tuple(
        w
        for w in _content(_tokens(text), drop_change_words=True)
        if w not in values and w not in topic and w not in _LINK_WORDS and w not in _OWNERS
    )
    return words, values


def _in_one_place(values: frozenset[str], text: str) -> bool:
    """Do these values of `text` stand together ("Elasticsearch 7", "Lisbon, Portugal", "English and German"), rather
    than in two slots ("the 'gold' plan gets 1000 requests", "the timeout of stone-saddle is 5 seconds")?"""
    plain = [_norm(t) for t in _tokens(times_of_day(text))]
    places = [i for i, t in enumerate(plain) if t in values]
    between = plain[places[0] : places[-1] + 1] if places else []
    return all(t in values or t in ("and", "or") for t in between)


def _anchored(old_words: Sequence[str], new_words: Sequence[str], shared_values: frozenset[str], name: str) -> bool:
    """Something of the fact itself is common to both, besides the linking words and the name the older opens on
    (a product's name opens most of its facts): a word ("search"), or a name that carries a new version ("Go")."""
    shared_words = [w for w in old_words if w != name and any(_same_word(w, n) for n in new_words)]
    return bool(shared_values - {name} or shared_words)


def _opening(text: str, topic: frozenset[str]) -> tuple[str, bool]:
    """The first word `text` is about, past the scope's names (normalised), and whether it is written as a name."""
    for word in _WORD.findall(read_contractions(times_of_day(text))):
        token = word.lower().rstrip(".:")
        if token not in _STOP and token not in _CHANGE_WORDS and token not in _LABELS and _norm(token) not in topic:
            return _norm(token), word[:1].isupper()
    return "", False


def _says_more(older: str, newer: str, topic: frozenset[str]) -> int:
    """How many words the newer says of its subject that the older does not, past values, the scope's names, the
    linking and change words and a closing clause of why or when."""
    old_words, _ = _slot_words(older, topic)
    new_words, _ = _slot_words(_without_closing_clause(newer), topic)
    return len(_minus(new_words, old_words))


def _same_slot_reworded(older: str, newer: str, topic: frozenset[str]) -> bool:
    """One fact's slot said in other linking words with another value ("Inkwell's search is powered by
    Elasticsearch 7." / "Inkwell search runs on OpenSearch 2.11 now."): apart from their values, the scope's names
    and the linking words, the two differ in at most one word and share at least one; the values that differ are of
    one kind and stand in one place on each side; the name the older opens on stays."""
    old_words, old_values = _slot_words(older, topic)
    newer = _without_closing_clause(newer)
    new_words, new_values = _slot_words(newer, topic)
    lost, gained = old_values - new_values, new_values - old_values
    opening, capitalised = _opening(older, topic)
    if not (lost and gained and _same_kind(lost, gained)) or opening in lost:
        return False  # no value replaced, or the thing the older is about is gone ("billing-api" / "search-api")
    if not (_in_one_place(lost, older) and _in_one_place(gained, newer)):
        return False
    if not _anchored(old_words, new_words, old_values & new_values, opening if capitalised else ""):
        return False
    if _kinds(lost | gained) == {"name"} and _kinds(old_values & new_values) - {"name"}:
        return False  # a number or a time both keep, names swapped: two things sharing a value ("port 9090")
    old_all, new_all = [*old_words, *sorted(old_values)], [*new_words, *sorted(new_values)]
    if _qualifier_clash(_minus(old_all, new_all), _minus(new_all, old_all)):
        return False
    said = _said_replaced(newer)
    if said and not said & (set(old_words) | old_values):
        return False  # the write names what it replaced, and that is nothing of the older's
    return len(_minus(old_words, new_words)) + len(_minus(new_words, old_words)) <= 1


def _compare(
    older: str, newer: str, similarity: float, topic: frozenset[str] = frozenset(), *, linked: bool = False
) -> _Pair:
    older, newer = times_of_day(older), times_of_day(newer)
    topic = frozenset(_norm(w) for w in topic)
    cue = change_cue(newer) if not change_cue(older) else ""
    old_tokens, new_tokens = _tokens(older), _tokens(newer)
    old_words = _content(old_tokens, drop_change_words=False)
    new_words = _content(new_tokens, drop_change_words=bool(cue))
    old_only, new_only = _minus(old_words, new_words), _minus(new_words, old_words)
    values = _values(older) | _values(newer)
    plain_old, plain_new = [_norm(t) for t in old_tokens], [_norm(t) for t in new_tokens]
    runs, kept = _runs(plain_old, plain_new)
    one_edit = len(runs) == 1 and kept / max(1, len(plain_old)) >= RULES["edit_kept"]
    kept_of_old = _kept(old_words, _content(new_tokens, drop_change_words=True), values, topic)
    return _Pair(
        similarity=similarity, cue=cue, old_tokens=old_tokens, old_words=old_words, new_words=new_words,
        old_only=old_only, new_only=new_only, old_values=[w for w in old_only if w in values],
        new_values=[w for w in new_only if w in values], values=values,
        negation_differs=_negates(old_tokens) != _negates(new_tokens), plain_old=plain_old, plain_new=plain_new,
        runs=runs, one_edit=one_edit, closing=one_edit and _closes_on_value(runs[0], plain_old, plain_new),
        adds=adds_a_fact(newer) and not adds_a_fact(older), kept=kept_of_old,
        names_old=bool(cue) and _names_the_old(old_words, newer, topic),
        labelled=_shared_heading(older, newer),
        reworded_slot=not adds_a_fact(newer) and _same_slot_reworded(older, newer, topic),
        says_more=_says_more(older, newer, topic),
        linked=linked, **(_read_for_a_link(older, newer, old_words, new_words) if linked else {}),
    )  # fmt: skip


def _read_for_a_link(older: str, newer: str, old_words: Sequence[str], new_words: Sequence[str]) -> dict:
    """What `_linked_reading` reads of a stored link's two texts; a new write's pair never pays for it."""
    return {
        "attributes": attributes_named(older) & attributes_named(newer),
        "subject_shared": bool(_shared_past(old_words, new_words, naming_words(older) | naming_words(newer))),
        "only_adds": bool(_ONLY_ADDS.search(newer.lower())),
    }


def _shared_past(old_words: Sequence[str], new_words: Sequence[str], naming: frozenset[str]) -> list[str]:
    """The older's words the newer holds too, past those that name an attribute."""
    past = {_norm(w) for w in naming}
    return [w for w in old_words if w not in past and any(_same_word(w, n) for n in new_words if n not in past)]


def _shared_heading(older: str, newer: str) -> int:
    """How many tokens a heading both texts open with holds ("Coding font: JetBrains Mono" / "Coding font:
    Berkeley Mono": 2), or 0: a short run of words before a colon names the slot, and what follows is its value."""
    head, colon, _ = older.partition(":")
    if not colon or len(head.split()) > 3 or not head.replace(" ", "").replace("-", "").isalpha():
        return 0
    return len(_tokens(head)) if newer.partition(":")[0].strip().lower() == head.strip().lower() else 0


# Each rule below either settles the pair, as (verdict, reason), or leaves it to the next one (None).
_Settled = tuple[Verdict, str] | None


def _look_alikes(pair: _Pair) -> _Settled:
    clash = _qualifier_clash(pair.old_only, pair.new_only)
    if clash and not any(set(clash) <= QUALIFIER_VALUED.get(name, set()) for name in pair.attributes):
        return Verdict.DIFFERENT, f"look-alikes: '{clash[0]}' and '{clash[1]}' are two facts"
    return None


def _about_another_subject(pair: _Pair) -> _Settled:
    # The edited slot is what the sentence is about ("billing-api listens on port 8080." / "search-api
    # listens on port 8080."; "Port 8080 is where billing-api listens."): two things that share a value.
    if pair.cue or not pair.one_edit or pair.closing or pair.runs[0][0] != "replace":
        return None
    if pair.labelled and pair.runs[0][1] == pair.labelled:
        return None  # the heading's value, right after it: "Coding font: JetBrains Mono" / "...: Berkeley Mono"
    content_start = next((i for i, t in enumerate(pair.old_tokens) if t not in _STOP), 0)
    if _names_the_thing(pair.runs[0], pair.plain_old, pair.plain_new, content_start, pair.values):
        return Verdict.DIFFERENT, f"the same statement about another subject: {pair.changed}"
    return None


def _same_claim(pair: _Pair) -> _Settled:
    # With a cue, a lower-case tool ("switched from Poetry to uv") is the new value too.
    if pair.old_values or pair.new_values or pair.negation_differs or (pair.cue and pair.new_only):
        return None
    # Only wording differs ("Alice owns X." / "X is owned by Alice."): the same claim, for the twin check.
    return Verdict.NONE, "the same claim in other words"


def _too_far_apart(pair: _Pair) -> _Settled:
    floor = RULES["cue_min_similarity"] if pair.cue else RULES["min_similarity"]
    if pair.similarity and pair.similarity < floor and not pair.closing:
        return Verdict.NONE, "another subject"
    return None


def _linked_reading(pair: _Pair) -> _Settled:
    # A link an earlier release made (`_Pair.linked`) stands, for a person to settle, where the words bear out its
    # reading of the newer as the older's new value, however reworded: both name one attribute ("The user lives in
    # Lisbon." / "The user moved to Porto."), one kind of quantity of one thing ("capped at 25 MB" / "up to 50 MB"),
    # one name with another version ("gcc 10.3" / "gcc 13.2"), or one family of models ("STM32F4" / "STM32H7").
    # Not where the newer says it adds one more ("also", "another"), nor the same attribute of two things ("Kai owns
    # billing" / "Rosa owns search"), nor where a write that says it changed would replace the older anyway.
    if not pair.linked or pair.only_adds or not (pair.old_only and pair.new_only):
        return None
    if pair.similarity and pair.similarity < RULES["cue_min_similarity"]:
        return None
    said = _said_to_change(pair)
    if said is not None and said[0] == Verdict.SUPERSEDE:
        return None
    if _new_version_of_a_name(pair) or _versions_of_one_word(pair) or _one_family(pair):
        return Verdict.CONFLICT, f"the same name with another version or model: {pair.changed}"
    if not pair.subject_shared:
        return None
    named = pair.attributes - QUANTITIES
    valued = (pair.kept.lost_values or pair.old_values or pair.cue) and (
        pair.kept.new_values or pair.new_values or pair.cue
    )
    if named and valued:
        return Verdict.CONFLICT, f"the same attribute ({', '.join(sorted(named))}) with another value: {pair.changed}"
    about = [w for w in pair.kept.words if not quantity_word(w)]
    if pair.attributes & QUANTITIES and pair.kept.head and len(about) >= 2:
        # What the quantity is of, kept: two words of the older past the quantities. Two look-alikes' quantities
        # ("The path planner replans every 500 ms." / "The obstacle detector now runs every 100 ms."; "Annotator pay is
        # $0.04 per bounding box." / "... now pays $0.10 per polygon.") keep one word or none.
        kinds = ", ".join(sorted(pair.attributes & QUANTITIES))
        return Verdict.CONFLICT, f"the same thing with another quantity ({kinds}): {pair.changed}"
    return None


_VERSION = re.compile(r"v?\d+(?:\.\d+)+|v?\d{2,5}")


# Nouns a number follows that name no thing of their own: two services' ports are two facts, not one's versions.
_NUMBERED = frozenset("port ports step stage phase level tier node nodes page line row column item room floor".split())


def _versions_of_one_word(pair: _Pair) -> bool:
    """One word followed by a number on both sides, the numbers not the same ("gcc 10.3" / "gcc 13.2")."""

    def versioned(tokens: Sequence[str]) -> dict[str, str]:
        return {
            a: b
            for a, b in zip(tokens, tokens[1:], strict=False)
            if a not in _STOP and a not in _NUMBERED and _VERSION.fullmatch(b)
        }

    old, new = versioned(pair.plain_old), versioned(pair.plain_new)
    return any(word in new and new[word] != number for word, number in old.items())


def _one_family(pair: _Pair) -> bool:
    """A model name on each side that share their first letters and differ after them ("stm32f4" / "stm32h7"); not
    paths or addresses, whose first letters are a scheme or a folder."""
    family = 5
    return any(
        a[:family] == b[:family] and a != b and any(c.isdigit() for c in a + b)
        for a in pair.old_values
        for b in pair.new_values
        if len(a) > family and len(b) > family and a.isalnum() and b.isalnum()
    )


def _adds_a_fact(pair: _Pair) -> _Settled:
    # "Since the PCI review, tollgate also redacts emails." replaces nothing, whatever it shares with a stored fact.
    if pair.adds:
        return Verdict.NONE, "adds a fact and names nothing it replaces"
    return None


def _said_to_change(pair: _Pair) -> _Settled:
    if not pair.cue:
        return None
    kept = pair.kept
    # The same subject and attribute: most of what the older fact is about stays, its subject as written among it,
    # and more than a qualifier.
    about = [w for w in kept.words if w not in QUALIFIERS]
    if kept.share >= RULES["cue_subject"] and kept.head and about:
        if pair.says_more >= 2 and not pair.names_old:
            # It keeps the older's subject but says other things of it ("Container images are stored in ECR." /
            # "Container images are now scanned by Trivy on push."): another attribute as often as a new value.
            return Verdict.CONFLICT, f"says it changed ('{pair.cue}'), and more than a value: {pair.changed}"
        return Verdict.SUPERSEDE, f"says it changed ('{pair.cue}'): {pair.changed}"
    # A change to part of the older fact (a version of a name both hold; a value the write says it replaced): the
    # older holds more than the newer, so a person decides what stays.
    # The versioned name is itself what the fact is about, even when it is also a qualifier ("iOS 15" / "iOS 16").
    if (about and pair.names_old) or (kept.head and _new_version_of_a_name(pair)):
        return Verdict.CONFLICT, f"says it changed ('{pair.cue}') part of this fact: {pair.changed}"
    if pair.reworded_slot:
        return Verdict.CONFLICT, f"says it changed ('{pair.cue}') this fact's value, in other words: {pair.changed}"
    return Verdict.NONE, _ANOTHER_SUBJECT


def _one_slot_edited(pair: _Pair) -> _Settled:
    similarity = pair.similarity
    if not (pair.one_edit and (pair.closing or not similarity or similarity >= RULES["edit_similarity"])):
        return None
    if pair.runs[0][0] != "replace" and not pair.negation_differs:
        # Words added or left out, none replaced: a detail more or less, not another value.
        return Verdict.NONE, "the same statement with a detail added or left out"
    # Without a cue, another value may be a change or a mistake (either side can be the wrong one): both stay,
    # the newer ranks first, and a person says which is current. Only a write that says it changed replaces.
    return Verdict.CONFLICT, f"the same statement with another value, not said to be a change: {pair.changed}"


def _reworded_with_another_value(pair: _Pair) -> _Settled:
    if (
        len(pair.runs) >= 2
        and pair.old_values
        and pair.new_values
        and pair.subject >= RULES["reworded_subject"]
        and pair.similarity >= RULES["reworded_similarity"]
    ):
        return Verdict.CONFLICT, f"the same subject with another value: {pair.changed}"
    return None


def _new_version_of_a_name(pair: _Pair) -> bool:
    """A name both hold, followed by a number that changed ("React Native 0.73" / "React Native 0.74")."""

    def versioned(tokens: Sequence[str], numbers: Sequence[str]) -> set[str]:
        return {a for a, b in zip(tokens, tokens[1:], strict=False) if b in numbers and any(c.isdigit() for c in b)}

    names = [w for w in pair.kept.words if w in pair.values]
    old, new = versioned(pair.plain_old, pair.kept.lost_values), versioned(pair.plain_new, pair.kept.new_values)
    # A short form and its full name alike ("PostgreSQL 13" / "Postgres 16").
    return any(_same_word(a, b) and any(_same_word(a, n) for n in names) for a in old for b in new)


def _same_kind(a: Sequence[str], b: Sequence[str]) -> bool:
    """Values of one kind on both sides: a time for a time, an amount for an amount, a name for a name."""
    return bool(_kinds(set(a)) & _kinds(set(b)))


def _restated_with_another_value(pair: _Pair) -> _Settled:
    # Reworded around one subject, its values changed ("timeout is 30 seconds" / "gives upstreams 15 seconds").
    kept = pair.kept
    if (
        _same_kind(kept.lost_values, kept.new_values)
        and kept.head
        and kept.share >= RULES["cue_subject"]
        and pair.similarity >= RULES["restated_similarity"]
    ):
        return Verdict.CONFLICT, f"the same subject, reworded with another value: {pair.changed}"
    return None


def _slot_reworded_with_another_value(pair: _Pair) -> _Settled:
    # Without a cue, the same slot in other linking words with another value: a change or a mistake, as for one
    # slot edited; both stay, the newer ranks first, and a person says which is current.
    if pair.reworded_slot:
        return Verdict.CONFLICT, f"the same fact in other words with another value: {pair.changed}"
    return None


def _close_but_differs(pair: _Pair) -> _Settled:
    # Very close in meaning, yet each says something the other does not ("refuses anything below TLS 1.2" / "only
    # accepts TLS 1.3"): a person decides. Look-alikes that differ in a qualifier or a subject were settled above.
    if (
        RULES["close_disagree"] <= pair.similarity < RULES["reworded_same"]
        and pair.old_only
        and pair.new_only
        and (pair.old_values or pair.new_values or pair.negation_differs)
    ):
        return Verdict.CONFLICT, f"nearly the same meaning, saying something else: {pair.changed}"
    return None


def _differs_in_many_places(pair: _Pair) -> _Settled:
    if pair.similarity >= RULES["reworded_same"]:
        # Reworded in several places yet nearly the same meaning ("main ... RAM" / "primary ... memory"): no other
        # fact by these rules; the twin check reads what each text says and folds only a write that adds nothing.
        return None
    if len(pair.runs) >= 2 and pair.old_only and pair.new_only:
        return Verdict.DIFFERENT, f"differs in more than one place: {pair.changed}"
    return None


# In this order: a rule further down may assume every rule above it has passed (past `_said_to_change` there is
# no cue; past `_same_claim` a value or a negation differs).
_CHECKS_IN_ORDER = (
    _look_alikes,
    _about_another_subject,
    _same_claim,
    _linked_reading,
    _too_far_apart,
    _adds_a_fact,
    _said_to_change,
    _one_slot_edited,
    _reworded_with_another_value,
    _restated_with_another_value,
    _slot_reworded_with_another_value,
    _close_but_differs,
    _differs_in_many_places,
)


def judge_pair(
    *,
    older: str,
    newer: str,
    similarity: float,
    memory_id: int = 0,
    topic: frozenset[str] = frozenset(),
    linked: bool = False,
) -> UpdateVerdict:
    """How the newer text stands to one older memory. Pure: no database, no model. `topic`: the words every fact of
    the scope shares (the project's or product's name), which name no subject (`update_gate.scope_topic`);
    `linked`: an existing link between the two is being judged again (`_Pair.linked`)."""
    # One length written two ways ("14 days" / "two weeks") is one value: the newer writes it as the older does.
    pair = _compare(older, lengths_written_as_in(newer, older), similarity, topic, linked=linked)
    for rule in _CHECKS_IN_ORDER:
        settled = rule(pair)
        if settled is not None:
            verdict, reason = settled
            return UpdateVerdict(verdict, memory_id, reason, pair.cue)
    return UpdateVerdict(Verdict.NONE, memory_id, "nothing replaced", pair.cue)


def judge_update(
    *, text: str, neighbours: Sequence[Neighbour], topic: frozenset[str] = frozenset()
) -> list[UpdateVerdict]:
    """The verdict on each neighbour, nearest first; each pair is judged in the order its facts became true."""
    ordered = sorted(neighbours, key=lambda n: -n.similarity)
    verdicts = [
        judge_pair(older=text, newer=n.content, similarity=n.similarity, memory_id=n.id, topic=topic)
        if n.newer
        else judge_pair(older=n.content, newer=text, similarity=n.similarity, memory_id=n.id, topic=topic)
        for n in ordered
    ]
    return _ask_about_the_nearest(text, ordered, _one_fact_per_slot(text, ordered, verdicts))


_ANOTHER_SUBJECT = "says something changed, but about another subject"


def _ask_about_the_nearest(text: str, neighbours: Sequence[Neighbour], verdicts: list[UpdateVerdict]):
    """A write that says it changed something, where the rules found nothing it replaces: its nearest neighbour, when
    very close in meaning, is put to a person rather than left to rank beside it unnoticed."""
    cue = change_cue(text)
    if not cue or adds_a_fact(text) or any(v.verdict in (Verdict.SUPERSEDE, Verdict.CONFLICT) for v in verdicts):
        return verdicts
    nearest = neighbours[0] if neighbours else None
    if nearest is None or nearest.newer or nearest.similarity < RULES["ask_nearest_similarity"]:
        return verdicts
    return [
        UpdateVerdict(Verdict.CONFLICT, v.memory_id, f"says it changed ('{cue}'), and this is the nearest fact", cue)
        if v.memory_id == nearest.id and v.reason == _ANOTHER_SUBJECT
        else v
        for v in verdicts
    ]


def _one_fact_per_slot(text: str, neighbours: Sequence[Neighbour], verdicts: list[UpdateVerdict]):
    """A write replaces one fact per slot it names. When the rules would let it replace several, those whose value
    the write names ("from Jenkins to Buildkite") are replaced; the others go to a person, as does every one of
    them when the write names none: a write that hides several facts at once is more often wrong than right."""
    replacing = [v for v in verdicts if v.verdict == Verdict.SUPERSEDE]
    if len(replacing) < 2:
        return verdicts
    said = _said_replaced(text)
    texts = {n.id: n.content for n in neighbours}
    named = {v.memory_id for v in replacing if _values(times_of_day(texts[v.memory_id])) & said}
    out = []
    for v in verdicts:
        if v.verdict == Verdict.SUPERSEDE and v.memory_id not in named:
            v = UpdateVerdict(Verdict.CONFLICT, v.memory_id, f"{v.reason}; the write would replace several "
                              "memories and does not name this one", v.cue)  # fmt: skip
        out.append(v)
    return out
