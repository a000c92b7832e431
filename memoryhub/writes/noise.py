"""Noise: what an agent writes that is not a memory. Each rule answers a reason the agent can act on.

Refused: session logs and summaries of what was done, status and progress notes, acknowledgements and greetings,
thinking aloud, command output, stack traces and log lines, questions, plans for later, bare timestamps, text too
short to be a fact. Kept: every fact, decision, gotcha, preference and procedure, however short; so the rules look
at how a text is said (who did what when, a question mark, a log prefix), never at what it is about, and a text
that states something durable ("... because ...", "never ...", "use X") is kept even when it starts like a
diary line. Measured on bench/gate_set.py (`python -m bench gate`).
"""

from __future__ import annotations

import re

import numpy as np
from django.conf import settings

from memoryhub.judges.noise_judge import ask_llm_about_noise
from memoryhub.writes import chatter_head
from memoryhub.writes.categories import guess_category
from memoryhub.writes.chatter import agent_chatter, session_step
from memoryhub.writes.chatter_head import reads_as_chatter, reads_as_fact
from memoryhub.writes.other_languages import (
    READ_BY_ITS_WORDS,
    chatter_in_other_languages,
    in_its_own_script,
    lasting_in_other_languages,
)
from memoryhub.writes.vocabulary import FINITE_VERB, PERSONAL_GOAL, WEEKDAY

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_TIMESTAMP = re.compile(
    r"\[?\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\]?|"
    r"\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:am|pm)?\b",
    re.IGNORECASE,
)
# What a date is the date of: "passport exp 2027-09-03", "lease renewal 2025-03-01".
_DATED = re.compile(
    r"\b(?:exp|expires?|expiry|due|birthday|bday|anniversary|renew(?:al|s)?|deadline|valid until|born|since)\b",
    re.IGNORECASE,
)
_DIARY = re.compile(
    r"^\W*(?:"
    r"(?:today|tonight|yesterday|this (?:morning|afternoon|evening|session|sprint)|in this session|"
    r"during this session|so far(?: today)?)\b[^.]{0,20}?\b(?:i|we)\b|"
    r"(?:the user|the team|someone|\w+) (?:asked|told|wants|would like|needs) me to\b"
    r"(?![^.]*\b(?:before|any|every|always|never|whenever)\b)|"
    r"(?:the )?(?:user|customer)(?: on [\w #]+)? (?:wants to know|says (?:hi|thanks)|pasted|is asking|asks whether|"
    r"just said)\b|(?:so )?to restate\b|"
    r"\w+ log for today\s*:|restating what you said\b|so,? to (?:recap|sum up)\b|let me restate\b|your request\s*:|"
    r"quick recap of\b|"
    r"(?:so )?the gist of (?:his|her|their|the) (?:email|message|call)\b|"
    # A recap, an outline or a find under its label: "Quick recap: paid the water bill, ...", "Here they are: ...".
    r"(?:quick )?recap\s*:|here (?:they|it) (?:are|is)\s*:|here(?:'s| is) (?:a |the |my )?(?:rough |quick |first )?"
    r"(?:outline|draft|version)\s*:|found it\s*:|"
    # The request said back: "So you'd like a vegetarian recipe for six", "Got it, you want the login page to...".
    r"(?:(?:ok(?:ay)?|right|alright|got it|sure)\W+)*so,? you(?:'d| would) like\b|"
    r"(?:(?:ok(?:ay)?|right|alright|got it|sure)\W+)*so,? you(?:'re| are) (?:asking|looking) for\b|"
    r"got it\W+(?:so,? )?you (?:want|need|mean|'d like)\b|just restating\b|"
    r"(?:i|we)(?:'ve| have)? (?:just )?(?:worked on|am working on|was working on|were working on|spent|"
    r"started working|looked into|am going to|will now|am now|'m now|'m going to|continued|finished|fixed|"
    r"refactored|implemented|updated|added|pushed|ran|tried|reviewed|merged)\b|"
    r"(?:session (?:log|summary|notes)|summary of (?:what|(?:the|this|today's) session|today|my work|(?:the )?changes)|"
    r"changes made(?=\s*:)|what (?:i|we) changed(?=\s*:)|"
    r"what i did|"
    r"here(?:'s| is) (?:the |a |my )?(?:quick |short |brief )?(?:summary|recap|update|overview|rundown)|dev ?log|"
    r"(?:today|this week)'?s (?:summary|recap)|here(?:'s| is) the output of|(?:today|this week)'?s \w+ so far\b|"
    # A reply drafted in the session: "Dear Mr. Okafor, thank you for your email...", "Sehr geehrte Frau Schulz, ...".
    r"(?:dear|sehr geehrte[r]?|bonjour|estimad[oa]|gentile)\b[\s\S]{0,300}?\b(?:thank you for your|vielen dank für "
    r"ihre|nous avons bien reçu|gracias por su|grazie per)\b|"
    r"daily log|diary|progress update|work log)\b|"
    # A standup as the heading of a report ("Standup: fixed the login bug"); "Standup is now at 10:00" is a fact.
    r"(?:today'?s |this morning'?s )?(?:daily )?(?:standup|stand-up)(?: (?:notes?|update|summary|report))?"
    r"\s*[:\-\u2013\u2014]|so far(?: today)?\s*:|summari[sz]ing (?:what|today|the session|our)\b|"
    r"(?:recap|summary|wrap-up)(?=\W*(?:\n|$))"
    r")",
    re.IGNORECASE,
)


def _work_report(sentence: str) -> bool:
    # "Fixed the failing test and pushed the branch." reports the session; "Added a read replica for the reporting
    # queries." says what the system now has (a fact): verbs that build or change something judge by their object.
    return session_step(sentence)  # vocabulary.DONE_VERB, or a change whose object is the session's work


# First person singular is both how a session narrates itself ("I checked the config", "I'm taking a look") and
# how a person states lasting facts about themselves ("I live in Lisbon", "I'm allergic to penicillin", "I moved
# to Berlin in March", "I use fish as my shell"). Losing such a fact is worse than keeping a log line, so the
# first person is narration only by what follows it: a verb of the session's work in the past or in progress, a
# session word (just, now, then, first, next), a plan, a guess, or a passing state ("I'm stuck", "I'm back").
_FIRST_PERSON = re.compile(r"^\W*(?:i|i'm|i've|i'd|i am|i was|i just|i also|i then)\b", re.IGNORECASE)
_SESSION_WORK = (
    # "I found the bug" is a step; "I found that the worker ignores SIGTERM" a lesson.
    r"checked|ran|re-?ran|tried|looked|found(?!\s+(?:out|that)\b)|fixed|noticed|saw|updated|added|pushed|wrote|"
    r"rewrote|finished|re-?formatted|freed|mixed up|"
    r"opened|closed|merged|tested|debugged|investigated|reviewed|cleaned|refactored|changed|modified|got|did|"
    r"removed|deleted|reverted|restarted|rebuilt|reinstalled|dug|spent|went through|worked on|traced|confirmed|"
    r"verified|managed|figured|realized|realised|tweaked|bumped|patched|committed|edited|copied|renamed|searched|"
    # Errands of the session: what the agent did to the repo, its tools or people around it, not how things now are
    # ("I installed", "I configured", "I documented" may state a lasting set-up, and stay with the sentence rules).
    r"replied|scaled|emailed|published|pruned|filed|activated|generated|profiled|measured|counted|cleared|"
    r"re-?indexed|re-?seeded|re-?authenticated|re-?triggered|adjusted|drafted|stashed|archived|tagged|cherry-picked|"
    r"squashed|amended|flushed|formatted|kicked off|resolved|resized|saved|rearranged|converted|exported|"
    r"uploaded|downloaded|compressed|cropped|sorted|scanned|printed|trimmed|shortened|reworded|rephrased|translated|"
    r"pulled"
)
_FIRST_PERSON_NARRATION = re.compile(
    # ("I've got mild asthma" is what the person has.)
    r"^\W*i(?!(?:'ve| have) got\b)(?:'ve| have| had|'d)?\s+"
    r"(?:(?:just|also|then|now|first|finally|quickly|already|still|again)\s+)*"
    # ("I finally got my green card" is a person's news, not a step: what they got is theirs.)
    rf"(?:{_SESSION_WORK})\b(?!\s+(?:my|rid of)\b)|"
    # A person's own long undertaking ("I'm learning Portuguese", "I'm saving for a house", "I'm trying to avoid
    # caffeine after 2 pm") is a fact about them, not a step of the session.
    r"^\W*i(?:'m| am| was)\s+(?:(?:just|also|now|still|currently|about to|going to|trying to)\s+)?"
    r"(?!(?:learning|studying|saving|training|expecting|fasting|commuting|renting)\b|" + PERSONAL_GOAL + r"|"
    r"writing (?:a|the|my) (?:novel|book|thesis|dissertation|memoir)\b)[\w-]+ing\b"
    r"(?!\s+(?:at|for|in|from|as)\b)"  # "I'm working at Acme", "I'm living in Porto" state where, not progress
    # A commitment on the calendar: "I'm doing my prescribing course on Mondays until July".
    r"(?![^.;]*\b(?:" + WEEKDAY + r"s|weekends|until (?:january|"
    r"february|march|april|may|june|july|august|september|october|november|december|\d{4})|in (?:january|"
    r"february|march|april|june|july|august|september|october|november|december)|on (?:jan|feb|mar|apr|may|jun|jul|"
    r"aug|sep|oct|nov|dec)[a-z]* \d+)\b)|"
    r"^\W*i(?:'m| am)\s+(?:(?:slightly|a bit|a little|kind of|kinda|so|totally) )?(?:done|stuck|back|here|ready|"
    r"confused|not sure|unsure|lost|blocked|finished|off|behind|worried)\b|"
    r"^\W*i might (?:try|switch|look|check|need|have to|go)\b|"
    r"^\W*i\s+(?:just|then|now|first|next)\b(?!\s+(?:found out|learned|learnt|discovered|heard|became|turned|"
    r"got (?:a |an |my )?new)\b)|"
    # The present perfect reports the session's own work ("I've drafted the release notes", "I've stashed my
    # changes"); a person's lasting state ("I've been vegan since 2019", "I've moved to Berlin", "I've switched to
    # fish") and what they came to know ("I've found that...", "I've been told...") are not reports.
    r"^\W*i(?:'ve| have)\s+(?:(?:just|also|now|already|finally)\s+)*"
    r"(?!(?:been|got|gotten|lived|had|known|moved|switched|worked|used|learn\w*|found|noticed|seen|heard|read|"
    r"always|never|decided|chosen|agreed|started|stopped|owned|relied|loved|liked|hated|preferred)\b)"
    r"(?:\w+ed|made|run|done|left|set|put|written|sent|built|kept|taken|given|split|begun|rewritten|re-?run)\b|"
    # "I can't find the config" is a step; "I can't do more than 3 nights in a row" a person's limit.
    r"^\W*i (?:can't|cannot|can not) (?:find|see|reproduce|get|tell|access|open|run|figure|locate|load|connect|"
    r"seem|reach|log|sign|make|remember|verify|confirm|decide|say)\b|"
    r"^\W*i(?:'ll| will| would|'d| think| wonder| guess| suspect| believe| don't know| need to| "
    r"have to| had to| should| see| want to| plan to| hope)\b",
    re.IGNORECASE,
)
_PROGRESS = re.compile(
    # Away from the keyboard ("back from lunch", "off to lunch"); "Team lunch is on Fridays" is a fact.
    r"^\W*(?:back (?:from|to)\b|taking a break\b|brb\b|afk\b)|"
    r"\b(?:(?:going|gone|off|out|heading) (?:to|for) (?:lunch|a coffee|coffee|a break)|at lunch|"
    r"(?:on|taking|having) (?:a )?(?:coffee )?break|coffee break)\b|"
    r"^\W*(?:lunch|coffee break|a break)\W*$|\.\.\.\s*$|"
    r"^\W*(?:the )?(?:build|tests?|deploy(?:ment)?|pipeline|ci|job|run|pr|pull request|merge|release|lint|linter|"
    r"type ?check|typecheck|(?:dev )?server|container)\b[^.]{0,30}?"
    r"\b(?:succeeded|pass(?:ed|es)?|failed|finished|completed|is green|is red|are green|are passing|is up|is merged|"
    r"went through|is done|are done)\b|^\W*(?:the )?(?:build|ci|pipeline|tests|checks) (?:green|red)\b",
    re.IGNORECASE,
)
# "Trying another approach now." is progress; "Testing uses the real database." states a fact (it has a verb).
_GERUND_START = re.compile(
    r"^\W*(?:trying|running|testing|checking|looking|working|continuing|debugging|investigating|waiting|"
    r"retrying|rerunning|re-running|building|deploying|fixing|reviewing|committing|pushing|merging|refactoring|"
    r"updating|cleaning up|setting up|installing|wrapping up|verifying|thinking|filtering|uploading|downloading|"
    r"exporting|importing|calling|searching|applying|reformatting|triaging|printing|forwarding|scanning|"
    r"generating|drafting|re-?checking|fetching|pulling|syncing|ramping|rebasing|reading up|reading through|"
    r"comparing|cross-referencing|copying|estimating|pondering|mulling|pasting|wondering|"
    r"counting)\b",
    re.IGNORECASE,
)
_LATER = re.compile(
    r"\b(?:will|'ll|going to|gonna|need to|have to)\b[^.]*\b(?:later|tomorrow|next week|after lunch|again|"
    r"in a bit|at some point|someday)\b|^\W*let'?s (?:try|see|check|look|run|go|do|start)\b",
    re.IGNORECASE,
)
_STATUS = re.compile(
    r"^\W*(?:(?:wip|done|status|progress|blocked)(?=\W*$|\s*[:.!,;-]|\s+(?:on|with|for|by|until|now)\b)|"
    r"(?:in progress|still (?:debugging|working|looking|investigating|trying|waiting)|"
    r"currently \w+ing|working on it|almost done|nearly done|"
    r"task (?:completed|done|finished)|all (?:tests|checks) (?:pass|are green|passed)|no luck|"
    r"step \d+ (?:done|complete|finished)|made (?:some |good |a bit of |little )?progress|ready to "
    r"(?:continue|start|go|proceed|begin)|"
    r"(?:checking|verifying|seeing|testing|looking up|finding out|figuring out) (?:whether|if)|"
    r"(?:reviewing|checking|looking at) (?:pr|pull request|the pr|the diff|#)\S*)\b)|"
    r"^\W*the build is (?:green|red|passing|failing)(?: again)?\W*$",
    re.IGNORECASE,
)
_ACK = re.compile(
    r"^\W*(?:thanks?|thank you|thx|ty|ok(?:ay)?|k|alright|all right|right|yay|phew|whew|oops|whoops|finally|got it|"
    r"sounds good|"
    r"great|perfect|awesome|nice|cool|sure|that (?:was|did|worked|fixed|does)|seems to work|looks good|works now|"
    r"it works|that's it|there we go|here we go|"
    r"understood|noted|hello|hi|hey|good (?:morning|afternoon|evening|night)|bye|"
    r"you'?re (?:absolutely |totally |completely |quite )?right|my (?:mistake|bad)|that works|makes sense|will do|"
    r"lgtm|agreed|sorry|(?:i |my )?apolog\w*|lol|haha\w*|wow|oh (?:nice|cool|great|wow|no)|that sounds|"
    r"merci|danke|gracias|obrigad[oa]|listo|voil[aà]|fertig|perfecto|genial|erledigt|pronto|fatto|klaar|feito|prima|"
    r"d'accord|d[ée]sol[ée]e?|booked|totally understand|no rush|bear with me|c'est fait|"
    r"that'?s (?:super |really |very |so )?(?:helpful|useful|weird|odd|strange|perfect|brilliant|amazing|awesome|"
    r"lovely|wonderful|fantastic|a relief|a lot)|sounds like a plan|ready when you are|"
    r"hope you feel better|sorry to hear|glad (?:the|you|that)|nice job|well done|apologies|that sounds|"
    r"that'?s a (?:fair|good|great|valid) point|"
    # "No, that's fine." answers; "No GPUs: everything fits on CPU." states that there are none.
    r"(?:yes|yep|yeah|no|nope)(?=\s*[,.!?;:]|\s*$|\s+(?:problem|worries|thanks|thank|way|idea|luck)\b))\b",
    re.IGNORECASE,
)
_THINKING = re.compile(
    r"^\W*(?:(?:hmm+|mm+|uh+|um+|wait|let me|let's see|now i(?:'ll| will)|next,? i(?:'ll| will)|"
    r"(?:actually,? )?scratch that|ok(?:ay)?,? let me|"
    r"i(?:'ll| will) now|ok(?:ay)?,? (?:now|let's|so)|i think|i wonder|i'?m not sure|not sure|looking at|"
    r"hold on|probably|possibly|might be|could be|my guess|i guess|i suspect|i bet|feels like|seems like|"
    r"je pense|ich glaube|creo que|acho que|honestly|i'?m torn|first impressions?|let me think|"
    r"just (?:a thought|an idea|brainstorming|flagging|thinking out loud|a suggestion)|thinking (?:out loud|aloud)|"
    r"need to (?:look|check|see|verify|confirm|dig|investigate)|worth (?:asking|checking|a look|trying)|"
    r"(?:want|wanted) to (?:double[- ]check|check|confirm|verify|make sure)|just curious|hm+|"
    r"hard to (?:say|tell)|ugh|yikes|oof|argh|meh|whoa)\b|\blet'?s see\W*$|"
    r"(?:maybe|perhaps|interesting|hmm)(?=\s*[,.!?…:\u2014\u2013-]|\s*$|\s+(?:it|it's|this|that|the|we|i|a|an|"
    r"there|they|something|because)\b)|so,?\s+(?:i|we|let's|now|it|that|basically|the (?:problem|issue))\b)",
    re.IGNORECASE,
)
# How things are at this moment ("The staging API is returning 502s at the moment.", "npm install is taking forever
# today."): true now, gone tomorrow. A lesson of the day keeps it ("We found today that the iOS app caches the config
# for 24h", "After this morning's alert storm, PagerDuty pages only for P1"): the day closes the sentence here.
_RIGHT_NOW = re.compile(
    r"\b(?:at the moment|right now|as we speak|for some reason|currently|this minute|a (?:second|minute|moment) ago|"
    r"one sec(?:ond)?|just a (?:sec|second|moment)|a few more minutes|\d+ (?:seconds|minutes|hours) from now|"
    r"tonight(?!'s)|for tomorrow|tomorrow at \d|ahora mismo|en este momento|en ce moment|gerade|momenteel|"
    r"agora mesmo|proprio adesso|al momento|un momento|einen moment|um momento|só um momento)\b|"
    r"\b(?:today|tonight|tomorrow|this (?:morning|afternoon|evening))\W*$|"
    # A live reading or an event of the day by the clock: "lag is sitting at 14k", "the emulator is stuck on the boot
    # animation", "the deploy is at 60%", "kicked off at 14:05", "quiet since 9am". A schedule is said in the present
    # ("the backup starts at 02:00").
    r"\b(?:is|are|'s) (?:still |currently |now )?(?:sitting|hovering|stuck) (?:at|on|in|around)\b|"
    r"\b(?:is|are) (?:now |only |already )?at (?:about |around )?\d+(?:\.\d+)?\s*%|"
    r"\b(?:kicked off|started|finished|began|completed|failed|died|crashed|rebooted|went down|came back) "
    r"(?:at|around) \d{1,2}(?::\d{2})?\s*(?:am|pm)?(?![\w:/-])|"
    r"\bsince \d{1,2}(?::\d{2})?\s*(?:am|pm)\b|"
    # Still in the middle of something, not back yet, on its way: "The DAG is still queued", "Still no reply from
    # the notary", "The hotel hasn't confirmed yet", "out for delivery". ("The legacy API is still running on
    # Python 2" says where it runs: the state must close its clause.)
    r"\b(?:is|are) still (?:awaiting|pending|waiting)\b|\bstill (?:uploading|downloading|loading|syncing|processing) "
    r"(?:your|the)\b|\b(?:ci|the build|the job|the run|the pipeline) is queued\b|"
    r"\b(?:is|are|'s) still (?:queued|pending|processing|running|loading|building|uploading|compiling|indexing|"
    r"downloading|installing|training|provisioning|deploying|rendering|"
    r"syncing|importing|exporting|down|offline|in progress|in (?:a )?queued state|'processing'|crunching)"
    r"(?=\s*(?:$|[,.;!:\u2014\u2013-])|\s+\W)|"
    r"^\W*still (?:no (?:reply|response|word|answer|news|luck)|seeing|getting|waiting)\b|"
    r"\b(?:has|have|is|are)n[o']?t (?:yet )?(?:replied|responded|answered|confirmed|arrived|gotten back|got back|"
    r"heard back|"
    r"called back|come back|showed up|ready)\b(?:[^.;]*\byet\b)?|"
    r"\b(?:out for delivery|in transit|as of today|give (?:it|me|us) a (?:minute|sec|second|moment|few minutes))\b|"
    r"\b(?:leaves|departs|arrives|lands|boards|starts|begins|kicks off) in (?:about |around )?"
    r"(?:\d+|a few|an|one|two|three) "
    r"(?:hours?|minutes?|mins)\b|"
    r"\b\d+ (?:more )?(?:minutes|mins|hours|seconds) (?:left|to go|more)\b|\b\d+ more (?:minutes|mins|hours)\b|"
    r"\b(?:is|are) (?:now |currently )?showing\b|\b(?:is|are) (?:currently |still |now )?being (?:generated|"
    r"processed|uploaded|built|exported|imported|indexed|deployed|rendered|transcribed|prepared|copied|synced|"
    r"migrated)\b|\bit'?s (?:raining|snowing|pouring)\b|\b(?:is|are) (?:down|broken|offline|flaky) again\b|"
    r"\b(?:is|are) (?:now )?at (?:about |around )?[\d,.]+ (?:unread|open|items|tickets|messages|emails|words|pages|"
    r"subscribers|followers)\b|\bepoch \d+\s*(?:/|of)\s*\d+\b|\b(?:is|are) (?:really |very |super )?slow today\b|"
    r"\bsaid (?:they|he|she)'d (?:get back|call|come|reply|send)\b|"
    r"\bno (?:confirmed \w+|confirmation|reply|answer|word) yet\b|"
    r"\bwill be (?:ready|done|back|there) (?:after|by|at|around) \d|\btoday'?s (?:shopping |to-?do |grocery )?list\b|"
    r"\blooks (?:mostly |partly )?(?:sunny|rainy|cloudy|windy|stormy|snowy|clear)\b|"
    r"\btraffic (?:looks|is) (?:heavy|light|bad)\b|"
    r"\b(?:i'm|i am) about to\b|\b(?:cell|step|page|file|batch|chunk|item|model|chapter|slide|question|"
    r"row) \d+ (?:of|/) \d+\b|"
    r"\byou have \d+ (?:open|unread|new|pending)\b|\bon this (?:laptop|box|machine)\b|"
    r"\bso far this (?:month|week|year)\b|"
    r"\b(?:comes|came) to (?:about |around )?[$\u20ac\u00a3]\s?\d|\bthat(?:'d| would) be about\b|"
    r"\bis in (?:about )?\d+ (?:minutes?|mins?|hours?)\b|\bjust (?:looking|checking|browsing)\W*$|"
    r"\.\.\.\s*\(\d+(?:\.\d+)?s\)\s*$|\bstill (?:says|shows)\b|"
    r"\bwe'?ve got (?:about )?(?:an|\d+) (?:hours?|minutes?)\b|\b\d+% battery\b|"
    r"\bnext (?:opening|available slot|slot)\b|\bjust (?:polishing|tidying|finishing|wrapping)\b|"
    r"^\W*grabbing (?:a )?(?:coffee|lunch|tea|snack)\b|^\W*your (?:cart|basket|inbox|queue) (?:has|contains)\b|"
    r"^\W*setting a (?:timer|reminder|alarm)\b|\bsorting (?:center|centre|facility)\b|\bat step \d+\b|"
    r"\bjust one (?:run|sample|try|attempt)\b|^\W*lemme\b|^\W*standing by\b|\battempt #?\d+\b|"
    r"\bi'?m on page \d+\b|\bno (?:root cause|fix|decision) yet\b|"
    r"\b(?:they|he|she)'ll (?:call|get|write|email|text) (?:back|me back|us back)\b|"
    r"\b(?:they|he|she)'ll (?:email|text|call|let (?:us|me|you) know) when\b|"
    # A step of the session after a comma: "..., restarting it", "..., triaging them one by one", "...; fixing."
    r"[,;]\s*(?:still\s+)?(?:looking|checking|investigating|digging in|triaging|going through|re-?running|retrying|"
    r"fixing|restarting|tracking|switching)(?:\s+(?:it|them|this|that|now|into it|down|one by one|it down|to \w+))*"
    r"\W*$|"
    r"[,;]\s*(?:now\s+)?(?:trying|forwarding|processing|printing|waiting|testing|reading|sorting|cleaning|merging|"
    r"monitoring|"
    r"reviewing|skimming|stopping|continuing|comparing|listing|watching|asking|taking a look|"
    r"looking (?:at|into)|checking (?:\w+ )?again)(?:\s+\S+){0,6}?\W*$|"
    r"\bback in \d+\b|^\W*lunch break\b|^\W*asking (?:before|because|since)\b|\bqueued behind\b|"
    r"\b(?:will be|'ll be) (?:ready|done|back|finished) in (?:about |around )?(?:an?|\d+|a few|one|two) "
    r"(?:hours?|minutes?|mins)\b|\b(?:is|are) (?:loading|running) (?:really |very |super )?slow(?:ly)?\b|"
    r"\b(?:than|as) yesterday\b|^\W*counting down\b|"
    r"^\W*just got off the phone\b|\btoo early to (?:call|tell|say)\b|"
    r"\u2014\s*(?:checking|looking|trying|asking)\b[^.]*\.?\s*$|"
    # Slow or lagging right now, due any moment: "Grafana is taking forever", "should finish around 17:30".
    r"\b(?:taking forever|lagging like crazy|is lagging|stuck (?:at|on) \d|(?:is|are) ramping up)|\bshortly\W*$|"
    r"\bshould take (?:about |around |roughly )?(?:\w+ )?(?:minutes?|hours?|seconds?|a while)\b|\bafter lunch\W*$|"
    r"\b\d+ (?:minutes?|mins?|stops?) (?:away|late|wait)\b|^\W*(?:reminder|alarm) set\b|"
    # Just happened, said by the clock or by someone: "escalated to tier 2 about an hour ago", "Azure says about 4
    # minutes", "Still 3 jobs ahead of ours", "stage 3 of 7", "for the next 30 min", "merging in a sec".
    r"\b(?:an?|\d+|a few|a couple of) (?:minutes?|mins?|hours?) ago\b|"
    r"\b(?:says|said) (?:about |around |maybe |roughly )?\d+ (?:more )?(?:minutes?|mins?)\b|^\W*still \d+\b|"
    r"\bstage \d+ (?:of|/) \d+\b|\bfor the next (?:\d+|few|couple of) (?:min|mins|minutes|hours?)\b|\bin a sec\b|"
    r"\b(?:this (?:week|month|year)|today) so far\b|\blocal(?:ly)?\b[^.]{0,30}\bfor testing\W*$|"
    r"\bweather\b[^.]{0,40}\b(?:today|tomorrow|tonight|this (?:morning|afternoon|evening|weekend)|" + WEEKDAY + r")\b|"
    r"\b(?:is|are) (?:still )?(?:booting|rebooting|starting up|spinning up|warming up)\W*$|"
    r"\b(?:got|was|is) (?:cancel+ed|postponed|rescheduled) (?:today|tonight|this (?:morning|afternoon|week))\b|"
    r"\b(?:today|this morning|this afternoon|tonight)\b[^.]{0,40}\b(?:was|is|shows|reads|showed|came to|comes to|"
    r"totall?ed) (?:about |around )?"
    r"[$\u20ac\u00a3]?\d|\bongoing\W*$|^\W*(?:lint|tests?|build|ci|typecheck|mypy|ruff|eslint)\s+(?:ok|green|red|"
    r"clean)\b|"
    r"^\W*note to self\s*:\s*(?:check|look|ask|call|try|remember to)\b|^\W*timer set\b|"
    r"\bshould (?:finish|be done|land|arrive|be ready|be back) (?:around|by|at|in|shortly|soon)\b|"
    r"\b(?:will (?:report back|update you|let you know|circle back|get back to you)|once i hear back)\b",
    re.IGNORECASE,
)
# A turn said in passing: "the weather here is gorgeous today lol", "Thanks so much for jumping in!".
_CASUAL = re.compile(
    r"\b(?:lol|lmao|rofl|haha\w*)\W*$|^\W*thanks? (?:so much|a lot|a ton) for\b|"
    r"^\W*(?:lol|lmao|rofl|omg|ngl|tbh|haha\w*|ooh+|aww+)\b|^\W*(?:sry|sorry),? running late\b|\bbe there in \d+\b|"
    r"\bsorry for the (?:inconvenience|trouble|delay|wait|confusion)\b|\bunderstand your frustration\b|"
    r"^\W*that'?s a tough call\b|^\W*that'?s a (?:fair|good|great|valid) point\b|^\W*on it\W*$|"
    r"\bworks on my machine\b|\bif that helps\W*$|^\W*that makes sense\b|"
    r"\bthanks for clarifying\b|^\W*quick (?:conversion|math|calculation)\s*:|"
    r"^\W*(?:happy birthday|happy (?:monday|tuesday|wednesday|thursday|friday|weekend)|congrat\w*|ahh?,? such a)\b|"
    r"^\W*that'?s (?:so )?(?:frustrating|annoying|rough|tough|a shame)\b|^\W*(?:a |my )?(?:first|rough|quick) "
    r"(?:pass|draft|cut|stab) at\b|\bsorry (?:to hear|you(?:'re| are) (?:dealing|going through))\b|"
    r"^\W*have (?:fun|a (?:great|good|nice|lovely|safe|wonderful) (?:time|trip|day|evening|weekend|flight|holiday))\b|"
    r"^\W*that'?s (?:a |such a )?(?:really |very )?(?:great|good|thoughtful|nice|lovely|clever|smart|sweet) "
    r"(?:idea|question|point|choice|plan|gift(?: idea)?|pick)\b|\bif you(?:'re| are) interested\W*$",
    re.IGNORECASE,
)
_UNSURE = re.compile(
    r"\bnot (?:100% )?(?:sure|certain)\b|\bno idea\b|\bopen question\b|"
    r"\bjust a (?:guess|hunch|ballpark|rough estimate)\b|\bidk\b|"
    r"\b(?:perhaps|maybe) not\b|\beither (?:could|would|one would|one could) work\b|"
    r"\beither (?:option|one|way) (?:seems|is|would be|could be) fine\b|"
    r"\b(?:don't|do not) know (?:yet )?(?:whether|if)\b|^\W*(?:odd|weird|strange|curious|huh)\W*$",
    re.IGNORECASE,
)
_PLAN = re.compile(
    r"^\W*plan:|^\W*(?:todo|to-do|fixme|next steps?|i(?:'ll| will| am going to|'m going to)|going to|"
    r"will (?:now |then |next |also )?(?:revisit|look|fix|update|do|check|try|add|ping|run|push|write|finish|call|"
    r"profile|investigate|debug|print|re-?check|"
    r"ask|email|text|follow up)|next(?=\s*:)|(?:right,? )?(?:so )?the plan for (?:today|now|this afternoon|tonight)\b|"
    r"(?:we|i) should (?:probably|maybe)|later,?|tomorrow)\b",
    re.IGNORECASE,
)
_LET_ME_KNOW = re.compile(r"^\W*let me know\b", re.IGNORECASE)
_WH_CLAUSE = re.compile(r"\b(?:why|how|what|whether|where|which|if)\b", re.IGNORECASE)
# Asking which the person prefers is a question, not their preference: "Which color do you prefer, sage or cream?".
_ASKS_THEIR_CHOICE = re.compile(
    r"^\W*(?:(?:which|what) (?:\w+ )?(?:do|would|should) you|(?:do|would) you (?:prefer|like|want|rather)|"
    r"so,? you (?:want|need|mean|'d like|would like))\b|"
    r"\bwhich\b[^?]{0,40}\byou (?:prefer|preferred|like|liked|want)\b|"
    r"^\W*(?:maybe|perhaps) (?:we|i) (?:could|should)\b|\bif you'?d rather\b",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^\W*(?:what|why|how|when|where|which|who|whom|whose|is|are|was|were|do|does|did|can|could|should|would|"
    r"will|shall|may|might|have|has|had)\b",
    re.IGNORECASE,
)
# A text that states something durable keeps its place even when it starts like chatter.
_DURABLE_SIGNAL = re.compile(
    # "don't" gives a rule ("don't force-push"), not a doubt ("I don't know yet whether the retries are idempotent").
    r"\b(?:because|so that|(?<!say )otherwise|never|always|must|instead of|rather than|"
    r"(?:do not|don't)(?!\s+(?:know|see|think|remember|hear|match|seem)\b)|prefer|prefers|preferred|the hard way|"
    r"settled on|"
    # A standing arrangement: "a standing tennis game with Ben every Wednesday at 7am".
    r"for good|every (?:single )?time|every (?:day|week|month|year|morning|evening|night|weekday|weekend|"
    + WEEKDAY
    + r")|standing (?:meeting|game|appointment|order|call|reservation)|"
    r"(?:that's|is) final|"
    # Said to be worth keeping: "I think it's worth remembering: ...", "I should mention: ...", "For the record, ...".
    r"worth (?:remembering|knowing|noting|mentioning|keeping)|(?:should|want to|wanted to) mention|for the record|"
    # A lesson ("I think I finally figured out that coffee after 2pm wrecks my sleep"), a stated rule ("Budget rule:
    # ..."), a preference said with "rather" ("I'd rather pay a bit more for refundable rates").
    r"(?:figured|found) out that|annually|yearly|once a year|permanently|"
    r"(?:needs?|requires?) (?:my|our|their|his|her) (?:review|approval|sign-?off|ok)|(?:learned|learnt|realized|"
    r"realised) that|rule(?=\s*:)|(?:i|we)(?:'d| would) rather|"
    r"decided|decision|agreed|chose|gotcha|careful|watch out|requires?|only (?:when|if|on)|"
    r"for future (?:reference|sessions?)|going forward|from now on|"
    # A stated taste is a preference, not narration: "I like short commit messages".
    r"(?:i|we|the user|they|he|she) (?:really )?(?:likes?|dislikes?|hates?|loves?|avoids?))\b",
    re.IGNORECASE,
)
# What was tried and given up is a lesson for every later session, however it starts ("We tried SQLite for tests and
# gave up; it masks Postgres-specific bugs"); so is what was weighed and chosen.
_LESSON = re.compile(
    r"\btried\b[^.;]{0,80}\b(?:and|but)\s+(?:then\s+)?(?:gave up|abandoned|dropped it|reverted|switched back|went "
    r"back|moved back|rolled back|it (?:didn'?t|did not|never) work(?:ed)?)\b|"
    # What was weighed and chosen is a decision, however it starts ("We reviewed the options and picked cursor
    # pagination for the public API").
    r"\b(?:and|then)\s+(?:picked|chose|settled on|went with|decided|agreed)\b|"
    # An agreement of the day is a decision: "Today we agreed: the app drops Android 8 in the next major".
    r"\b(?:we|i|they|the team) (?:agreed|decided|chose|settled on)\b",
    re.IGNORECASE,
)
_STACK_LINE = re.compile(r"^\s+(?:at [\w.$<>/]+\s*\(.*\)|File \".*\", line \d+)", re.MULTILINE)
# A log level opens a log line when a separator follows it ("ERROR: ...", "[INFO] ...", "WARN - ..."); joined to a
# word it is a compound ("Debug-level log lines are dropped") in a sentence.
_LOG_LINE = re.compile(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d|\[?\d{2}:\d{2}:\d{2}|\[?(?:DEBUG|INFO|WARN|WARNING|ERROR|TRACE|FATAL|"
    r"CRITICAL)\b\]?\s*(?:[:\[]|-(?!\w))|npm (?:WARN|ERR!)|(?:FAILED|PASSED|ERROR) [\w/.-]+::|=+ .*\b(?:passed|failed|"
    r"error)s?\b.* =+$|HTTP/\d(?:\.\d)? \d{3}\b|Successfully (?:installed|built|tagged)\b|error(?:\[E\d+\])?: |"
    r"warning: |fatal: |exit (?:code|status) \d+$|On branch \S+$|Process finished with exit code|"
    r"(?:real|user|sys)\s+\d+m[\d.]+s$|commit [0-9a-f]{7,40}\b|"
    r"(?:DEBUG|INFO|WARN|WARNING|ERROR|TRACE|FATAL|CRITICAL)\s+\d{4}-\d{2}-\d{2}|(?-i:WARN|ERROR|INFO)\s{2,}\S|"
    r"[1-5]\d\d (?:Service Unavailable|Bad Gateway|Not Found|Internal Server Error|Gateway Timeout|Forbidden|"
    r"Unauthorized|Too Many Requests)\b|an error occurred \(\w+\) when calling\b|"
    r"\S+\s{2,}(?-i:Running|Pending|CrashLoopBackOff|Completed|Terminating|ContainerCreating)\b|"
    # A test runner's and a tool's own lines: " PASS  src/Button.test.tsx", "[INFO] 2024-06-02 ...", "psql: error: ...".
    r"(?-i:PASS|FAIL)\s+\S+\.[a-z]{2,4}\b|\[(?:DEBUG|INFO|WARN|WARNING|ERROR|TRACE|FATAL|CRITICAL)\]\s|"
    r"[\w.-]+: (?:error|fatal|warning): |\d+ packages? (?:is|are) looking for funding|"
    # A table's header row: "NAME   READY   STATUS   RESTARTS   AGE".
    r"(?-i:[A-Z][A-Z_-]+(?: {2,}[A-Z][A-Z_-]+){2,})\s*$|"
    # An error as a compiler or a runtime prints it: "ModuleNotFoundError: No module named ...", "main.c:17:5:
    # warning: ...", "src/App.tsx(14,7): error TS2322: ..." ("KeyError: 'user' means the session expired" explains).
    r"(?![^\n]*\b(?:means|happens|when|if|because|caused by)\b)(?:[\w.]+(?:Error|Exception)\b:|"
    r"exception in thread\b|thread \d+: fatal error\b|thread '[^']*' panicked\b|error from server\b|"
    r"database error in\b|hardfault at\b|segmentation fault\b|cuda out of memory\b|failed password for\b|"
    r"[\w./-]+(?::\d+){1,2}:\s*(?:error|warning|note)\b|[\w./-]+\(\d+,\d+\):\s*(?:error|warning)\b))",
    re.IGNORECASE,
)
_PROMPT = re.compile(
    r"^\s*(?:\$|>>>|>(?=\s+(?:curl|git|npm|pip|python3?|cargo|make|docker|kubectl|ls|cat)\b)|PS [A-Z]:\\[^>]*>|"
    r"[\w.-]+@[\w.-]+:[^$#]*[$#])\s+\S",
    re.MULTILINE,
)
_IMPERATIVE = re.compile(r"^\W*(?:use|prefer|avoid|never|always|no|keep|run|don't|do not)\b", re.IGNORECASE)
# A person's standing instruction opens on the verb it asks for ("Rotate the staging keys after anyone leaves; I'll
# tell you when", "Merge only after CI is green"): what follows it (a first-person clause, a status word) is the
# person's, not the session's. An agent's narration reports or plans its own steps; it does not open on a command.
_INSTRUCTION = re.compile(
    r"^\W*(?:please\s+)?(?:use|prefer|avoid|never|always|keep|run|don't|do not|rotate|merge|invite|revoke|send|email|"
    r"ask|make sure|ensure|pin|deploy|notify|escalate|route|grant|restrict|encrypt|require|squash|rebase|prefix|"
    r"document|tag|name|store|write|put|follow|stick|mention|explain|tell|report|reply|respond|limit|schedule|"
    r"cc|copy|forward|post|announce|backport|release|publish|sign|lock|never ever)\b"
    r"(?!\s+(?:up|the tests? again|conflicts?|requests? #?\d)\b)"  # "Merge conflict in ...": a noun, no order
    r"(?![^:.]{0,30}:\s)",  # a heading ("Deploy to staging: in progress") is no instruction
    re.IGNORECASE,
)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


# Japanese, Chinese and Korean write a sentence with few or no spaces: "経費精算の締め切りは毎月25日です。" is one
# run of letters. Two of their characters carry about what one English word does.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def word_count(text: str) -> int:
    return len(words(text)) + len(_CJK.findall(text)) // 2


# A title or a Latin abbreviation ends with a dot and no sentence: "Your appointment with Dr. Patel is at 9:15".
_TITLES = ("Dr.", "Mr.", "Ms.", "Mrs.", "Prof.", "St.", "vs.", "e.g.", "i.e.", "approx.", "ca.", "Nr.", "bzw.", "z.B.")
_ABBREVIATION = "".join(rf"(?<!\b{re.escape(word)})" for word in _TITLES)
# "im 2. Stock", "am 3. Mai": a German ordinal ends no sentence either.
_SENTENCE_END = re.compile(rf"(?<=[.!?]){_ABBREVIATION}(?<!\s\d\.)(?<!\s\d\d\.)\s+|\n+")


def _sentences(text: str) -> list[str]:
    # A run of emoji or marks after the last sentence ("Alright, thanks! 🙏") says nothing of its own.
    return [s for s in _SENTENCE_END.split(text.strip()) if _WORD.search(s)]


def _is_question(text: str) -> bool:
    """Every sentence asks: "Should we use Redis for this?" A fact that mentions a question does not."""
    sentences = _sentences(text)
    asks = [
        s.rstrip().endswith("?") or (_QUESTION_START.match(s) and not re.search(r"[.:;]$", s.strip()))
        for s in sentences
    ]
    return bool(sentences) and "?" in text and all(asks)


def noise_reason(text: str, *, vector: np.ndarray | None = None, model_id: str = "") -> str | None:
    """Why `text` is not a fact worth keeping, or None: the rules, and the chatter head where the text's `vector` (of
    the model `model_id`) is at hand; no LLM."""
    return _with_head(text, noise_verdict(text), vector, model_id)[0]


# Refusals by what a text is (code, a trace, output, a question, a fragment), which no reading of its meaning
# overturns; every other refusal is a guess about how a fact would be phrased.
_BY_FORM = ("code pasted", "stack trace", "command output", "log output", "timestamp", "too short", "question")


def head_may_overturn(reason: str) -> bool:
    """May the chatter head keep a text the rules refused for `reason` (a guess about its phrasing)? Not a refusal by
    form, nor one in another language: the head reads the English model's vectors, which say little of a German or a
    Polish turn."""
    return not any(mark in reason for mark in _BY_FORM) and READ_BY_ITS_WORDS not in reason


def _with_head(
    text: str, verdict: tuple[str | None, bool], vector: np.ndarray | None, model_id: str
) -> tuple[str | None, bool]:
    """The rules' (reason, sure), with the chatter head's reading where they guessed by phrasing: a text they keep
    and the head reads as chatter is refused, a text they refuse by phrasing and the head reads as a fact is kept;
    both unsurely. A text the rules are sure to keep (it carries a mark of a durable fact) asks more of the head."""
    reason, sure = verdict
    # The head reads the bundled English model's vectors: silent for a text in a script of its own, and for one
    # whose other language marks it as lasting ("Sou alérgica a dipirona").
    if vector is None or in_its_own_script(text) or lasting_in_other_languages(text):
        return verdict
    if reason is None and reads_as_chatter(text, vector, model_id=model_id, marked_durable=sure):
        return chatter_head.REASON, False
    if reason is not None and head_may_overturn(reason) and reads_as_fact(text, vector, model_id=model_id):
        return None, False
    return verdict


_SOFT = ("narrates the session", "session log", "status or progress", "plan for later")


def noise_verdict(text: str) -> tuple[str | None, bool]:
    """(why it is noise or None, whether the rules are sure). Unsure: a soft refusal of a long text, or a kept
    text with nothing that marks it as durable and no category the gate can name."""
    reason = _rules(text)
    count = word_count(text)
    if reason is not None:
        return reason, not (any(mark in reason for mark in _SOFT) and count >= 14)
    return None, bool(_DURABLE_SIGNAL.search(text)) or bool(guess_category(text)) or count >= 14


def judge_noise(text: str, *, vector: np.ndarray | None = None, model_id: str = "") -> str | None:
    """The rules' verdict, with the configured LLM (when MEMORYHUB_GATE_LLM_JUDGE is on) deciding the cases the
    rules are unsure of. No answer from the judge leaves the rules' verdict standing. With the write's `vector`, a
    text the rules keep and the chatter head reads as chatter is refused, unless the LLM says it is durable."""
    reason, sure = _with_head(text, noise_verdict(text), vector, model_id)
    if sure:
        return reason
    answer = ask_llm_about_noise(text)
    if answer is None:
        return reason
    durable, why = answer
    if durable:
        return None
    detail = f" ({why[:160]})" if why else ""
    return reason or f"it reads as noise, not a lasting fact{detail}; store what will still be true later"


_SESSION_LOG = (
    "it reads like a session log or diary entry (a summary of work done); store the lasting fact, decision or "
    "gotcha instead (true on its own, without 'today I...')"
)


_LATER_PLAN = "it is a plan for later, not a fact; store what was decided or learned when it is done"


def _chatter(sentence: str) -> str | None:
    """Why one sentence is chatter (narration, status, acknowledgement, thinking aloud, a question, a plan), or
    None when it states something."""
    durable = bool(_DURABLE_SIGNAL.search(sentence) or _INSTRUCTION.match(sentence))
    asks = _ASKS_THEIR_CHOICE.search(sentence)
    if (sentence.rstrip().endswith(("?", "\uff1f")) and (not durable or asks)) or (
        asks and _LET_ME_KNOW.match(sentence)
    ):
        return "it is a question, not a fact; store the answer once you know it"
    if durable:
        return None
    other = chatter_in_other_languages(sentence)
    if other:
        return other
    if _work_report(sentence):
        return _SESSION_LOG
    if _FIRST_PERSON.match(sentence) and _FIRST_PERSON_NARRATION.match(sentence):
        return (
            "it narrates the session in the first person; store the lasting fact, decision or gotcha instead "
            "(true on its own, for any agent reading it later)"
        )
    # "Looking into why the dashboard is slow": the verb after "why" is the clause's, not the sentence's.
    gerund = _GERUND_START.match(sentence) and not FINITE_VERB.search(_WH_CLAUSE.split(sentence, maxsplit=1)[0])
    if _STATUS.match(sentence) or _PROGRESS.search(sentence) or gerund:
        return "it is a status or progress note, not a fact; store what you learned that will still be true later"
    if _RIGHT_NOW.search(sentence):
        return "it is a status or progress note, not a fact; store what you learned that will still be true later"
    if (_ACK.match(sentence) and len(words(sentence)) <= 8) or _CASUAL.search(sentence):
        return "it is an acknowledgement or greeting, not a fact"
    if _THINKING.match(sentence) or _UNSURE.search(sentence):
        return "it is thinking aloud, not a fact; store the conclusion once you have one"
    if _is_question(sentence):
        return "it is a question, not a fact; store the answer once you know it"
    if _PLAN.match(sentence) or _LATER.search(sentence):
        return _LATER_PLAN
    return None


def _rules(text: str) -> str | None:
    stripped = text.strip()
    lines = [line for line in stripped.splitlines() if line.strip()]
    durable = bool(_DURABLE_SIGNAL.search(stripped) or _INSTRUCTION.match(stripped))
    if "Traceback (most recent call last)" in stripped or len(_STACK_LINE.findall(stripped)) >= 2:
        return "it is a stack trace, not a fact; store what you learned from it (the cause and the fix)"
    if _PROMPT.match(lines[0]) and len(lines) >= 2:
        return "it is command output, not a fact; store what the command tells you, in a sentence"
    short = len(words(_TIMESTAMP.sub(" ", stripped))) < settings.MEMORYHUB_GATE_MIN_WORDS
    if short and _TIMESTAMP.search(stripped) and not _DATED.search(stripped):
        return "it is a timestamp, not a fact"
    log_lines = sum(bool(_LOG_LINE.match(line)) for line in lines)
    if log_lines and log_lines * 2 >= len(lines) and not (durable and len(words(stripped)) >= 8):
        return "it is log output or command output, not a fact; store what it tells you (cause, fix) in a sentence"
    if re.match(r"^On branch \S+\n", stripped) or re.search(r"npm ERR!|^fatal:", stripped, re.M) and len(lines) >= 3:
        return "it is command output, not a fact; store what the command tells you, in a sentence"
    if _DIARY.search(stripped) and not _LESSON.search(stripped):
        return _SESSION_LOG
    plan = (
        r"^\W*(?:(?:draft|rough|the|my|our) )?"
        r"(?:plan|todo|to-do|next steps?|here'?s (?:my plan|what i(?:'ll| will) do)|"
        r"today|tomorrow|tonight|this week|next up)\s*:"
    )
    if re.match(plan, stripped, re.IGNORECASE) and not durable:
        return _LATER_PLAN
    # Chatter is refused when every sentence is chatter: "Great question! Let me explain..." is; "Thanks! The
    # API listens on 8080." states a fact and is kept.
    reasons = [_chatter(sentence) for sentence in _sentences(stripped)]
    if reasons and all(reasons):
        return reasons[0]
    # What coding agents say in their own turns (pasted code, status read-outs, narration): memories/chatter.py.
    reason = agent_chatter(stripped, durable=durable, judge=_chatter, sentences=_sentences)
    if reason:
        return reason
    count = word_count(stripped)
    # "我对芒果过敏。" (allergic to mango) is seven characters: one of these scripts' characters counts twice.
    chars = len(stripped) + len(_CJK.findall(stripped))
    short = chars < settings.MEMORYHUB_GATE_MIN_CHARS or count < settings.MEMORYHUB_GATE_MIN_WORDS
    # "Use pnpm." is a whole preference: short imperatives and contrasts are kept.
    if short and not (count >= 2 and (_IMPERATIVE.match(stripped) or re.search(r"\bnot\b|,", stripped))):
        return (
            f"it is too short to be a fact ({count} word{'s' if count != 1 else ''}); write a sentence that is "
            "true on its own"
        )
    return None
