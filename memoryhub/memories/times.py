"""Times of day written differently ("3pm", "3 p.m.", "3:00 PM", "15:00", "15h") are one time, and lengths of time
written differently ("two weeks", "14 days"; "300 seconds", "five minutes") are one length: each is rewritten as one
token before texts are compared, by the write gate (a paraphrase that writes a quantity another way adds nothing)
and by consolidation (twins that differ only in how they write a time). The update rules read times of day as
tokens too, and a length as the other text of the pair writes it (`lengths_written_as_in`): the same quantity
written another way is not a new value."""

from __future__ import annotations

import re
from collections.abc import Callable

# Times of day written differently ("3pm", "3 p.m.", "3:00 PM", "15:00", "15h", "15h00") are one time: each is
# rewritten as one token, "15h00", before words are compared, so twins that differ only in how they write a time
# are proposed, and two different times stay two names.
_TIME_12H = re.compile(r"\b(1[0-2]|0?[1-9])(?:[:.]([0-5]\d))?\s*(?:([ap])\.\s?m\.|([ap])m\b)", re.IGNORECASE)
_TIME_24H = re.compile(r"\b([01]?\d|2[0-3])(?::([0-5]\d)(?::[0-5]\d)?|h([0-5]\d)?)(?![\w:])", re.IGNORECASE)
_TIME_WORDS = {"noon": "12h00", "midday": "12h00", "midnight": "00h00"}
_TIME_WORD = re.compile(r"\b(noon|midday|midnight)\b", re.IGNORECASE)


# A count written as a word, as its digits ("fifteen" -> "15"). "one" is as often "a" and counts only before a unit.
_UNITS = """two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
eighteen nineteen""".split()
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
NUMBER_WORDS = (
    {word: str(n) for n, word in enumerate(_UNITS, 2)} | {w: str(n) for w, n in _TENS.items()} | {"hundred": "100"}
)
_ONES = {word: n for n, word in enumerate(["one", *_UNITS[:8]], 1)}  # what follows "twenty-" in "twenty-four"

# Lengths of time: a count (digits, or words: "fifteen", "twenty-four") and a unit, apart, hyphenated ("a 15-minute
# lifetime") or joined ("500ms"); "half a second", "a quarter of an hour". Months and years are left as written:
# "30 days" is not "a month". A length becomes its count in the largest unit it is a whole number of ("14day",
# "5min", "500ms"), a token the gate and consolidation compare as they compare any number.
_MS = {"ms": 1, "millisecond": 1, "s": 1000, "sec": 1000, "second": 1000, "min": 60_000, "minute": 60_000,
       "h": 3_600_000, "hr": 3_600_000, "hour": 3_600_000, "day": 86_400_000, "week": 604_800_000,
       "fortnight": 1_209_600_000}  # fmt: skip
_ONE_PERIOD = {"1min": "minute", "1hr": "hour", "1day": "day", "7day": "week"}  # "every 60 minutes": "every hour"
_CANONICAL_UNITS = (("day", 86_400_000), ("hr", 3_600_000), ("min", 60_000), ("sec", 1000), ("ms", 1))
_WORD_COUNT = "|".join([*_TENS, *_UNITS, "one"])
_COUNT = rf"(\d+(?:\.\d+)?|(?:{'|'.join(_TENS)})-(?:{'|'.join(_ONES)})|{_WORD_COUNT})"
_UNIT = r"(milliseconds?|ms|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|fortnights?)"
_LENGTH = re.compile(
    rf"(?:\b(every|each|per|once) )?\b{_COUNT}(?:[ -]|(?<=\d)(?=[a-z]))(?:{_UNIT}|(s|h))\b", re.IGNORECASE
)
_SPAN = re.compile(rf"\b{_COUNT} (to|and|or) {_COUNT}[ -]{_UNIT}\b", re.IGNORECASE)
# "a week" is one week where it is how long ("for a week", "within an hour"), not where it is a rate ("100 requests a
# minute", "once a day").
_ONE = re.compile(
    r"\b(for|within|after|in|over|under|than|about|around|nearly|almost|least|most|to|of|lasts?|takes?|took) an? "
    rf"{_UNIT}\b",
    re.IGNORECASE,
)
# Every length above holds one of these: a text without any (most texts) is returned as it is, for a fraction of
# the four patterns' cost. The gate reads each of a write's candidates through them.
_ANY_UNIT = re.compile(r"ms|sec|min|hour|hr|day|week|fortnight|\d[ -]?[sh]\b", re.IGNORECASE)
_PART = re.compile(
    r"(?:\b(every|each|per|once) )?\b(?:(half) (?:an? )?|(?:a )?(quarter) of an? )(second|minute|hour|day)\b",
    re.IGNORECASE,
)


def _length_token(ms: float) -> str | None:
    if ms <= 0 or ms != int(ms):
        return None
    return next(f"{int(ms) // size}{name}" for name, size in _CANONICAL_UNITS if int(ms) % size == 0)


def _count(word: str) -> float:
    word = word.lower()
    if word[0].isdigit():
        return float(word)
    if "-" in word:
        tens, ones = word.split("-")
        return float(_TENS[tens] + _ONES[ones])
    return float(_ONES.get(word) or NUMBER_WORDS[word])


def _unit_ms(unit: str) -> int:
    unit = unit.lower()
    return _MS.get(unit) or _MS[unit[:-1]]  # "minutes" -> "minute"


def _rewritten(text: str, render: Callable[[str, str], str], *, periods: bool = False) -> str:
    """`text` with each length as `render(token, words)` makes it, from its token ("14day") and its words; with
    `periods`, "every 60 minutes" as "every hour" (which the phrase rules read as "hourly")."""
    if not _ANY_UNIT.search(text):
        return text

    def token(ms: float, words: str) -> str:
        made = _length_token(ms)
        return words if made is None else render(made, words)

    def span(match: re.Match) -> str:  # "from 30 to 14 days": the unit is both numbers'
        unit = _unit_ms(match.group(4))
        first = token(_count(match.group(1)) * unit, f"{match.group(1)} {match.group(4)}")
        return f"{first} {match.group(2)} {token(_count(match.group(3)) * unit, match.group(0).split(' ', 2)[2])}"

    def every(word: str | None, ms: float, words: str) -> str:
        if not word:
            return token(ms, words)
        # How often: "every 15 minutes" and "every quarter of an hour" are one period.
        made = _length_token(ms)
        if periods and made in _ONE_PERIOD:
            return f"{word} {_ONE_PERIOD[made]}"
        return f"{word} {token(ms, words)}"

    def length(match: re.Match) -> str:
        count, unit, short = match.group(2), match.group(3), match.group(4)
        if short and not count[0].isdigit():
            return match.group(0)  # "two s" is not a length
        words = match.group(0).split(" ", 1)[1] if match.group(1) else match.group(0)
        return every(match.group(1), _count(count) * _unit_ms(unit or short), words)

    def part(match: re.Match) -> str:
        words = match.group(0).split(" ", 1)[1] if match.group(1) else match.group(0)
        return every(match.group(1), (0.5 if match.group(2) else 0.25) * _unit_ms(match.group(4)), words)

    def one(match: re.Match) -> str:
        return f"{match.group(1)} {token(_unit_ms(match.group(2)), match.group(0).split(' ', 1)[1])}"

    text = _SPAN.sub(span, text)
    return _ONE.sub(one, _PART.sub(part, _LENGTH.sub(length, text)))


def normalise_lengths(text: str) -> str:
    """`text` with each length of time written as one token ("two weeks" and "14 days" as "14day")."""
    return _rewritten(text, lambda token, words: token, periods=True)


def lengths_as_written(text: str) -> dict[str, str]:
    """Each length's token in `text` and the words it stood for ("14day": "two weeks"), to name it as written."""
    written: dict[str, str] = {}

    def note(token: str, words: str) -> str:
        written.setdefault(token, words.lower())
        return token

    _rewritten(text, note)
    return written


def lengths_written_as_in(text: str, other: str) -> str:
    """`text` with each length `other` also states, however written, in `other`'s words ("retained for two weeks"
    beside "kept for 14 days": "retained for 14 days"); every other word as it was. For rules that count a text's
    words, where a length written as one token would count one word fewer than as written."""
    theirs = lengths_as_written(other)
    return _rewritten(text, lambda token, words: theirs.get(token, words))


def _time_token(hour: int, minute: int) -> str:
    return f"{hour:02d}h{minute:02d}"


def normalise_times(text: str) -> str:
    """`text` with each time of day and each length of time written as one token."""
    return normalise_lengths(times_of_day(text))


def times_of_day(text: str) -> str:
    """`text` with each time of day written as one token ("3pm" and "15:00" as "15h00")."""

    def twelve(match: re.Match) -> str:
        hour = int(match.group(1)) % 12 + (12 if (match.group(3) or match.group(4)).lower() == "p" else 0)
        return _time_token(hour, int(match.group(2) or 0))

    def twentyfour(match: re.Match) -> str:
        return _time_token(int(match.group(1)), int(match.group(2) or match.group(3) or 0))

    text = _TIME_12H.sub(twelve, text)
    text = _TIME_24H.sub(twentyfour, text)
    return _TIME_WORD.sub(lambda m: _TIME_WORDS[m.group(1).lower()], text)
