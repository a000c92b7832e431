"""Capture at session end: the durable facts a coding session produced, picked from its transcript, each through
the write gate with the session id in metadata.

What is worth keeping: decisions, gotchas met and fixed (the cause and the fix), preferences the person stated,
procedures that worked. Two extractors:

- With an LLM configured (MEMORYHUB_LLM_BASE_URL, and MEMORYHUB_CAPTURE_USE_LLM not off) the model reads the end of
  the session (at most MEMORYHUB_CAPTURE_MAX_INPUT_CHARS) and answers JSON. Thinking is switched off and an empty or
  reasoning-only answer is an error (memoryhub/judges/llm.py); on any error the rules below run instead and
  the report says why.
- Otherwise, deterministic rules over the sentences that were said (code blocks left out): an explicit request to
  remember ("remember that ...", "note that ...", "keep in mind ..."), a preference the person stated ("I prefer
  ...", "always ... / never ..." from the person), "we decided / agreed / settled on ...", "the fix / root cause /
  problem was ...", "it turns out ...", "always / never ..." rules the assistant stated, and "to X, run Y"
  procedures. Questions, hedges ("maybe", "I think", "might"), plans ("let me", "I'll"), conditionals and
  fragments too short to stand alone are not facts and are skipped.

At most MEMORYHUB_CAPTURE_MAX_PER_SESSION facts per session (explicit requests first, then decisions, fixes,
preferences, rules, procedures). Every fact goes through `gate_write`, so secrets are refused, noise is refused and
a fact already known reinforces the memory it repeats. A dry run stores nothing and says what the gate would do.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from memoryhub.agents.transcripts import bound_turns
from memoryhub.judges.llm import LLMError, get_llm
from memoryhub.memories.traces import shown_safely
from memoryhub.writes.gate import normalised
from memoryhub.writes.gate_preview import ItemWrite, item_through_gate

logger = logging.getLogger(__name__)

LLM_CATEGORIES = ("decision", "gotcha", "preference", "skill", "fact", "environment", "reference")
MIN_WORDS = 6  # a sentence shorter than this rarely stands on its own ("The fix was that.")
MAX_SENTENCE_CHARS = 400

# --- rules --------------------------------------------------------------------------------------------------------

_CODE_BLOCK = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])|\n+")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|great|good|right|perfect|alright|got it|done|yes|yeah|sure|thanks|thank you|no|also|"
    r"good news|found it|confirmed|nice)\b[,.:!]?\s+)+",
    re.IGNORECASE,
)
_REMEMBER = re.compile(
    r"^(?:please\s+|and\s+)?(?:remember|note|keep in mind|don't forget|do not forget|for future reference|"
    r"for the record|fyi)\b(?:\s+(?:that|this))?\s*[,:]?\s*(.+)$",
    re.IGNORECASE,
)
_PREFERENCE = re.compile(
    r"^(?:i|we)\s+(?:\w+\s+)?(?:prefer|like|want|hate|dislike|don't like|do not like|can't stand)\b|"
    r"^(?:please\s+)?(?:always|never)\b|^from now on\b|^(?:i|we)\s+(?:always|never)\b",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(?:we|i)(?:'ve| have)?\s+(?:decided|agreed|chose|settled on|went with)\b|^decision:",
    re.IGNORECASE,
)
_FIX = re.compile(
    r"\bthe (?:fix|solution|root cause|cause|culprit|problem|issue|bug) (?:was|is|turned out to be)\b|"
    r"\b(?:it )?turn(?:s|ed) out (?:that )?\b|\bwhat fixed it\b|\bfixed (?:it|this) by\b",
    re.IGNORECASE,
)
_RULE = re.compile(r"^(?:always|never)\b|\b(?:must|should) (?:always|never)\b|\bnever ever\b", re.IGNORECASE)
_PROCEDURE = re.compile(
    r"^to [^,]{3,80},\s+(?:run|use|call|set|add|pass|start|export)\b|\bthe trick (?:is|was)\b|"
    r"\bwhat worked (?:is|was)\b",
    re.IGNORECASE,
)
_NOT_A_FACT = re.compile(
    # hedges and questions
    r"\b(?:maybe|perhaps|might|i think|i guess|probably|not sure|seems?|seemed|appears? to|shall i|should we|"
    r"could you|would you|can you|"
    r"do you want|we could|if you|if we|unless we|whether|"
    # plans and the conversation itself, true only today
    r"let me|let's|let us|i'll|i will|later|tomorrow|next (?:week|sprint|time)|this week|for now|sorry|"
    r"(?:my|your) (?:previous|last) (?:answer|message|reply)|this approach|that approach|the other one|"
    # requests to the assistant: a task for now, not a preference
    r"(?:want|like|need) you to|(?:want|like) to (?:know|see|try|check)|"
    # pointers into the conversation: the sentence does not stand on its own
    r"this one|that one|the same (?:pattern|thing|issue|problem)|as above|as i said|"
    # idioms that start like rules
    r"never mind|nevermind|always (?:happy|glad|a pleasure)|no worries|"
    r"turn(?:s|ed) out (?:fine|well|ok|okay|great|alright|all right))\b",
    re.IGNORECASE,
)

# Lower ranks are kept first when a session yields more than the cap.
RULES: list[tuple[str, str, str, re.Pattern[str]]] = [
    # (name, who said it: user | assistant | any, category, pattern)
    ("remember", "user", "", _REMEMBER),
    ("decision", "any", "decision", _DECISION),
    ("fix", "any", "gotcha", _FIX),
    ("preference", "user", "preference", _PREFERENCE),
    ("rule", "assistant", "", _RULE),
    ("procedure", "any", "skill", _PROCEDURE),
]


@dataclass
class Candidate:
    content: str
    category: str
    rule: str  # which rule picked it, or "llm"


@dataclass(frozen=True)
class CapturedItem(ItemWrite):
    """What the gate decided for one picked fact."""

    candidate: Candidate = field(kw_only=True)

    def as_dict(self) -> dict[str, Any]:
        shown = shown_safely(self.candidate.content)
        return {"content": shown, "category": self.candidate.category, "rule": self.candidate.rule} | super().as_dict()


@dataclass
class CaptureReport:
    extractor: str
    dry_run: bool
    items: list[CapturedItem] = field(default_factory=list)
    note: str = ""

    @property
    def counts(self) -> dict[str, int]:
        return {o: sum(1 for i in self.items if i.outcome == o) for o in ("created", "merged", "duplicate", "rejected")}


def sentences(text: str) -> list[str]:
    """The said sentences of a turn: code blocks left out, list marks and leading filler words dropped."""
    text = _CODE_BLOCK.sub("\n", text)
    found = []
    for piece in _SENTENCE_END.split(text):
        sentence = _FILLER.sub("", _LIST_MARK.sub("", piece.strip()))
        sentence = re.sub(r"(\*\*|__)(.+?)\1", r"\2", sentence).strip()
        if sentence:
            found.append(sentence)
    return found


def _as_fact(sentence: str) -> str:
    sentence = sentence.strip().rstrip(":;,")
    if sentence and sentence[0].islower():
        sentence = sentence[0].upper() + sentence[1:]
    return sentence if sentence.endswith((".", "!", ")", "`")) else sentence + "."


def rule_candidates(turns: list[dict[str, str]]) -> list[Candidate]:
    found: list[tuple[int, int, Candidate]] = []
    seen: set[str] = set()
    for turn_index, turn in enumerate(turns):
        role = turn.get("role")
        for sentence in sentences(turn.get("text") or ""):
            # A question asks, an exclamation chats ("Always a pleasure!"): neither states a fact.
            if sentence.endswith(("?", "!")) or len(sentence) > MAX_SENTENCE_CHARS or "`" * 3 in sentence:
                continue
            for rank, (name, speaker, category, pattern) in enumerate(RULES):
                if speaker != "any" and speaker != role:
                    continue
                match = pattern.search(sentence)
                if not match:
                    continue
                text = match.group(1) if name == "remember" else sentence
                if name == "remember" and text.lower().startswith("to "):
                    break  # "remember to push" asks for an action; it states no fact
                if _NOT_A_FACT.search(text) or len(text.split()) < MIN_WORDS:
                    break  # the sentence is not a fact; a later rule must not pick it either
                fact = _as_fact(text)
                key = normalised(fact)
                if key not in seen:
                    seen.add(key)
                    found.append((rank, turn_index, Candidate(fact, category, name)))
                break
    return [c for _, _, c in sorted(found, key=lambda f: (f[0], f[1]))]


# --- the LLM ------------------------------------------------------------------------------------------------------

PROMPT = """You read the transcript of a coding session between a person (USER) and an AI coding assistant \
(ASSISTANT) and pick out what is worth remembering in later sessions of the same project:
- decisions that were made (and why, in a few words);
- gotchas met and fixed: the cause and the fix;
- preferences the person stated about how to work;
- procedures that worked (the exact command or steps).
Each memory is ONE self-contained sentence that will still be true and useful next month, without the transcript.
Leave out: what was done in this session (no "we updated X today"), plans, questions, guesses, anything already
obvious from the code, and secrets (passwords, tokens, keys: never copy them). At most {cap} memories; fewer is
better than weak ones; none is a fine answer.
Answer one JSON object: {{"memories": [{{"content": "...", "category": "decision|gotcha|preference|skill|fact"}}]}}"""


def transcript_text(turns: list[dict[str, str]], max_chars: int) -> str:
    lines = [f"{t['role'].upper()}: {t['text']}" for t in bound_turns(turns, max_chars)]
    return "\n\n".join(lines)[-max_chars:]


def llm_candidates(turns: list[dict[str, str]], client, *, cap: int, max_chars: int) -> list[Candidate]:
    answer = client.complete_json([
        {"role": "system", "content": PROMPT.format(cap=cap)},
        {"role": "user", "content": transcript_text(turns, max_chars)},
    ])  # fmt: skip
    memories = answer.get("memories")
    if not isinstance(memories, list):
        raise LLMError("the LLM's answer has no memories list")
    found = []
    for entry in memories:
        content = entry.get("content") if isinstance(entry, dict) else entry
        if not isinstance(content, str) or not content.strip():
            continue
        category = entry.get("category") if isinstance(entry, dict) else ""
        found.append(Candidate(content.strip(), category if category in LLM_CATEGORIES else "", "llm"))
    return found


# --- the session --------------------------------------------------------------------------------------------------


def extract(turns: list[dict[str, str]]) -> tuple[list[Candidate], str, str]:
    """(candidates, extractor name, a note when the LLM failed and the rules ran instead)."""
    cap = settings.MEMORYHUB_CAPTURE_MAX_PER_SESSION
    client = get_llm() if settings.MEMORYHUB_CAPTURE_USE_LLM else None
    if client is not None:
        try:
            found = llm_candidates(turns, client, cap=cap, max_chars=settings.MEMORYHUB_CAPTURE_MAX_INPUT_CHARS)
            return found[:cap], client.name, ""
        except LLMError as exc:
            logger.warning("session capture: the LLM failed, the rules run instead: %s", exc)
            return rule_candidates(turns)[:cap], "rules", f"the LLM failed ({exc}); the rules ran instead"
    return rule_candidates(turns)[:cap], "rules", ""


def capture_session(
    *, turns: list[dict[str, str]], project: str | None, session_id: str, source: str, dry_run: bool = False,
    trusted: bool = True,
) -> CaptureReport:  # fmt: skip
    """Pick the session's durable facts and send each through the gate (or say what the gate would do)."""
    candidates, extractor, note = extract(turns)
    report = CaptureReport(extractor=extractor, dry_run=dry_run, note=note)
    seen: set[str] = set()
    for candidate in candidates:
        metadata = {"via": "session capture", "extractor": extractor if extractor != "rules" else
                    f"rules:{candidate.rule}"}  # fmt: skip
        if session_id:
            metadata["session_id"] = session_id
        done = item_through_gate(dry_run=dry_run, seen=seen, content=candidate.content, project=project,
                                 category=candidate.category, metadata=metadata, source=source,
                                 trusted=trusted)  # fmt: skip
        report.items.append(CapturedItem(**vars(done), candidate=candidate))
    return report
