"""Agent chatter the sentence rules of `noise` let through: what a coding agent says in its own turns.

Measured on bench/chatter_set.py (`python -m bench chatter`), written apart from the rules' own labelled set, and
designed further on bench/data/dev9_chatter.json and dev10_chatter.json (300 chatter and 300 facts each, written
blind in other voices, the second beyond software too: an assistant's errands, bookings, read-outs, other languages):
- code pasted as a reply (a fenced block, a diff, lines of code under a short "Here's the updated function:");
- status read-outs: tallies (`step 4 of 7`, `7/10 done`), outcome counts (`312 passed, 4 skipped`), a branch ahead
  of or behind another, a build's number and colour, deltas (`+0.4%`), check marks, `so far`, `in progress`;
- narration behind a discourse marker ("Now I'm going to...", "Next up: wiring...", "Excellent, the benchmark
  finished"), tool announcements ("Reading src/app.ts to get context"), work reported done ("Applied the patch",
  "the fix is pushed to your branch"), and the pleasantries that close a turn ("Feel free to ask").

A text that states something durable (`noise._DURABLE_SIGNAL`: because, never, must, prefer...) is judged by the
sentence rules alone, so "Coverage must stay above 85%" is kept; only pasted code is refused whatever it says.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memoryhub.writes.vocabulary import CHANGE_VERB, DONE_VERB, FINITE_VERB, PERSONAL_GOAL

_STATUS = "it is a status read-out or progress tally, not a fact; store what you learned that will still be true later"
_CODE = "it is code pasted as a reply, not a fact; store what the code does or decides, in a sentence"
_NARRATION = (
    "it narrates the session; store the lasting fact, decision or gotcha instead (true on its own, for any agent "
    "reading it later)"
)
_CLOSING = "it is an acknowledgement or a closing remark, not a fact"

# --- pasted code ----------------------------------------------------------------------------------------------

_CODE_LINE = re.compile(
    r"^\s*(?:```|@@ |def |class |return\b|elif |else:|try:|except\b|import |from \S+ import |const |let |var |"
    r"function\b|export |print\(|raise |await |async |@\w+|"
    r"(?i:select|insert into|update \w+ set|delete from|alter table)\s|"
    r"(?:if|for|while|with)\b.*:\s*$)|"
    r"^\s{4,}\S|^\t+\S|"  # indented
    r"^\s*[\w.\[\]'\"-]+\s*(?:[+\-*/]?=|=>)\s*[^=\s].*[^.]$|"  # an assignment
    r"^\s*[\w.-]+:\s*$|^\s*\[[\w.-]+\]\s*$|^(?:---|\+\+\+) (?:a/|b/|/dev/null)|"  # a YAML block's key, a TOML table
    r"^\s*[\w.]+\(.*\)\s*;?\s*$|"  # a bare call
    r"^(?=.*[()=\[\]<>'\"]).*[;{}]\s*$|^\s*[{}]\s*$|"  # a statement's end, not a sentence ending in ";"
    r"^\s*\|.*\|\s*$|^\s*\{\s*\".*\}\s*$|"  # a markdown table's row, a JSON object on one line
    # A shell command on its own, with no sentence around it.
    r"^\s*(?:\$\s*)?(?:git|docker|docker-compose|npm|npx|pnpm|yarn|pip|pip3|python3?|pytest|make|kubectl|helm|"
    r"terraform|curl|wget|cd|ls|cat|grep|sed|awk|rm|mv|cp|mkdir|chmod|ssh|scp|cargo|go|ruff|mypy|uv|poetry|brew|"
    r"apt|apt-get|sudo|gh|aws|gcloud|az|mvn|gradle|\./gradlew|dotnet|node|deno|bun|bundle|rails|rake|composer|"
    r"tsc|eslint|prettier|jest|vitest|black|tox|nox|just)\s+[^\s.][^\n]*[^.:\n]$|"
    r"^\s*[a-z][\w.-]*(?:\s+\S+)*?\s+--?[a-zA-Z][\w-]*(?:[\s=]\S+)*\s*$|"  # any command with an option flag
    r"^\s*</?[A-Za-z][\w.-]*(?:\s[^>]*)?/?>|"  # markup
    r"^\s+[a-z_][\w.-]*:\s+[^\s.][^.]*[^.]$"  # a nested YAML key (`key: text` alone is prose)
)
# A diff's line and a YAML key in a list read as code among code: a list of "- " notes with nothing nested and no
# "+" line is a person's notes ("- window: Tue/Thu 10:00-12:00", "- Mia (8): allergic to kiwi").
_LISTED = re.compile(
    r"^[+-](?![+-])\s*\S.*[^.]$|"  # a diff line (not a sentence in a bullet)
    r"^\s*- [a-z_][\w.-]*:\s+[^\s.][^.]*[^.]$"  # a YAML key in a list
)
_NOTE = re.compile(r"^[-*\u2022] \S")
# A note under a label of two or more words ("return window: 30 days", "ssh bastion: bastion.prod.acme.io, port
# 2222") is a fact, whatever its first word is in some language (`return`, `ssh`); a YAML key has no space.
_LABELLED = re.compile(r"^\s*[A-Za-z][A-Za-z]* [A-Za-z][A-Za-z ]{0,30}:\s+[^\s=(){};]")
_INTRO = re.compile(r"^[^\n]{0,60}:\s*$")  # "Here's the updated function:", "Updated code:"


# A line that reads as a sentence is not code, whatever it starts with: "helm caches the locale column, so restart
# it", "api_key = os.environ[...] is how the client reads it".
_PROSE = re.compile(
    r"(?=.*\b(?i:is|are|was|were|the|how|what|which|this|it|its|so|because|after|before|when)\b)"
    r".*\b[A-Za-z][a-z]+(?: [a-z]{2,}){2,}\b"
)


_YAML_BLOCK = re.compile(r"^[\w.-]+:\s*$")
_YAML_PAIR = re.compile(r"^\s*[\w.-]+:\s+\S[^.]*$")
_FENCED = re.compile(r"^\s*```[^\n]*\n[\s\S]*```\s*$")


def _pasted_code(text: str) -> bool:
    if _FENCED.match(text):  # a fenced block, whatever it holds
        return True
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and _INTRO.match(lines[0]) and len(lines) > 1:
        lines = lines[1:]
    # Beside a YAML block ("metadata:" over an indented line), "kind: Deployment" and "  replicas: 2" are YAML too.
    yaml = any(_YAML_BLOCK.match(a) and b[:1].isspace() for a, b in zip(lines, lines[1:], strict=False))
    notes = all(_NOTE.match(line) for line in lines)
    return bool(lines) and all(
        (_CODE_LINE.search(line) or (not notes and _LISTED.search(line)) or (yaml and _YAML_PAIR.match(line)))
        and not _PROSE.match(line)
        and not _LABELLED.match(line)
        for line in lines
    )


# --- status read-outs -----------------------------------------------------------------------------------------

_PROGRESS_WORD = (
    r"(?:steps?|tasks?|jobs?|tests?|items?|phases?|subtasks?|checks?|retry|retries|attempts?|done|complete[d]?|"
    r"finished|passed|passing|fixed|remaining|checked|green|failing|failed|successful|succeeded|ok|ready)"
)
_LISTING_TOOL = r"(?:pip (?:list|freeze)|npm ls|docker ps|kubectl get \S+|git status)"
_READOUT = re.compile(
    # Tallies: "step 4 of 7", "7/10 tasks done", "3 of the 8 failing tests", "(2/4)".
    r"\b\d+\s*(?:/|of|out of)\s*(?:the\s+)?\d+\b[^.]{0,40}?\b" + _PROGRESS_WORD + r"\b|"
    r"\b" + _PROGRESS_WORD + r"\b[^.]{0,30}?\(?\b\d+\s*(?:/|of)\s*\d+\b|"
    # Outcome counts: "312 passed", "0 errors and 3 warnings", "18 queued, 3 running".
    r"\b\d+\s+(?:passed|failed|skipped|queued|running|completed|errors?|warnings?|xfailed|succeeded|total|problems?|"
    r"critical|high)\b[^.]{0,40}?\b\d+\s+(?:passed|failed|skipped|queued|running|completed|errors?|warnings?|xfailed|"
    r"succeeded|total|problems?|high|medium|low)\b|"
    # A branch's position: "ahead of 'origin/main' by 3 commits", "5 commits behind main".
    r"\b(?:ahead of|behind)\b[^.\n]{0,40}?\bby \d+ commits?\b|\b\d+ commits? (?:ahead|behind)\b|"
    # A tool's tally, a merge in progress, a run's figures against the last one, a step's outcome and duration.
    r"\b\d+ (?:errors?|warnings?|issues?) in \d+ files?\b|\bunmerged\b|\b(?:than|since) the (?:last|previous) run\b|"
    r"\bin the (?:last|past) (?:hour|minute|few (?:minutes|hours)|\d+ (?:minutes|hours|seconds))\b|"
    r":\s*(?:succeeded|failed|passed|ok)\b|\btook \d+\s?(?:h|m|min|s|ms)\b|"
    r"\b(?:finished|completed)\b[^.]{0,30}\bafter \d+\s?(?:h|m|min|s)\b|\bis at \d+(?:\.\d+)?\s*%|"
    r"(?<!['\"\u2018\u201c])\bwaiting (?:for|on)\b|\bpropagating\b|\b\w+ing (?:it|them|this|that) now\b|"
    r"\bwill take (?:a while|some time|a minute|a bit)\b|"
    # A build's number and result, a delta, a live trend.
    r"\b(?:build|run|job|pipeline|workflow|deploy(?:ment)?)\s+#\d+\b|\([+\-\u2212]\d[\d.,]*\s*%?\)|"
    r"\b(?:and|now|still) (?:falling|rising|climbing|dropping|growing|holding)\b|\bstable for \d+|"
    r"\bso far\W*$|\bin progress\b|\bresults? (?:below|above)\b|"
    r"^\W*(?:iteration|attempt|round|retry)\s*#?\d+\b|^\W*\[\d+/\d+\]|"
    # A metric moving or read right now: "is down to 0.2%", "up from 610", "right now: 182 ms (was 240 ms)".
    r"\b(?:is|are|went|dropped|fell|rose|climbed|jumped)\s+(?:(?:down|up)\s+)?to\s+\d|\b(?:down|up) from \d|"
    r"\bright now\b|\(was \d|(?:^|[,;]\s*)(?:down|up) to \d|^\W*all \d+\b[^.]*\b\w+ed\W*$|"
    r"\b(?:usage|utili[sz]ation|load|cpu|memory|disk)\s+(?:is\s+)?(?:at|is)\s+\d+(?:\.\d+)?\s*%|"
    r"\b(?:this|it) (?:might|may|will|could) take (?:a|some) (?:minute|moment|while|bit)\b|"
    r"\b(?:about |almost |nearly )?halfway (?:there|done|through)\b|"
    r"\b(?:almost|nearly) (?:there|done|finished)\b|"
    r"^\W*(?:step|phase)\s*\d+\b[^.]{0,30}?\b(?:done|complete[d]?|finished|started|starting|underway)\b|"
    r"\b(?:all|everything)(?:'s| is)? green\b|"
    # Counts left, labels of a report, a numbered item's event, a value now and before, a rollout's moment.
    r"\b\d+\b[^.]*\b(?:left|remaining|to go|outstanding)\W*$|^\W*(?:progress|status|update)(?: so far| update| report)?"
    r"\s*:|^\W*(?:the )?[a-z]+ #?\d+ (?:applied|merged|deployed|released|shipped|reverted|closed|opened)\b|"
    r"(?:,|\()\s*was \d|\bis \d[\d.,]*\s*\w*\s+now\b|\b(?:is|are) (?:now )?live\b.*\bnow\W*$|\bis now live\b|"
    r"^\W*(?:the )?(?:branch|pr|pull request|ticket|issue|job|build|migration|commit|change|fix|patch|container|server|"
    r"pod|cache)\s+(?:deleted|closed|merged|created|opened|reverted|restarted|applied|deployed|fixed|resolved|"
    r"removed)\b|"
    # Live results: "the tests are passing now", a run's duration, tool summaries ("3 files changed").
    r"\b(?:checks|tests|jobs|builds?|ci|pipeline)\s+(?:are|is)\s+(?:now\s+|still\s+)?(?:green|passing|red|failing)\b|"
    r"\b(?:finished|completed|took|ran|passed|failed)\b[^.]{0,20}?\bin \d+(?:m\s?\d+s|(?:\.\d+)?\s?(?:s|ms|min|"
    r"minutes|seconds))\b|\bwith \d+ (?:failures|errors|warnings)\b|\b\d+ files? changed\b|\binsertions?\(\+\)|"
    r"\bno issues found\b|"
    # How far along: "About 60% through the migration script", "90% done with the rename".
    r"\b\d+(?:\.\d+)?\s*% (?:done|through|complete|finished|of the way)\b|(?<!no )(?-i:\bETA\b)|"
    r"^\W*(?:summary|recap|wrap-up)\s*:|^\W*(?:done with|on to|moving on to)\b|"
    r"\b(?:tool|query|search|command|api|script|call|function) returned\b|^\W*(?:the )?(?:top|first) result\b|"
    r"\b(?:output|results?|log) (?:was )?truncated\b|^\W*(?:last|next|final|first) step\s*:|"
    r"^\W*(?:a )?(?:quick |short )?(?:recap|summary) of (?:this|the|our|today'?s)\b|"
    r"\bon the last (?:\w+ )?attempts?\b|\.\.\.\s*\d+(?:\.\d+)?\s*%|^\W*quote [a-z]\s*:|"
    # A search's tally, time the session spent, a reading labelled as current.
    r"^\W*found \d+ (?:matches|results|hits|occurrences|files|instances|references|usages|call ?sites|places|"
    r"options|flights|hotels|candidates|listings|alerts|tickets|emails|duplicates)\b|\bso far\s*:|"
    r"\bstep \d+k? (?:of|/) \d+k?\b|"
    r"^\W*(?:explain(?: analyze)?|the (?:profiler|trace|flame ?graph|dashboard|monitor|graph)) shows\b|"
    r"^\W*spent (?:\d+|a few|ten|fifteen|twenty|thirty|forty|an|half an) (?:minutes|mins|hours|seconds|hour)\b|"
    r"^\W*current [\w\s-]{0,40}:\s*[\d$\u20ac\u00a3]|"
    r"^\W*current \w+ (?:usage|utili[sz]ation|load|count|balance|price|rate)\b[^.]{0,30}\bis\s+[\d$\u20ac\u00a3]|"
    # A count by its label, a plan's tally, an epoch or a page of many, a status code alone, an output's label.
    r"^\W*(?:word count|row counts?|line count|count|total|tally|score)\b[^:\n]{0,20}:\s*[\d$\u20ac\u00a3]|"
    r"\b\d+ to (?:add|change|destroy)\b|^\W*epoch \d+\s*/\s*\d+|"
    r"\b(?:page|file|item|row|chapter|slide|record) \d+ (?:of|/) \d+\b|"
    r"^\W*\d{3} (?-i:[A-Z][a-z]+)(?: (?-i:[A-Z][a-z]+))*(?: again)?\W*(?:hmm\W*)?$|"
    r"^\W*(?:[\w-]+ ){0,2}output\s*:|\b(?:done|finished) in \d+(?:\.\d+)?\s?(?:s|ms|min|m)\b|"
    r"\b(?:confirmation|approval|review|response|reply|payment) pending\b|^\W*exit code \d+|"
    r"[+]\d+ [\u2212-]\d+ across \d+ files?\b|"
    # What a tool just said: "git status shows 4 modified files", "npm audit just printed: 14 vulnerabilities".
    # A listing tool says what it lists ("pip list shows pandas 2.1.4"); any tool, what it just said.
    r"^\W*" + _LISTING_TOOL + r"\b[^.]{0,20}\b(?:shows|lists)\b|"
    r"^\W*(?:" + _LISTING_TOOL + r"|git (?:log|diff)|npm (?:audit|outdated)|pip check|df -h|du -sh|(?:the )?linter)\b"
    r"[^.]{0,20}\b(?:showed|said|printed|reported|listed|returned|is complaining|(?:shows|says) \d+)\b",
    re.IGNORECASE | re.MULTILINE,
)
# A sentence that points at the conversation it is said in ("this time", "during this run", "the demo you asked for",
# "the prints I added earlier", "on the first try"): true of this session, not of the project.
_THIS_SESSION = re.compile(
    r"\b(?:this|the current) (?:(?:test|dry|trial) )?(?:time|run|session|turn|attempt|pass|iteration|conversation|"
    r"chat)\b|"
    r"\bon the (?:first|second|third|next|last) (?:try|attempt|go|run)\b|"
    r"\bmy (?:previous|last|earlier) (?:answer|reply|message|response|suggestion)\b|"
    r"\b(?:you|the user) asked (?:for|me)\b|\b(?:as|like) (?:you )?(?:asked|requested)\b|"
    # What was said earlier in the conversation: "the 5 duplicates we talked about", "You mentioned you wanted...".
    r"\b(?:we|you and i) (?:talked|spoke) about\W*$|\byou mentioned\b|\bon this branch\b|\bin the chat above\b|"
    r"\b(?:details|see) above\W*$|^\W*here are (?:the )?\d+ [\w -]+ (?:i|we) found\b|"
    r"^\W*(?:refund|payment|order|request|ticket)s? (?:processed|submitted|placed|cancel+ed|closed)\b|"
    # A customer's words passed on from a ticket or a chat: "customer says the export button does nothing".
    # ("When a customer says 'the app is blank', ..." is a rule for any such report: it opens the sentence or a field.)
    r"(?:^|[:|\u2014]\s*)(?:the )?(?:customer|caller|client)(?: (?:in|on) (?:the )?chat)? "
    r"(?:says|reports|reported|is asking|asked|just said|wants)\b|\b(?:that|my) last message\b|"
    r"\b(?:i|we) (?:\w+ed|wrote|made|did|said|mentioned|saw) (?:\w+ )?earlier\b|\byour (?:side|end|questions?)\b",
    re.IGNORECASE,
)
_MARKS = re.compile(r"[\u2713\u2714\u2705\u274c\u2717\u23f3\u2b1c\u2610\u2611]|\[[x ]\]", re.IGNORECASE)

# --- narration ------------------------------------------------------------------------------------------------

# What starts a turn before the narration itself: "Now", "Next up:", "First,", "Okay,", "Excellent,".
_MARKER = re.compile(
    r"^\W*(?:(?:now|next(?: up)?|first(?:ly)?|then|finally|okay|ok|alright|all right|great|good|perfect|yep|yes|yeah|"
    r"excellent|awesome|nice|done|so|right|cool|sure|heads up|quick update|update|status update|fyi|btw|"
    r"good news|bad news|still|hm+|huh|oh)\b\s*[,:!.\-\u2013\u2014]*\s*)+",
    re.IGNORECASE,
)
# A sentence led by an -ing word and no verb of its own: "Reading src/app.ts to get context", "Calling the tool".
# The -ing word is a verb with its object ("Calling the tool", "Reading src/app.ts", "Wrapping up"), not a noun as the
# subject ("Staging deploys from main", "Logging: use structlog").
_ING_LEAD = re.compile(
    r"^\W*(?!(?:starting|beginning|effective) (?:this|next|from|in|on (?:mon|tue|wed|thu|fri|sat|sun|the \d|\d))\b)"
    r"(?:re-)?(?!(?:string|thing|nothing|something|everything|anything|morning|evening|spring|ring|king|ceiling|during|"
    r"according|regarding|including|depending|concerning|following|assuming|notwithstanding|"
    r"ping|sing|bring|wing|swing)\b)(?!(?:going|sticking|staying|settling|standardi[sz]ing) (?:with|on)\b)[a-z]+ing"
    r"(?:\s+(?:the|a|an|this|that|these|those|my|your|our|its|some|all|any|every|each|for|through|up|out|over|on|into|"
    r"to|with|it|them|back|across|around|in|from|off|onto|step|phase|part|task|round|stage|work|review)\b|"
    r"\s+(?:(?-i:[A-Z]{2,})\b|\S*[/._]\S*))",
    re.IGNORECASE,
)
# "to" opens a clause of purpose ("Reading src/app.ts to get context"), not a place the -ing word goes ("Uploading to
# the staging bucket needs the uploader profile", "Merging to main with a red job is blocked").
_SUBORDINATE = re.compile(
    r"\b(?:to(?!\s+(?:the|a|an|main|master|trunk|prod|production|staging|their|its|our|your|my|this|that|these|"
    r"those)\b)|where|which|that|so|because|when|if|since|until|while|and see)\b|[,;:]",
    re.IGNORECASE,
)
# Work reported done with no subject (vocabulary.DONE_VERB) is narration whatever it acted on ("Applied the patch");
# a change to how things are (vocabulary.CHANGE_VERB: "Switched on MFA enforcement for the approver role", "Started
# sampling a tenth of the traces") is a fact worth keeping, the kind a newer fact supersedes an older one by; it is
# narration only when what it changed is the session's own work ("Moved the helper to utils", "Renamed the
# variable"), it goes on to another step, or it is too short to say what changed.
SESSION_WORK_OBJECT = re.compile(
    r"\b(?:tests?|unit tests|specs?|branch|pr|pull request|commits?|tickets?|helpers?|helper functions?|todos?|"
    r"comments?|print statements?|debug(?:ging)? (?:logs?|output|statements?)|changelog entry|notes?|variables?|"
    r"imports?|typos?|the (?:fix|patch|changes|diff|code|function|method|test file)|debug prints?|"
    r"in \d+ (?:places|files|spots|call ?sites|locations)|"
    r"(?:in|to|from) [\w./-]*\w\.(?:py|js|ts|tsx|jsx|rs|go|java|kt|rb|php|c|cpp|h|cs|swift|vue|css|scss|html)\b|"
    r"the (?:file|script|module|folder|directory) [\w./-]+|"
    r"working on|looking (?:at|into)|and (?:then )?(?:pushed|merged|ran|reviewed|fixed|committed|re-?ran|restarted|"
    r"re-?generated|re-?installed|rebuilt|re-?deployed)|"
    r"then)\b",
    re.IGNORECASE,
)


def session_step(sentence: str) -> bool:
    """A subjectless report of a change that is the session's own step, not a change to how things are."""
    if DONE_VERB.match(sentence):
        return True
    if not CHANGE_VERB.match(sentence):
        return False
    return bool(SESSION_WORK_OBJECT.search(sentence)) or len(sentence.split()) < 6


# The session's work reported in the passive: "The branch was rebased onto main", "Tests were added for the empty
# cart", "The PR description was updated with screenshots". How things are stays a fact: the present ("Coverage
# reports are uploaded to Codecov"), a change word ("The bastion host was removed in 2023", "Webpack was replaced by
# Vite") and a step dated or placed in a release ("The bug was fixed in v2.3.1").
_REPORTED_DONE = re.compile(
    r"^\W*(?:(?:the|your|my|all|both)?\s*(?:[\w./-]+\s+){0,4}?(?:was|were|has been|have been)\s+"
    r"(?:just\s+|now\s+|also\s+)?"
    r"(?:updated|edited|re-?generated|generated|rebased|re-?run|re-?ran|applied|pushed|committed|reviewed|tested|"
    r"fixed|sent|uploaded|drafted|resolved|reformatted|re-?tried|retriggered|squashed|amended|stashed)|"
    # "added" is a change to how things are ("iPad support was added behind a flag") but for the session's own
    # scaffolding: tests, comments, prints.
    r"(?:[\w./-]+\s+){0,2}?(?:tests?|specs?|comments?|prints?|print statements|logging|docstrings?|type hints) "
    r"(?:was|were|has been|have been) added)\b"
    r"(?![^.;]*\b(?:(?:19|20)\d\d|v?\d+\.\d+|since|because|so that|every|each|whenever|always|never|"
    r"(?:in|on|by|from) (?:january|february|march|april|may|june|july|august|september|october|november|december)"
    r")\b)",
    re.IGNORECASE,
)
# The agent in the first person about its own work, not a person about themselves ("I'm allergic to penicillin",
# "I have two daughters" are facts): "I've made the changes", "I couldn't find another caller", "I'm about to...".
# A coding agent by name, reporting its step: "Claude refactored the auth module", "Aider applied the edit".
_AGENT_NAMED = re.compile(
    r"^\W*(?:claude|copilot|cursor|aider|codex|devin|the agent|agent|the assistant)\s+(?:just |also |then )?"
    r"(?:\w+ed|ran|wrote|made|did|went|left|rewrote|built|read)\b(?!\s+(?:by|code|suggestions|changes|output)\b)",
    re.IGNORECASE,
)
_AGENT_I = re.compile(
    r"^\W*i(?:'ve| have| had)? (?:just |also |now )?(?:made the|moved (?:the|your|it|them)|added|changed|updated|fixed|"
    r"finished|implemented|"
    r"pushed|created|removed|renamed|written|wrote|ran|applied|opened|merged|tried|checked|looked|searched|"
    r"reviewed|tested|verified|confirmed|set up|cleaned|gone through|went through)\b|"
    r"^\W*i (?:couldn'?t|could not|can'?t|cannot|didn'?t|did not|wasn'?t able to) (?:find|reproduce|see|get|figure|"
    r"locate|run|tell)\b|"
    r"^\W*i(?:'m| am) (?!" + PERSONAL_GOAL + r")(?:going to|about to|now|seeing|getting|trying|looking|working on|"
    r"checking|running|still)\b|"
    r"^\W*i(?:'ll| will) (?:now|start|go|add|update|fix|run|check|look|take|write|try|implement|make|create|open|"
    r"push|leave|keep an eye)\b",
    re.IGNORECASE,
)
# "The fix is pushed to your branch", "the changes are committed": work on the person's branch, reported done.
_HANDED_OVER = re.compile(
    r"\b(?:is|are|has been|have been)\s+(?:now\s+)?(?:pushed|committed|in place|ready for (?:your )?review|"
    r"applied|done)\b(?!\s+(?:by|to|in|on|at|when|before|after|through|via|with|from|once|per)\b)|"  # passive
    r"\byour (?:branch|pr|pull request|changes|request|review)\b|\bup for review\b|"
    r"\bon my (?:end|side)\b",  # the agent's side of a check; "on my machine" is a person's fact
    re.IGNORECASE,
)
_CLOSING_WORDS = re.compile(
    r"^\W*(?:happy to help|glad (?:to help|it|that|i could)|(?:i )?hope (?:this|that|it) helps|feel free|"
    r"let me know|don'?t hesitate|no problem|you'?re welcome|anything else|is there anything|enjoy|"
    r"thanks? (?:you )?for (?:the|your)|sorry for|should be good|good catch|nice catch|good point|fair point|"
    r"you'?re (?:right|correct)|that'?s exactly what|great (?:point|catch|question)|that'?s a great|"
    r"unless you say otherwise|(?:so,? )?(?:to restate:? )?you(?:'d)? (?:want|prefer|need)\b[^.]*\bgot it\W*$|"
    r"ping me|shout if|reach out|all set|sorry about|bear with me|apologies for|"
    r"sending (?:you|it|them|this|that|over)\b|pasting (?:the|it|them|this|below)\b|"
    # Something made for the person, handed over: "Here's the draft email: ...", "Here's what the forecast says".
    r"here(?:'s| is) (?:the|your|a|my) (?:\w+ )?(?:draft|summary|list|version|rewrite|outline|table|breakdown|"
    r"comparison|options?|suggestions?|proposal|translation|snippet|output|agenda|forecast|questions|alternative|"
    r"opening|paragraph|chart|synopsis|trial balance|numbers|results|figures|plot|graph|preview|mockup|first pass|"
    r"seating|possible)\b|here(?:'s| is) what (?:the|it|this|i)\b|here are (?:the |your |some |\w+ )?"
    r"(?:questions|options|results|numbers|figures|ideas|suggestions)\b|"
    r"nothing to worry about|no need to worry|looks like|seems like|it seems|it looks like|apparently|"
    r"nothing (?:else|more) to (?:report|add)|that was my (?:mistake|bad|fault)|"
    # An offer of more work: "If you'd like, I can split this PR", "I can add tests too if that helps".
    r"if you(?:'d)? (?:like|want|prefer)\W+i (?:can|could)\b|happy to \w+|"
    r"i (?:can|could) (?:also )?[^.;]*?\b(?:if (?:you(?:'d)? (?:like|want|prefer)|that helps|needed)|"
    r"just say the word)\b|"
    r"(?-i:[Ll]et'?s (?!not\b)[a-z]))",  # "Let's not add dependencies without asking" is a rule
    re.IGNORECASE,
)
_EVENT = re.compile(
    r"\b(?:finished|passed|worked|succeeded|went through|is done|are done|came back|completed|applied cleanly|"
    r"is happy|are happy|looks good|look good|changed|moved|disappeared|went away|is gone|are gone)\b",
    re.IGNORECASE,
)


# The result of a step, reported: "Got it working!", "The linter run came back clean", "Should be good to go now".
_RESULT = re.compile(
    r"\b(?:got it working|it works|it'?s working|works now|came back (?:clean|green|empty|fine)|"
    r"looks (?:right|good|fine|correct) (?:now|to me)|looks right|good to go|that'?s (?:everything|all|it) for|"
    r"is finished|are finished|all done|we'?re done|i'?m done|the (?:tricky|hard|easy|fun|next|last|final|remaining) "
    r"(?:part|bit|piece|step)|files? (?:touched|changed|modified|edited)\b|(?:we'?re|we are|it'?s|it is|i'?m) (?:now )?"
    r"at \d|that should (?:do it|fix it|work)|should (?:work|pass) now|(?:the )?(?:right|correct|expected) "
    r"(?:payload|result|output|value|response|answer|data)s?\b|\b(?:is|are) \w+ing now\b|\blet me\b|"
    # Work handed over ("Changes pushed to feature/x").
    r"^\W*(?:the )?(?:changes?|fix(?:es)?|commits?|patch|branch|everything)\s+(?:is |are |has been |have been )?"
    r"(?:pushed|committed|merged|deployed|applied)(?:\s+(?:to|into|on)\s+\S+)?\W*$|"
    r"(?:^\W*|\b(?:and|so) )(?:everything|it|all|this|that|the (?:build|app|code|page|project|test suite|suite|tests))"
    r"\s+(?:compiles|builds|works|passes|pass|runs|renders|loads|starts)\b[^.]*\bnow\W*$)",
    re.IGNORECASE,
)
_ANNOUNCES = re.compile(r"^\W*(?:heads up|fyi|btw)\b", re.IGNORECASE)  # news follows, not a step
_CONDITION = re.compile(r"\b(?:if|unless|as long as)\b", re.IGNORECASE)
# The first person after a clause ("..., so I'm calling it fixed"), judged as the noise rules judge a sentence that
# opens with it: "...; I'm on the acme tailnet" is a person's fact, "..., and I've pushed it" narrates.
_FIRST_PERSON_CLAUSE = re.compile(r"[,;]\s*(?:so |and |but |then )?(\bi(?:'|\s)[^,;]*)", re.IGNORECASE)
# A reading with no verb of its own: "Memory: 1.2 GB used of 4 GB", "Uptime 14d 3h, load average 0.42".
_NUMBER = re.compile(r"(?<![\w.])\d[\d.,]*")
_LIVE = re.compile(
    r"\b(?:now|currently|up from|down from|used|free|pending|applied|open|closed|awaiting|left|remaining|ready|"
    r"queued|running|done|uptime|load average|latency|throughput|error rate|cpu|memory|p\d\d)\b",
    re.IGNORECASE,
)
_WEEKDAY = re.compile(r"\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?s?\b|\bweekdays?\b", re.IGNORECASE)
# N of M with work done: "Tackled 4 out of 5 review comments", "21 of 34 points closed".
_TALLY_DONE = re.compile(r"\b\d+\s+(?:out\s+)?of\s+\d+\b[^.]*\b\w+ed\b|\b\w+ed\b[^.]*\b\d+\s+(?:out\s+)?of\s+\d+\b")


def _reading(sentence: str) -> bool:
    """A short line of numbers with a live word and no verb: a reading, not a sentence about how things are. Days of
    the week make it a schedule ("Store hours: Tue-Sat 10:00-18:00, closed Sunday and Monday")."""
    short = len(sentence.split()) <= 10
    return (
        short
        and len(_NUMBER.findall(sentence)) >= 2
        and bool(_LIVE.search(sentence))
        and not FINITE_VERB.search(sentence)
        and not _WEEKDAY.search(sentence)
    )


def _sentence_chatter(sentence: str, judge: Callable[[str], str | None]) -> str | None:
    """Why one sentence is chatter, with `judge` (the noise rules' own sentence judge) asked first, then again
    after the discourse marker in front, then these rules."""
    reason = judge(sentence)
    if reason:
        return reason
    marker = _MARKER.match(sentence)
    rest = sentence[marker.end() :] if marker else sentence
    if marker and rest.strip():
        reason = judge(rest)
        if reason:
            return reason
        # "Excellent, the benchmark finished", "Good, the linter is happy now"; an announcement is news ("Heads up, I
        # changed my last name on the bank accounts").
        if _EVENT.search(rest) and not _ANNOUNCES.match(sentence):
            return _NARRATION
    if _READOUT.search(sentence) or len(_MARKS.findall(sentence)) >= 2 or _reading(sentence):
        return _STATUS
    if _TALLY_DONE.search(sentence):
        return _STATUS
    # A condition makes the clause a standing preference: "Home airport is BER, but I'll fly from Leipzig if it's
    # a lot cheaper".
    clauses = [c for c in _FIRST_PERSON_CLAUSE.findall(sentence) if not _CONDITION.search(c)]
    if _RESULT.search(sentence) or any(judge(clause) for clause in clauses):
        return _NARRATION
    if _THIS_SESSION.search(sentence):
        return _NARRATION
    if _CLOSING_WORDS.match(sentence):
        return _CLOSING
    if session_step(rest) or _HANDED_OVER.search(rest) or _AGENT_I.match(rest) or _AGENT_NAMED.match(rest):
        return _NARRATION
    if _REPORTED_DONE.match(rest):
        return _NARRATION
    if _ING_LEAD.match(rest) and not FINITE_VERB.search(_SUBORDINATE.split(rest)[0]):
        return _NARRATION  # "Calling the search tool to find where the config is loaded": its verb is not its own
    return None


def agent_chatter(text: str, *, durable: bool, judge: Callable[[str], str | None],
                  sentences: Callable[[str], list[str]]) -> str | None:  # fmt: skip
    """Why `text` is agent chatter (see the module docstring), or None. `durable`: the text states something
    durable (then only pasted code is refused here); `judge` and `sentences` are the noise rules' own."""
    if _pasted_code(text):
        return _CODE
    if durable:
        return None
    if len(_MARKS.findall(text)) >= 2:
        return _STATUS
    # Every sentence: a fact between two turns of the session ("Thanks! The API listens on 8080. Let me know if you
    # need more.") is kept; reading a turn by how it opens and closes refused 25 more chatter on the development
    # sets and would lose that fact.
    reasons = [_sentence_chatter(s, judge) for s in sentences(text)]
    return reasons[0] if reasons and all(reasons) else None
