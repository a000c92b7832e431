"""The attributes a fact can state, named by the words people use for each ("lives in", "moved to", "based in" all
state where someone lives). Two facts that name the same attribute with different values are one attribute's old
and new value, however differently they are worded: "The user lives in Lisbon." / "The user moved to Porto.",
"Payments go through Stripe." / "We've gone with Adyen as the payment processor.".

The update rules read these where the sentences share too few words to see it (`updates._same_attribute`, for a
link an earlier release made). The table holds the attributes a developer's or a team's memories state most, each
by words that name it; and the kinds of quantity (a duration, a size, a price, a time of day, how often), whose
words are the values themselves.
"""

from __future__ import annotations

import re

from memoryhub.memories.times import times_of_day

# attribute: the words (regular expressions, any case) that name it.
# fmt: off
_NAMED_BY: dict[str, tuple[str, ...]] = {
    "residence": (r"\blives? in\b", r"\bliving in\b", r"\bbased in\b", r"\bmoved to\b", r"\brelocat\w+",
                  r"\bresides?\b", r"\bhome (?:town|city)\b"),
    "employer": (r"\bworks? (?:at|for)\b", r"\bworking (?:at|for)\b", r"\bemployer\b", r"\bemployed\b",
                 r"\b(?:new|current|day) job\b", r"\bjob at\b", r"\bjoined(?= (?-i:[A-Z]))"),
    "owner": (r"\bowns?\b", r"\bowned by\b", r"\bowner(?:ship)?\b", r"\bmaintainer\b", r"\bmaintained by\b",
              r"\bin charge of\b", r"\bresponsible for\b", r"\bhanded (?:\w+ )*over to\b", r"\btook over\b",
              r"\btaken over\b"),
    "lead": (r"\blead\b(?! to)", r"\bled by\b", r"\bleads the\b", r"\bheads (?:up )?the\b"),
    "manager": (r"\breports? to\b", r"\bmanager is\b", r"\bmanaged by\b", r"\bnew manager\b"),
    "sign-off": (r"\bsigns? ?-?off\b", r"\bsigned off by\b"),
    "approval": (r"\bapprov(?:al|als|er|ers)\b",),
    "on call": (r"\bon[- ]call\b", r"\bpager\b"),
    "editor": (r"\beditor\b", r"\bide\b"),
    "computer": (r"\blaptop\b", r"\bwork machine\b", r"\bworkstation\b", r"\bcomputer\b", r"\bdevelops on\b"),
    "shell": (r"\bshell\b",),
    "written in": (r"\b(?:re)?written in\b", r"\bimplemented in\b", r"\bprogramming language\b", r"\brewrote\b",
                   r"\bported to\b"),
    "payments": (r"\bpayments?\b", r"\bpayment (?:processor|provider|gateway)\b", r"\bpsp\b", r"\bacquirer\b"),
    "orchestration": (r"\borchestrat\w+", r"\bscheduler\b"),
    "deployment": (r"\bdeploy(?:s|ed|ment)?\b", r"\bgitops\b", r"\bcontinuous delivery\b"),
    "hosting": (r"\bhosted (?:on|at|by|with)\b", r"\bhosting\b", r"\bhosts? (?:on|at|with)\b"),
    "region": (r"\b(?:us|eu|ap|ca|sa|me|af)-[a-z]+-\d\b", r"\bregion\b"),
    "indentation": (r"\bindent\w*", r"\b\d+-space\b"),
    "line length": (r"\bline length\b", r"\b\d+-col(?:umn)?s?\b", r"\bcolumn limit\b"),
    "commit messages": (r"\bcommit messages?\b",),
    "config file": (r"\bconfig(?:uration)? (?:file|from|in|at|lives)\b", r"\bits config\b", r"\bconfig is\b"),
    "package manager": (r"\bpackage manager\b",),
    "time zone": (r"\btime ?zone\b",),
    "analytics": (r"\banalytics\b",),
    "error tracking": (r"\berror (?:tracking|reporting|monitoring)\b", r"\berrors (?:go|are sent|are reported) to\b",
                       r"\bcrash reporting\b"),
    "email provider": (r"\b(?:transactional )?emails? (?:go|are sent|provider|service)\b", r"\bemail provider\b"),
    "threshold": (r"\bthreshold\b", r"\bkicks in\b"),
    "test runner": (r"\btest (?:runner|framework)\b", r"\btests (?:run|are run|are written) (?:with|in|on)\b"),
    "linter": (r"\blint(?:er|ing|ed)?\b", r"\bformatter\b", r"\bformatted with\b"),
    "bundler": (r"\bbundler\b", r"\bbundled (?:with|by)\b", r"\bbundles with\b", r"\bbuild tool\b",
                r"\bbuild uses\b"),
    "monitoring": (r"\bmonitor(?:ing|ed)\b", r"\bmetrics (?:go|are sent|are shipped) to\b", r"\bobservability\b"),
    "logging": (r"\blogs (?:go|are sent|are shipped|end up) (?:to|in)\b", r"\blog (?:aggregation|shipping)\b"),
    "feature flags": (r"\bfeature flags?\b", r"\bflags? (?:service|provider)\b"),
    "feature store": (r"\bfeature store\b", r"\bfeatures from\b"),
    "model serving": (r"\bserves? the (?:\w+ )?model\b", r"\binference\b", r"\bmodel serving\b"),
    "gpu": (r"\bgpus?\b",),
    "search engine": (r"\bsearch (?:is powered by|runs on|engine|backend)\b", r"\bpowers? (?:the )?search\b"),
    "message broker": (r"\bmessage (?:broker|bus|queue)\b", r"\bbroker\b", r"\bevent bus\b"),
    "identity provider": (r"\b(?:sso|single sign-on|identity provider|idp|auth provider)\b",
                          r"\blog(?:s)? ?in (?:with|via|through)\b"),
    "cdn": (r"\bcdn\b",),
    "secrets store": (r"\bsecrets (?:are )?(?:stored|kept|managed|live) in\b", r"\bsecrets? manager\b"),
    "docs site": (r"\bdocs\b", r"\bdocumentation\b"),
    "issue tracker": (r"\bissue tracker\b", r"\b(?:issues|tickets|bugs) (?:are )?(?:tracked|filed|logged) in\b"),
    "ads": (r"\bads\b", r"\bad (?:mediation|network|provider)\b"),
    "release cadence": (r"\brelease cadence\b", r"\breleases? (?:ship|go out|happen|are cut)\b",
                        r"\breleased every\b"),
    "deadline": (r"\bdeadline\b", r"\blaunch date\b", r"\brelease date\b", r"\bdue (?:on|by)\b"),
    "retention": (r"\bretention\b", r"\bretained for\b", r"\bkept for\b"),
    "default branch": (r"\b(?:default|main|release) branch\b",),
    "license": (r"\blicen[cs]ed? (?:under|as)\b", r"\blicen[cs]e is\b"),
    "email address": (r"\bemail address\b", r"\bemail is\b"),
    "phone number": (r"\bphone number\b", r"\bphone is\b"),
    "font": (r"\bfont\b", r"\btypeface\b"),
    "theme": (r"\b(?:colou?r )?theme\b", r"\bcolou?r scheme\b"),
    "operating system": (r"\boperating system\b", r"\bdaily driver\b"),
    "standup": (r"\bstand-?ups?\b",),
    # Kinds of quantity (`QUANTITIES`).
    "a duration": (r"\b(?:\d[\d.,]*|an?|one|two|three|four|five|six|ten|twelve)[ -]?(?:secs?|seconds?|ms|"
                   r"milliseconds?|mins?|minutes?|hrs?|hours?|days?|weeks?|months?|years?)\b",),
    "a size": (r"\b\d[\d.,]*\s?(?:kb|mb|gb|tb|kib|mib|gib|tib|bytes)\b",),
    "a share": (r"\b\d[\d.,]*\s?(?:%|percent\b)",),
    "a price": (r"[$€£]\s?\d", r"\b\d[\d.,]*\s?(?:dollars|euros|pounds|usd|eur)\b"),
    "a time of day": (r"\b\d{1,2}h\d\d\b",),
    "how often": (r"\b(?:hourly|daily|nightly|weekly|fortnightly|monthly|quarterly|yearly|annually)\b",
                  r"\bevery (?:\d+ )?(?:day|night|week|month|hour|morning|evening|minute)s?\b"),
}
# fmt: on
# The kinds of quantity: their words are the values themselves, never what the two texts are about.
QUANTITIES = frozenset({"a duration", "a size", "a share", "a price", "a time of day", "how often"})
# The attributes whose values are words that otherwise tell look-alikes apart (a language, a country): "written in
# Python" / "rewritten in Rust" is one service's language changed, not the Python and the Rust one; but "staging" /
# "production" beside them still makes two facts.
_LANGUAGES = "python javascript typescript java kotlin swift ruby elixir rust go golang php scala c# csharp"
_PLACES = """eu us uk ca apac emea latam europe european america american asia germany german france french spain
spanish italy italian canada canadian australia australian japan japanese"""
QUALIFIER_VALUED = {"written in": frozenset(_LANGUAGES.split()), "residence": frozenset(_PLACES.split())}
_PATTERNS = {name: re.compile("|".join(words), re.IGNORECASE) for name, words in _NAMED_BY.items()}


def attributes_named(text: str) -> frozenset[str]:
    """The attributes of the table that `text` names."""
    text = times_of_day(text)
    return frozenset(name for name, pattern in _PATTERNS.items() if pattern.search(text))


# Words of a quantity rather than of what it is a quantity of: numbers, units, zones, "per", "after".
_QUANTITY_WORD = re.compile(
    r"\d|^(?:secs?|seconds?|ms|mins?|minutes?|hrs?|hours?|days?|weeks?|months?|years?|kb|mb|gb|tb|percent|dollars?|"
    r"euros?|utc|gmt|per|after|within|every)$"
)


def quantity_word(word: str) -> bool:
    """Is `word` (lower-cased, as the update rules compare it) part of a quantity rather than of what it measures?"""
    return bool(_QUANTITY_WORD.search(word))


def naming_words(text: str) -> frozenset[str]:
    """The lower-cased words of `text` that name an attribute of the table ("lives", "in"; "payment", "provider");
    a quantity's words are its value, not its name, and are not among them."""
    text = times_of_day(text)
    return frozenset(
        word.lower()
        for name, pattern in _PATTERNS.items()
        if name not in QUANTITIES
        for match in pattern.finditer(text)
        for word in match.group(0).split()
    )
