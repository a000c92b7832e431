"""Times of day written differently ("3pm", "3 p.m.", "3:00 PM", "15:00", "15h") are one time: rewritten as one
token before texts are compared, by consolidation (twins that differ only in how they write a time) and by the
update rules (the same time written another way is not a new value)."""

from __future__ import annotations

import re

# Times of day written differently ("3pm", "3 p.m.", "3:00 PM", "15:00", "15h", "15h00") are one time: each is
# rewritten as one token, "15h00", before words are compared, so twins that differ only in how they write a time
# are proposed, and two different times stay two names.
_TIME_12H = re.compile(r"\b(1[0-2]|0?[1-9])(?:[:.]([0-5]\d))?\s*(?:([ap])\.\s?m\.|([ap])m\b)", re.IGNORECASE)
_TIME_24H = re.compile(r"\b([01]?\d|2[0-3])(?::([0-5]\d)(?::[0-5]\d)?|h([0-5]\d)?)(?![\w:])", re.IGNORECASE)
_TIME_WORDS = {"noon": "12h00", "midday": "12h00", "midnight": "00h00"}
_TIME_WORD = re.compile(r"\b(noon|midday|midnight)\b", re.IGNORECASE)


def _time_token(hour: int, minute: int) -> str:
    return f"{hour:02d}h{minute:02d}"


def normalise_times(text: str) -> str:
    def twelve(match: re.Match) -> str:
        hour = int(match.group(1)) % 12 + (12 if (match.group(3) or match.group(4)).lower() == "p" else 0)
        return _time_token(hour, int(match.group(2) or 0))

    def twentyfour(match: re.Match) -> str:
        return _time_token(int(match.group(1)), int(match.group(2) or match.group(3) or 0))

    text = _TIME_12H.sub(twelve, text)
    text = _TIME_24H.sub(twentyfour, text)
    return _TIME_WORD.sub(lambda m: _TIME_WORDS[m.group(1).lower()], text)
