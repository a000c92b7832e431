"""Guessing a memory's category and tier from its text when the writer gives none: keyword scores, and empty
when unsure (a wrong category is worse than none)."""

from __future__ import annotations

import re

from django.conf import settings

CATEGORY_KEYWORDS: dict[str, list[tuple[str, float]]] = {
    "preference": [
        (r"\bprefers?\b", 2),
        (r"\b(?:likes?|dislikes?|hates?|loves?)\b", 1.5),
        (r"\bwants?\b", 1),
        (r"\b(?:always|never) (?:use|write|run|do)\b", 1),
        (r"\b(?:i|user|the user|they) (?:like|want)\b", 1),
        (r"\bstyle\b", 0.5),
        (r"\brather than\b", 0.5),
    ],
    "decision": [
        (r"\bdecided\b|\bdecision\b", 2.5),
        (r"\b(?:we|team) (?:chose|picked|agreed|settled)\b", 2.5),
        (r"\bchose\b|\bchosen\b|\bagreed\b", 1.5),
        (r"\bgoing with\b|\bswitched to\b|\bmoved to\b", 1.5),
        (r"\binstead of\b", 1),
        (r"\bbecause\b", 0.5),
        (r"\bwe (?:will|use)\b", 0.5),
    ],
    "gotcha": [
        (r"\bgotcha\b|\bpitfall\b|\bcaveat\b", 2.5),
        (r"\bbeware\b|\bcareful\b|\bwatch out\b", 2),
        (r"\b(?:fails?|breaks?|crash(?:es)?|hangs?) (?:when|if|on|with)\b", 2),
        (r"\bsilently\b", 1.5),
        (r"\b(?:does not|doesn't|won't|cannot|can't) work\b", 1.5),
        (r"\bworkaround\b|\bbug\b", 1.5),
        (r"\bmust not\b|\bnever\b|\bdon't\b|\bdo not\b", 1),
        (r"\bunless\b|\bonly if\b", 0.5),
    ],
    "skill": [
        (r"\bhow to\b", 2),
        (r"^to \w+.*?,\s*(?:run|use|call|do|type)\b", 2.5),
        (r"\b(?:run|execute) `", 1.5),
        (r"\bsteps?\b", 1),
        (r"\bfirst\b.*\bthen\b", 1.5),
        (r"\bcommand\b", 1),
        (r"\busage:\b", 1.5),
    ],
    "reference": [
        (r"https?://", 2.5),
        (r"\bdocs?\b|\bdocumentation\b|\bwiki\b", 1.5),
        (r"\bsee\b", 0.5),
        (r"\blink\b|\burl\b|\bspec\b|\brfc\s?\d+", 1),
        (r"\bdashboard\b|\brunbook\b", 0.5),
    ],
    "person": [
        (r"\b(?:his|her) name\b|\bname is\b", 2),
        (r"\bemail\b|@\w+\.\w+", 1),
        (r"\b(?:is|as) (?:the|our) (?:maintainer|owner|lead|manager|reviewer|designer|cto|ceo)\b", 2.5),
        (r"\bcolleague\b|\bteammate\b|\bworks (?:on|at|in)\b|\breports to\b", 1.5),
        (r"\b(?:he|she)\b", 1),
    ],
    "environment": [
        (r"\b(?:ubuntu|debian|fedora|arch linux|macos|windows|wsl\d?)\b", 2),
        (r"\b(?:zsh|bash|fish|powershell|vscode|vs code|neovim|vim|emacs|jetbrains|pycharm|iterm)\b", 1.5),
        (r"\b(?:machine|laptop|workstation|gpu|cpu|ram|shell|terminal|editor|installed)\b", 1),
        (r"\b(?:python|node|java|go|rust) \d+(?:\.\d+)*\b", 1),
        (r"\benvironment\b|\bhomebrew\b|\bapt\b", 1),
    ],
    "project": [
        (r"\b(?:the |this )?(?:project|repo|repository|codebase|monorepo)\b", 1.5),
        (r"\b(?:module|package|service|endpoint|api|schema|migration|deploy(?:s|ed|ment)?|ci|pipeline)\b", 1),
        (r"\b(?:lives in|is in|located in|under) `?[\w./-]+/", 1.5),
        (r"\buses\b|\bruns on\b", 0.5),
    ],
    "fact": [(r"\bis\b|\bare\b|\bhas\b|\bhave\b", 0.5), (r"\b\d+(?:\.\d+)?\s?(?:ms|s|mb|gb|kb|%)\b", 1)],
}
_COMPILED = {c: [(re.compile(p, re.IGNORECASE), w) for p, w in pairs] for c, pairs in CATEGORY_KEYWORDS.items()}
_PROCEDURAL = re.compile(
    r"^to \w+.*?,|\bhow to\b|\b(?:run|execute|type|call) `|\bfirst\b.*\bthen\b|\bsteps?\b|\busage:", re.IGNORECASE
)
_EPISODIC = re.compile(
    r"\b(?:yesterday|last (?:week|month|night|year)|on (?:monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday)|on \d{4}-\d{2}-\d{2}|in (?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december) \d{4}|happened|incident|outage|was (?:deployed|released|migrated|rolled back))\b",
    re.IGNORECASE,
)


def category_scores(text: str) -> dict[str, float]:
    return {c: sum(w for p, w in pairs if p.search(text)) for c, pairs in _COMPILED.items()}


def guess_category(text: str) -> str:
    """The best-scoring category when it is clearly ahead; '' when unsure."""
    ranked = sorted(category_scores(text).items(), key=lambda kv: -kv[1])
    (best, top), (_, second) = ranked[0], ranked[1]
    if top >= settings.MEMORYHUB_GATE_CATEGORY_MIN_SCORE and top - second >= 1.0:
        return best
    return ""


def guess_tier(text: str, category: str = "") -> str:
    if category == "skill" or _PROCEDURAL.search(text):
        return "procedural"
    if _EPISODIC.search(text):
        return "episodic"
    if category:
        return "semantic"
    return ""
