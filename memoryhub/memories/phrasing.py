"""Phrases read as the one word they stand for, and contractions as their words, before texts are compared word
by word: "Test accounts are left out" says "excludes", "every month" says "monthly", "doesn't" says "does not".
The gate's fold rules (details.py, rewording.py) and the update rules (updates.py) read texts through here."""

from __future__ import annotations

import re

# Contractions read as their words, so "that's" is no word "that" plus a stray "s", and "don't" keeps its "not".
_NOT = {"can": "can", "won": "will", "shan": "shall"}
_CONTRACTIONS = (
    (re.compile(r"\b(can|won|shan)'t\b", re.I), lambda m: _NOT[m.group(1).lower()] + " not"),
    (re.compile(r"n't\b", re.I), lambda m: " not"),
    (re.compile(r"['’](s|re|ve|ll|d|m)\b", re.I), lambda m: ""),
)  # fmt: skip

_PERIODS = {"day": "daily", "night": "nightly", "week": "weekly", "month": "monthly", "year": "yearly",
            "hour": "hourly", "minute": "minutely"}  # fmt: skip
_PARTICLE_VERB = r"(?:s|es|ed|d|ing)?"

# A phrase and the one word it stands for, in the way people write about software. General phrasal verbs and
# phrasings of a period or a bound only: each is read as its word before any comparison.
PHRASES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.I), word)
    for pattern, word in (
        (r"\b(?:leave|leaves|left|leaving) out\b", "exclude"),
        (r"\b(?:come|comes|came|coming|give|gives|gave|given|send|sends|sent|sending) back\b", "return"),
        (rf"\bfill{_PARTICLE_VERB} (?:in|up)\b", "fill"),
        (rf"\bturn{_PARTICLE_VERB} on\b|\bswitch{_PARTICLE_VERB} on\b", "enable"),
        (rf"\bturn{_PARTICLE_VERB} off\b|\bswitch{_PARTICLE_VERB} off\b", "disable"),
        (rf"\bset{_PARTICLE_VERB} up\b|\bsetting up\b", "setup"),
        (rf"\b(?:log|logg){_PARTICLE_VERB} in(?:to)?\b|\bsign{_PARTICLE_VERB} in(?:to)?\b", "login"),
        (rf"\bsign{_PARTICLE_VERB} up\b", "signup"),
        (rf"\b(?:roll{_PARTICLE_VERB}) back\b", "rollback"),
        (rf"\bback{_PARTICLE_VERB} up\b", "backup"),
        (rf"\bclean{_PARTICLE_VERB} up\b", "cleanup"),
        (rf"\blook{_PARTICLE_VERB} up\b", "lookup"),
        (r"\bshut(?:s|ting)? down\b", "shutdown"),
        (r"\bmake(?:s)? sure\b|\bmaking sure\b|\bmade sure\b", "ensure"),
        (r"\b(?:responsible for|in charge of)\b", "own"),
        (r"\b(?:up to|at most|no more than|not more than)\b", "maximum"),
        (r"\b(?:at least|no fewer than|no less than)\b", "minimum"),
        (r"\b(?:a lot of|lots of)\b", "many"),
        (rf"\btime{_PARTICLE_VERB} out\b", "timeout"),
        (rf"\bfilter{_PARTICLE_VERB} out\b", "exclude"),
        (rf"\bsign{_PARTICLE_VERB} off(?: on)?\b", "approve"),
        (r"\b(?:spin|spins|spun|spinning) up\b", "start"),
        (r"\s?\b(?:percent|per cent)\b", "%"),
        # A number and its unit written together are the two words ("10MB" / "10 MB").
        (r"\b(\d+(?:\.\d+)?)(kb|mb|gb|tb|ms|px)\b", r"\1 \2"),
        (r"\ba pair of\b", "two"),
        # "at 500 ms intervals" is "every 500 ms".
        (r"\bat (\d+(?:\.\d+)?\s?[a-z]+) intervals\b", r"every \1"),
        (r"\btwice\b", "two times"),
        (r"\bthrice\b", "three times"),
        (r"\b(?:business|working|work) (day)(s?)\b", r"week\1\2"),
        (r"\b(?:take|takes|took|taken|taking) care of\b", "handle"),
        (r"\b(?:consist|consists|consisted|consisting) of\b", "include"),
        (r"\bin an? ([a-z-]+) (?:way|manner|fashion)\b", r"\1"),
        (r"\bon an? (daily|nightly|weekly|monthly|yearly|hourly) basis\b", r"\1"),
        (r"\b(?:every|each|per|once an?|once per) (day|night|week|month|year|hour|minute)\b", "<period>"),
    )
)


def read_contractions(text: str) -> str:
    """`text` with its contractions read as their words: "doesn't" is "does not", "that's" is "that"."""
    for pattern, replace in _CONTRACTIONS:
        text = pattern.sub(replace, text)
    return text


def read_phrases(text: str) -> str:
    """`text` with its contractions read as their words and each phrase of `PHRASES` as its word."""
    text = read_contractions(text)
    for pattern, word in PHRASES:
        if word == "<period>":
            text = pattern.sub(lambda m: _PERIODS[m.group(1).lower()], text)
        else:
            text = pattern.sub(word, text)
    return text
