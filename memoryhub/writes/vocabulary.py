"""Words the noise rules (`noise`, `chatter`, `session_voice`) share, each list in one place.

- DONE_VERB: a report of work done, in the past tense with no subject ("Fixed the failing test", "Re-ran the
  suite"): a step of the session whatever it acted on.
- CHANGE_VERB: a change to how things are ("Moved the dashboards into the gitops repo", "Added a read replica"),
  a fact or a step of the session by what it changed (`chatter.session_step`).
- FINITE_VERB: a finite verb of the kind a statement has ("uses", "must", "returns"): a sentence led by an -ing word
  is a statement when one follows ("Testing uses the real database"), progress when none does ("Trying another
  approach now").
"""

from __future__ import annotations

import re

_DONE_WORDS = (
    r"worked on|fixed|refactored|implemented|updated|ran|finished|completed|pushed|reviewed|wrote|cleaned up|"
    r"looked at|investigated|debugged|tested|tried|merged|opened|closed|resolved|applied|rewrote|rebased|re-?ran|"
    r"restarted|rebuilt|reloaded|redeployed|kicked off|regenerated|committed|reverted|patched|tweaked|cleaned|"
    r"reproduced|confirmed|verified|checked out|pulled|flashed|replied to|responded to|wrote back|escalated to|"
    r"went through|commented on|"
    # Participles that also name things ("Fetched data is cached", "Sent emails are archived"): a step only with
    # what they acted on after them ("Fetched 500 records", "Sent the invite").
    r"(?:fetched|uploaded|submitted|requested|saved|sent|converted|reformatted|reinstalled|cleared|purged|retried|"
    r"profiled|benchmarked|scanned|searched|skimmed|booked|downloaded|transferred|reordered|generated|drafted|counted|"
    r"flagged|reserved|exported|printed|emailed|texted|ordered|filed|acknowledged|escalated|triaged|tagged|"
    r"killed|forwarded|copied|queued|compared)(?=\s+\S*\.\w|\s+(?:the|a|an|all|my|your|our|it|them|some|\d+|two|three|four|five|six|several|both)\b)"
)
_CHANGE_WORDS = (
    r"moved|renamed|removed|replaced|bumped|changed|installed|configured|switched|dropped|split|extracted|wired|"
    r"hooked up|adjusted|restored|added|created|deployed|introduced|set up|started|began|deleted"
)
WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"  # lowercase: for IGNORECASE patterns
# What a person tries to do over months, not a step of the session: "I'm trying to avoid caffeine after 2 pm".
PERSONAL_GOAL = (
    r"trying to (?:avoid|cut|quit|stop|limit|reduce|eat|drink|sleep|save|lose|learn|walk|run|read|"
    r"keep (?:\w+ ){0,3}(?:under|below|within)|stay (?:under|below|within|off))\b"
)
DONE_VERB = re.compile(rf"^\W*(?:just )?(?:{_DONE_WORDS})\b", re.IGNORECASE)
CHANGE_VERB = re.compile(rf"^\W*(?:just )?(?:{_CHANGE_WORDS})\b", re.IGNORECASE)
CHANGE_VERBS = re.compile(rf"(?:{_CHANGE_WORDS})", re.IGNORECASE)  # the word alone, for fullmatch
FINITE_VERB = re.compile(
    r"\b(?:is|are|was|were|has|have|had|do|does|did|must|should|can|cannot|can't|could|would|will|won't|"
    r"may|might|needs?|uses?|requires?|takes?|runs?|goes|means|keeps|makes|gets|sets|breaks?|fails?|works?|locks|"
    r"returns|stores|lives|holds|sends|reads|writes|starts|stops|blocks|adds|costs|depends|expects|leaves|points|"
    r"triggers|causes|creates|lets|skips|ignores|belongs|comes?|happens|gives|hangs|crashes|wins|beats|helps)\b",
    re.IGNORECASE,
)
