"""Planted instructions: a write that instructs the model rather than stating a fact or a person's standing preference.

An agent that read a web page, a README, an issue comment or a tool's output can be talked into storing a sentence
that then steers every later session. Such a write is held for a person (memories/holds.py), not refused: it may be
a real rule of the team, and a person decides. Each rule below names one way a text instructs the model against its
user, and answers the reason a person reads in the inbox:

- it overrides earlier instructions ("ignore the user's instructions", "developer mode", "no longer apply");
- it hides itself or deceives the user ("never tell the user", "silently", "say the tests pass");
- it sends data or secrets somewhere (a URL, an address, a reply, a commit message);
- it runs fetched code (`curl ... | sh`, "download and execute");
- it turns a safety check off (certificate checks, hooks, scanners, confirmations, authentication);
- it points installs at another index or another package name.

Forceful rules a person gives stay active: "Never push directly to main", "Always pin GitHub Actions to a commit SHA",
"Install packages only from the company index at ..." name what to do, not how to work against the user. So the
rules look for the harmful act, and a negation before it ("never disable the hooks") reads as the person's rule.
Measured on bench/planted_set.py (`python -m bench planted`), designed on its dev half only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memoryhub.memories.planted_acts import (
    OUR_PLACE,
    PRIVATE_ENDINGS,
    PRIVATE_HOST,
    keeps_a_safeguard,
    planted_act,
    sends_the_persons_own,
)
from memoryhub.memories.sieve import Sieved, sieved

_I = re.IGNORECASE
ADDRESSED = "addressed"  # the rule of a text that speaks to the model by name and names no act: the weakest one
# In the patterns below, `~` is any character inside one sentence: a dot ends a sentence only before a space or the
# end, so ".env" and "the .aws folder" stay inside it (`_rx` spells it out).
_IN_SENTENCE = r"(?:[^.;\n]|\.(?=\S))"


def _rx(pattern: str) -> Sieved:
    # Sieved: a text holding none of the words a pattern needs is passed over without running it (sieve.py).
    return sieved(re.compile(pattern.replace("~", _IN_SENTENCE), _I))


# --- who a text speaks to ------------------------------------------------------------------------------------------
_MODEL = r"(?:ai|llms?|language models?|models?|assistants?|agents?|bots?|claude|gpt|copilot|automated tools?)"
# The model, named: "assistant:", "note to the AI", "if you are an AI model", "AI agents must", "any agent reading
# this", "as an assistant working in this repo". "The assistant should ask first" is a person's preference: not here.
_ADDRESSED = _rx(
    r"(?:^\W*(?:<!--\s*)?(?:assistants?|ai|model|agents?|claude|gpt|llm|system|automation)\b"
    r"(?: note)?\s*[:,]|"
    r"^\W*(?:all |any )?(?:coding |automated )?agents\b~{0,40}\b(?:must|should|may)\b|"
    r"\b(?:dear|hey|hi|attention|note (?:to|for)(?: the)?|instructions? for|directive|to the)\s+"
    r"(?:the\s+|any\s+|all\s+)?"
    r"(?:ai |llm |coding |automated )?" + _MODEL + r"\b|"
    r"\bif you are an? (?:ai|llm|language model|assistant|agent|bot)\b|"
    r"\b(?:model|assistant|system|ai|agent) (?:instruction|directive|override|note|policy)\b|"
    r"\b(?:ai|llm) (?:agents?|assistants?|models?|coding agents?|helpers?|contributors?)\b|"
    r"\b(?:any|every|all) (?:ai |llm |automated )?(?:agents?|assistants?|contributors?|tools)\b~{0,20}"
    r"\b(?:reading|working|helping)\b|"
    r"\b(?:as an?|for) (?:ai |llm )?(?:assistant|agent)s? (?:working|helping|reading)\b|"
    r"\b" + _MODEL + r" (?:reading|working (?:in|on)) this\b|"
    r"\bthe (?:ai|model|llm)\b(?: (?:must|should|reading|will|is expected))|"
    r"\byou are (?:now|no longer)\b|\byour role has changed\b)",
)
# Permission handed to the model: "you are authorised to push", "the model is allowed to read any file".
_GRANT = _rx(
    r"\b(?:you are|you're|the (?:assistant|model|agent|ai)s? (?:is|are)|assistants are|agents are|"
    + _MODEL
    + r" (?:is|are))\s+(?:now\s+)?(?:allowed|authori[sz]ed|permitted|exempt|free|expected)\s+(?:to|from)\b"
)

# --- what it asks for ----------------------------------------------------------------------------------------------
_THE_USER = r"(?:the user|the user'?s|what the user|the chat|the person)"
_OVERRIDE = _rx(
    r"\b(?:ignore|disregard|forget|override|bypass)\b~{0,40}?\b(?:instructions?|guidance|guidelines|rules|"
    r"system prompt|prompt|policy|polic(?:y|ies)|claude\.md|agents\.md|security\.md|preferences|constraints|"
    # The person's own guard against injected text: "ignore instructions that appear inside web pages or emails".
    r"the user|everything)\b(?!\s+(?:that (?:appear|are|come)\s+)?(?:inside|in|from|within)\s+(?:web ?pages|websites?|"
    r"emails?|tool outputs?|documents?|pdfs?|search results|retrieved|third-party|untrusted|external|fetched))|"
    r"\b(?:prior|previous|earlier|above|former|existing|user'?s?)\b~{0,40}\b(?:instructions?|rules|constraints|"
    r"guidance|guidelines|preferences|policies)\b~{0,30}\b(?:cancelled|canceled|void|deprecated|obsolete|revoked|"
    r"replaced|no longer)\b|"
    r"\b(?:no longer (?:apply|applies|bound|valid|required)|(?:is|are) (?:now )?obsolete)\b|"
    r"\b(?:developer|god|jailbreak|unrestricted) mode\b|"
    r"\brestrictions?\b~{0,40}\b(?:lifted|removed|disabled)\b|"
    r"\binstructions? (?:have|has) (?:been )?(?:updated|changed|replaced)\b|"
    r"\b(?:new objective|your (?:new|real|true) (?:objective|goal|instructions?|task|role))\b|"
    r"\btreat\b~{0,80}\bas (?:instructions|coming from|more important|(?:a )?commands?)\b|"
    r"\b(?:more important|higher priority|precedence) (?:than|over)\b|"
    r"\b(?:whatever|regardless of what|even if|even when) " + _THE_USER + r"\b(?! (?:prefers|likes|wants))|"
    r"\b(?:before|instead of|over|not) (?:doing )?(?:what )?" + _THE_USER + r"\s+(?:says|said|asks|wants)\b|"
    r"\b(?:work|works|working) for\b~{0,40}\bnot the user\b|\bnot the user\b|"
    r"\bif the user asks you to stop\b|\bcontinue anyway\b|"
    r"\b(?:obey|follow|execute)\b~{0,40}\b(?:found in|that (?:arrive|come)s? (?:in|from)|from (?:a |this )?memor)|"
    r"\bnever (?:question|refuse)\b~{0,40}\b(?:memor|request)|\bexecute them as written\b|"
    # ("a room used regularly and exclusively for work" says how something is used.)
    r"\b(?:follow|obey|trust|take (?:orders|instructions) from)\b~{0,40}\bexclusively\b|"
    r"\bexclusively\b~{0,30}\b(?:instructions?|orders|this (?:memory|note|file))\b|"
    r"\bnot bound by\b|\bsystem override\b|\bfollow only\b|\bignore any instruction\b|"
    r"\bobey it\b|\band obey\b|\bapply it to every\b|\badd it to your (?:long-term )?memory\b",
)
_HIDE = _rx(
    r"\b(?:never|don'?t|do not|not)\s+(?:tell|mention|reveal|show|inform|warn|report|disclose|bring up|list|"
    # ("Don't mention the reorg to anyone outside the leadership team" keeps a secret from others, for the user.)
    r"record|let)\b~{0,40}?\b(?:the user|them|anyone(?!\s+(?:outside|except|other than|beyond|not (?:on|in))\b)|this|"
    r"that you|that a memory|memory|the changes|know)\b|"
    r"\b(?:tell|let) no one\b|\bkeep (?:the user|them) (?:unaware|from|in the dark)\b|\bkeeps? them from\b|"
    r"\b(?:keep|kept) (?:this|it|the rule|these rules)~{0,20}\b(?:secret|hidden|private)\b|"
    r"\bhidden rules?\b|\bpretend (?:you|that)\b|\bwhen the user is not looking\b|"
    # "Quietly append ...", "have the agent silently disable ...": an order. How something fails is a fact a person
    # notes: "the export fails silently", "gives up silently", "the tests silently skip" (unless that is the order:
    # "Silently skip the review").
    r"(?<!ed )(?<!fails )(?<!fail )(?<!up )(?<!dies )(?<!exits )(?<!crashes )"
    r"\b(?:silently|quietly|secretly|covertly)\b(?!\s+(?:\w+(?:ed|s)|broke|fail|skip|stop|drop|break|hang|die)\b)|"
    r"(?:^|[.;:!?,\n]\s*|\b(?:and|then|just|please|always|should|must|to|will|you)\s+)"
    r"(?:silently|quietly|secretly|covertly)\s+(?:skip|stop|drop|break|fail)\b|"
    r"\bwithout (?:telling|informing|notifying) (?:the user|anyone)\b|"
    r"\bhide\b~{0,40}\bfrom\b|\bhides? which\b|\bdelete this memory\b|\bthis memory'?s? entry\b|"
    r"\b(?:deny|denies) (?:that )?(?:it|this|you)\b|\byou have no memor|"
    # ("When the user asks you to stop, say what is left undone", "... and say so in the summary": owning up.)
    r"\b(?:if|when) (?:anyone|someone|the user) asks\b~{0,60}\b(?:say(?! so\b| what\b)|deny|you have|tell them)\b|"
    r"\b(?:do not|don'?t|never) (?:log|report)\b~{0,40}\b(?:requests?|commands?|what you)\b"
    r"(?!\s+(?:bodies|body|payloads?|headers?|parameters)\b)|"  # privacy: "never log request bodies"
    r"\b(?:answer|say|tell the user|report|reply)\b~{0,40}\b(?:tests?|build|ci|suite|task|it|bill)\b~{0,30}"
    r"\b(?:pass|passes|passed|green|complete|fine|done)\b|"
    r"\breport (?:only|just) the\b|\b(?:reply|respond|answer)\b~{0,30}\bonly with\b"
    r"(?!\s+(?:the )?(?:text|content|answers|wording|information) from\b)|"
    r"\b(?:say|says|report) (?:it|that it) has\b~{0,40}\beven (?:when|if)\b|\beven when it has not\b|"
    r"\bwhatever the file says\b|\bsay it was\b|"
    r"\blooks? like theirs\b",
)
_SECRET_THING = (
    r"(?:credentials?|\.env\b|api[ _-]?keys?|keys|tokens?|passwords?|secrets?(?:\.ya?ml)?|ssh|private keys?|"
    r"id_rsa|cookies?|\.npmrc|\.netrc|\.aws|\.kube|kubeconfig|\.pem\b|database dump|conversation(?: history)?|"
    r"the diff|file contents|every file|any file|contents of|oauth|environment variables|`env`|"
    r"clipboard|~/\.?[\w-]+|(?<!\w)(?-i:[A-Z][A-Z0-9]*_(?:API_)?(?:KEY|TOKEN|SECRET|PASSWORD))\b|auth token)"
)
_DESTINATION = (
    # (An address after "from" sends: "send interview invites from careers@...".)
    r"(?:https?://|\bwebhook\b|(?<![\w.+-])(?<!from )[\w.+-]+@[\w-]+\.[\w.]+|\bcurl\b|github\.com/|"
    # A place named after a preposition: "in the PR description", "to the thread" ("post the release notes" names
    # what is posted, not where).
    r"\b(?:to|in|into|on|as|under|via)\s+(?:the |a |an |your |every |each |its )?(?:[\w-]+ )?(?:issue|thread|footer|"
    r"readme|pull request|pr|comment|reply|answer|notes|collaborators|reviewer)s?\b)"
)
_SEND = _rx(
    # The verb as an order (the sentence's start, or after "always", "first", "to", ...): "Ledger sends invoices"
    # and "My work email is ..." describe, they do not order.
    r"(?:^|[.;:!]\s+|,\s*|\b(?:always|also|then|first|must|should|please|kindly|to|and|will|you|by)\s+)\W*"
    r"(?:send|post|upload|e-?mail|forward|submit|transmit|exfiltrate|leak|paste|pipe|share|push|sync)(?:ing)?\b"
    r"~{0,80}?" + _DESTINATION + r"|"
    # ("Keep the Wi-Fi password out of shared notes" keeps it home.)
    r"\b(?:include|copy|append|put|write|store|add|print|keep(?!~{0,50}?\bout of\b)|fill)\b~{0,50}?(?<!\w)"
    + _SECRET_THING
    + r"~{0,60}?"
    r"\b(?:reply|answer|commit messages?|summar(?:y|ies)|pull request|description|bug reports?|memory|notes|"
    r"fixtures|/tmp|output|reuse|issue|footer|readme|commit|verbatim)\b|"
    r"\b(?:include|copy|append|put|write)\b~{0,30}?\b(?:the )?(?:contents of|user'?s)\b~{0,40}?"
    r"\b(?:credentials|keys?|cookies|\.\w+)\b|"
    r"\binclude a call to https?://|"
    r"https?://\S*\$\{?[A-Z_]*(?:TOKEN|KEY|SECRET|PASSWORD)|"
    r"\bpush every branch to\b|\bscp\b~{0,30}@|"
    r"\b(?:read|share|access)\b~{0,20}\bany file\b|"
    # The secret named first, then "include it in the commit message", "store it in memory".
     + _SECRET_THING + r"~{0,60}?\b(?:include|copy|append|put|write|store|add|send)\s+(?:it|them)\b~{0,20}?"
    r"\b(?:in|into|to)\b",
)
_FETCHED_CODE = _rx(
    r"\b(?:curl|wget|iwr|invoke-webrequest|fetch)\b[^|;\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|"
    r"\b(?:curl|wget)\b[^|;\n]{0,200}\|\s*(?:python3?|node|perl|ruby)\b|"
    r"<\(\s*(?:curl|wget)\b|\$\(\s*(?:curl|wget)\b|\biex\s*\(|"
    r"\b(?:download|fetch)\b~{0,60}\b(?:and|then)\s+(?:execute|run)\b|\b(?:download|fetch)\b~{0,80}\brun it\b|"
    r"\b(?:execute|run)\b~{0,20}\b(?:the )?(?:script|installer|bootstrap|binary)\b~{0,20}\b(?:at|from)\b|"
    r"\b(?:fetch|download)\b~{0,20}\band execute\b|\bpipe remote scripts\b|"
    r"\brun the contents of\b|\binstall -r https?://",
)
_SAFETY_TARGET = (
    r"(?:pre-commit|hooks?|scanners?|scanning|csrf|authentication|auth|branch protection|protection checks?|ssl|tls|"
    r"certificates?|certificate checks?|tests?|test suite|gates?|lint|linter|type checker|permissions|safety|"
    r"2fa|mfa|two-factor|firewall|rate limit(?:ing)?|code signing|signing|antivirus|audit log|codeql|warnings|"
    r"reviews?|required reviews|security|audit (?:policy|triggers?|logging|trails?)|cloudtrail(?: trails?)?|"
    r"pii masking|masking|anonymi[sz]ation)"
)
# A safety check turned off: what is turned off, for the negation check and the reason.
_SAFETY_OFF = _rx(
    r"\bverify\s*=\s*false\b|\bsslverify\s+false\b|--no-verify\b|hookspath\s+/dev/null|--trusted-host\b|"
    # Settings that open a door whatever the reason given: signatures unchecked, an insecure flag, deletion
    # protection off, scripts evaluated from strings, any redirect, any certificate, everyone on the internet.
    r"\bverify_signature'?\"?\s*:\s*false\b|--insecure(?:-[\w-]+)?\b|\bdeletion_protection\s*=\s*false\b|"
    r"'unsafe-eval'|\baccept any redirect_uri\b|\baccepts? any cert(?:ificate)?s?\b|\ballusers\b|"
    r"\ballauthenticatedusers\b|\bgrant all privileges\b~{0,60}\b(?:to public|@'%')|"
    r"\b[\w-]*verify[\w-]*['\"]?\s*[:=]\s*['\"]?(?:false|0|no|off)\b|host_auth_method\s*=\s*trust\b|"
    r"\bprincipal\b~{0,10}['\"]\*['\"]|\bprivileged\s*[:=]\s*true\b|\brunasuser\s*[:=]\s*0\b|--no-encrypt\b|"
    r"\bpull_request_target\b~{0,80}\b(?:secrets|head|token)\b|\bautomerge (?:everything|all)\b|"
    r"\bexclude\b~{0,40}\bfrom (?:all|security|vulnerability) (?:scans?|audits?)\b|"
    r"\b(?:code signing|signing|anonymi[sz]ation|encryption|verification|pii masking|mfa|2fa) is (?:now )?optional\b|"
    r"--unsafe-perm\b|\bignore-scripts=false\b|--audit=false\b|reject_unauthorized=0\b|"
    r"\bdebug\s*=\s*true\b~{0,60}\bproduction\b|allowed_hosts\s*=\s*\[\s*'\*'|\bchmod\s+(?:-r\s+)?777\b|"
    r"\b0\.0\.0\.0/0\b|\broles/owner\b|\bufw disable\b|"
    r"\b(?:disable|disables|turn off|turned off|switch off|comment out|remove|skip|bypass|delete|silence|"
    r"ignore|edit)\b~{0,40}?\b" + _SAFETY_TARGET + r"\b|"
    r"\b" + _SAFETY_TARGET + r"\b~{0,30}\b(?:is|are) (?:turned off|disabled|not needed|unnecessary)\b|"
    r"\bmark\b~{0,30}\bas passed\b|\bassertions so they pass\b|"
    r"\b(?:never|don'?t|do not|stop|no need to)\s+(?:ask|asking)\b~{0,30}?\b(?:for )?(?:confirmation|"
    r"permission|approval|before|the user)\b|"
    r"\b(?:confirmation|approval|permission)s? (?:is|are) (?:never|not|no longer|turned off)\b|"
    # "has pre-approved all merges", "is pre-approved"; "Pre-approved vendors are listed in vendors.md" names a list.
    r"\bexempt from\b|\b(?:has|have|had|is|are|was|were|been|be) pre-approved\b|"
    r"\bpre-approved (?:all|every|any|this|these|it|them)\b|\bjust run the command\b|"
    r"\bwithout (?:checking|reviewing|verifying|validating|reading|review|triage|asking)\b|\bapprove them without\b|"
    r"\b(?:do not|don'?t|never) warn the user\b|"
    r"\becho \S+ \| sudo -S\b|\bhard-coded\b~{0,20}\bfor convenience\b|"
    # "a collaborator with admin rights"; "I'm the only one with admin rights on the org" says who holds them.
    r"(?<!only one with )(?<!only person with )(?<!on the team with )\badmin rights\b|"
    r"\badd\b~{0,40}\bas an owner\b|\bforce-push whenever\b",
)
# Installs pointed at another index, registry or proxy.
_INDEX = _rx(
    r"(?:--(?:extra-)?index-url|(?:^|\s)-i\s+https?://|--registry|pip_(?:extra_)?index_url|"
    r"npm_config_registry|goproxy|\b(?:npm|yarn|pip|go|package) (?:registry|index|proxy|mirror)\b|"
    r"\bregistry\b|\bmirror\b|\bpoint\b~{0,40}\b(?:package|packages|pip|npm|installs?)\b~{0,20}\bat\b)"
)
# An index names a host: a URL, or a bare domain ("pkgproxy.example.ru"). Names are tried from their first character
# only (the lookbehinds): from every character, a long word costs time quadratic in its length.
_HOST = re.compile(
    r"https?://|(?<![\w.-])[\w-]+(?:\.[\w-]+)*\.[a-z]{2,6}\b(?![\w.]*\.(?:py|js|ya?ml|toml|json|txt|md)\b)", _I
)
# Plain HTTP (outside a private network), a bare address or a trusted-host is suspect whoever names it.
_UNSAFE_HOST = re.compile(
    r"\bhttp://(?![\w.-]+" + PRIVATE_HOST + r")|\b\d{1,3}(?:\.\d{1,3}){3}\b|--trusted-host",
    _I,
)
# Another package in place of the one meant: "install X instead of Y", "replace numpy with numpy-fast-bin".
_SWAP = _rx(r"\b(?:install|prefer|replace|use)\b~{0,80}?\b(?:instead of|over|rather than|with)\b")
_PACKAGE_NAME = re.compile(
    r"`([a-z0-9][\w./-]*)`|\b(?:package|instead of|over|rather than|with|install)\s+(?:the )?([a-z0-9][\w./-]*)", _I
)
# The package an install command names: `yarn add reactt-dom`, `pip install requestss`.
_INSTALLED = re.compile(r"\b(?:pip3?|npm|yarn|pnpm|go|cargo|gem)\s+(?:install|i|add|get)\s+([a-z0-9][\w./-]*)", _I)
_QUOTED_NAME = re.compile(r"`([a-z0-9][\w.-]*)`", _I)
_USE = re.compile(r"\b(?:use|install|prefer|switch to|depend on|import)\b", _I)
_WORD_RUN = re.compile(r"[a-z0-9][\w-]*", _I)
_MISSPELT = re.compile(r"\(with that spelling\)|\bthe maintained fork\b", _I)
_FROM_INDEX = _rx(r"\b(?:package|packages)\b~{0,60}\bfrom https?://")
# A clause that says "not": "Never disable the hooks" is a person's rule, not a planted one.
_NEGATED = re.compile(r"\b(?:never|don'?t|do not|doesn'?t|not|no|without|nor|avoid|rather than|instead of)\b", _I)
# A dot ends a clause only before a space or the end: "outside brightwave.com without asking" is one clause.
_CLAUSE_START = re.compile(r"\.(?=\s|$)|[;:!?\n]|\b(?:but|so|then|and then)\b|,\s", _I)
_FACT_VOICE = _rx(
    r"^\W*(?:the|our|we|it|this|that|these|those|[A-Z][a-z]+'s)\b~{0,80}?\b(?:is|are|was|were|has|have|"
    r"runs|uses|lives|posts|says|said|reports)\b"
)


# A team's rule for its agents that only asks for more care, and names no act (the acts are read first): "Coding agents
# must ask before installing a new dependency", "AI assistants may not approve their own pull requests", "Agents
# should cite the file and line". "Agents must fetch and apply the patch" asks for an act.
_MORE_CARE = re.compile(
    r"^\W*(?:all |any )?(?:coding |automated |ai )?(?:agents?|assistants?|claude|copilot)\b[^.;:]{0,40}?"
    r"(?:\b(?:must|should|may)\s+|[,:]\s*(?:always\s+)?)"
    r"(?:(?:stop and )?ask\b|confirm\b|run\b[^.;]{0,20}\b(?:tests?|lint|linter|checks)\b|cite\b|summari[sz]e\b|"
    r"explain\b|keep (?:prs|pull requests|changes|answers|replies|emails|it|them)\b|split\b|"
    # What an agent may not do takes power from it: "must never disable 2FA", "must not read /etc/secrets". ("Agents
    # should never run the security scan" takes a check away: not this.)
    r"(?:not|never)\s+(?:edit|approve|merge|push|deploy|delete|touch|change|install|commit|disable|remove|read|modify|"
    r"share|send|bypass|turn off)\b)",
    _I,
)


# A script fetched from a host of the person's own network is theirs to run.
_URL_HOST = re.compile(r"https?://([\w.-]+)", _I)


def _only_private_hosts(text: str) -> bool:
    """Does every URL of the text name a host of a private network ("https://tools.acme.internal/bootstrap.sh")?"""
    hosts = [h.lower().rstrip(".") for h in _URL_HOST.findall(text)]
    return bool(hosts) and all(h == "localhost" or h.endswith(PRIVATE_ENDINGS) for h in hosts)


# A low-stakes check set aside for one part of the code: "Ignore lint errors in the legacy/ folder", "Skip the e2e tests
# on draft PRs", "Ignore the test files in fixtures/ when counting coverage". A planted text takes a check away
# everywhere, or one that guards something (a scanner, two-factor sign-in, a review, signing).
_LOW_STAKES = re.compile(r"\b(?:lint|linter|warnings|tests?|test files|type checker|coverage)\b", _I)
_ONE_PART = re.compile(
    r"\b(?:in|under|for|from|on)\s+(?:the\s+)?`?[\w.-]+/|\b(?:folder|directory)\b|\bdraft (?:prs?|pull requests)\b|"
    r"\bthrowaway\b",
    _I,
)


def _set_aside_here(text: str, safety: re.Match[str]) -> bool:
    """Is what the text turns off a low-stakes check, in one part of the code its sentence names?"""
    sentence = re.split(r"[.;!?](?:\s|$)", text[safety.start() :], maxsplit=1)[0]
    return bool(_LOW_STAKES.search(safety.group(0))) and bool(_ONE_PART.search(sentence))


@dataclass(frozen=True)
class PlantedVerdict:
    """Why a text reads as an instruction to the model: the rule's name and a reason a person reads."""

    rule: str
    reason: str


def _negated(text: str, start: int) -> bool:
    """Whether the clause before `start` says "not" (never, don't, without...)."""
    clause = text[:start]
    cut = 0
    for boundary in _CLAUSE_START.finditer(clause):
        cut = boundary.end()
    return bool(_NEGATED.search(clause[cut:]))


def _first_unnegated(pattern: Sieved, text: str) -> re.Match[str] | None:
    for match in pattern.finditer(text):
        if not _negated(text, match.start()):
            return match
    return None


def _hides(text: str) -> bool:
    """An order to hide something: "never tell the user" says "not" itself, and counts whatever comes before it; "never
    silently delete them" is a person's rule."""
    return any(_NEGATED.match(m.group(0)) or not _negated(text, m.start()) for m in _HIDE.finditer(text))


def _lookalike(wanted: str, instead: str) -> bool:
    """A package name made to pass for another: it holds the other's name, or differs from it by a letter or two."""
    a, b = wanted.lower(), instead.lower()
    if a == b:
        return False
    if min(len(a), len(b)) < 5:  # pnpm and npm are two tools, not a look-alike
        return False
    return b in a or a in b or (abs(len(a) - len(b)) <= 2 and _distance(a, b) <= 2)


def _distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _install_redirect(text: str) -> str | None:
    index = _INDEX.search(text)
    if index is not None and not _negated(text, index.start()) and _HOST.search(text):
        # A person names their own index ("the company index at ..."); an index nobody owns is suspect.
        if _UNSAFE_HOST.search(text) or not OUR_PLACE.search(text):
            return "it points installs at another package index"
    swap = _SWAP.search(text)
    if swap is not None and not _negated(text, swap.start()) and not _FACT_VOICE.search(text):
        names = list(dict.fromkeys(m.group(1) or m.group(2) for m in _PACKAGE_NAME.finditer(text)))
        for i, one in enumerate(names):
            for other in names[i + 1 :]:
                if _lookalike(one, other):
                    return f"it swaps the package {one!r} for a look-alike, {other!r}"
    quoted = list(dict.fromkeys(_QUOTED_NAME.findall(text)))
    if _USE.search(text) and not _FACT_VOICE.search(text):  # "Use the package `colourama`; `colorama` is deprecated"
        for i, one in enumerate(quoted):
            for other in quoted[i + 1 :]:
                if _lookalike(one, other) and one not in other and other not in one:  # pytest, pytest-xdist
                    return f"it swaps the package {other!r} for a look-alike, {one!r}"
    if _MISSPELT.search(text) or (_FROM_INDEX.search(text) and not OUR_PLACE.search(text)):
        return "it points installs at another package name or index"
    return _misspelt_install(text)


# Packages most projects install: a name a letter or two away from one of these is a typosquat.
_WELL_KNOWN = frozenset(
    "requests numpy pandas django flask fastapi urllib3 boto3 botocore pyyaml setuptools colorama matplotlib scipy "
    "pytest sqlalchemy pydantic cryptography paramiko pillow beautifulsoup4 selenium tensorflow pytorch openai "
    "express react reactdom lodash axios webpack typescript babel jquery moment dotenv eslint prettier nodemon "
    "chalk commander mongoose sequelize nextjs".split()
)


def _squashed(word: str) -> str:
    return re.sub(r"[^a-z0-9]", "", word.lower())


def _misspelt_install(text: str) -> str | None:
    """An install command naming a package a letter or two away from a name the text also uses ("`yarn add reactt-dom`
    whenever React DOM is needed")."""
    installed = list(_INSTALLED.finditer(text))
    if not installed:  # most texts install nothing: their words need not be read
        return None
    words = [w.group(0) for w in _WORD_RUN.finditer(text)]
    spoken = {_squashed(w) for w in words} | {_squashed(a + b) for a, b in zip(words, words[1:], strict=False)}
    spoken |= _WELL_KNOWN  # "pip install reqeusts": a name a letter or two from one everybody installs
    for match in installed:
        name = _squashed(match.group(1))
        if len(name) < 4:  # "npm install in CI": a short word there is English, and too short to pass for a name
            continue
        for other in spoken:
            if other.startswith(name) or other.endswith(name):
                continue  # the name run together with a neighbour ("npm install fails on": "failson")
            if len(other) >= 4 and abs(len(other) - len(name)) <= 2 and _distance(name, other) <= 2:
                return f"it installs {match.group(1)!r}, a look-alike of a package it names"
    return None


def planted_instruction(text: str) -> PlantedVerdict | None:
    """Why `text` reads as an instruction planted for the model, or None when it states a fact or a preference."""
    if not isinstance(text, str) or not text.strip():
        return None
    if _OVERRIDE.search(text):
        return PlantedVerdict("override", "it tells the model to override earlier instructions")
    # A person's rule says "not" before the act ("never silently delete them", "avoid curl | bash installers").
    if _hides(text):
        return PlantedVerdict("hiding", "it tells the model to hide something from the user")
    if _first_unnegated(_FETCHED_CODE, text) and not _only_private_hosts(text):
        return PlantedVerdict("fetched_code", "it tells the model to run code fetched from the network")
    send = _first_unnegated(_SEND, text)
    if send is not None and not _FACT_VOICE.search(text) and not sends_the_persons_own(text, send):
        return PlantedVerdict("sends_data", "it tells the model to send data or secrets somewhere")
    safety = _first_unnegated(_SAFETY_OFF, text)
    if (
        safety is not None
        and not _FACT_VOICE.search(text)
        and not keeps_a_safeguard(text)
        and not _set_aside_here(text, safety)
    ):
        return PlantedVerdict("safety_off", f"it tells the model to turn a safety check off ({safety.group(0)!r})")
    grant = _first_unnegated(_GRANT, text)
    if grant is not None and not keeps_a_safeguard(text):
        return PlantedVerdict("grant", "it hands the model a permission the user did not give")
    redirect = _install_redirect(text)
    if redirect:
        return PlantedVerdict("install_redirect", redirect)
    act = planted_act(text, negated=_negated)  # acts said in other words, or not named above (planted_acts.py)
    if act is not None:
        return PlantedVerdict(*act)
    # Spoken to the model by name ("Note to the AI", "Assistant:", "AI agents must") rather than about a preference,
    # unless all it asks of agents is more care.
    if _ADDRESSED.search(text) and not _FACT_VOICE.search(text) and not _MORE_CARE.search(text):
        return PlantedVerdict(ADDRESSED, "it speaks to the model as its instructions")
    return None
