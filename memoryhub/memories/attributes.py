"""The attributes a fact can state, named by the words people use for each ("lives in", "moved to", "based in" all
state where someone lives). Two facts that name the same attribute with different values are one attribute's old
and new value, however differently they are worded: "The user lives in Lisbon." / "The user moved to Porto.",
"Payments go through Stripe." / "We've gone with Adyen as the payment processor.".

The update rules read these where the sentences share too few words to see it (`updates._same_attribute`). The
table holds the attributes a developer's or a team's memories state most, each by words that name it and nothing
else; an attribute's words that also name other things (a database's version, host and backups) are left out.
"""

from __future__ import annotations

import re

# attribute: the words (as regular expressions over the lower-cased text) that name it.
_NAMED_BY: dict[str, tuple[str, ...]] = {
    "residence": (
        r"\blives? in\b",
        r"\bliving in\b",
        r"\bbased in\b",
        r"\bmoved to\b",
        r"\brelocat\w+",
        r"\bresides?\b",
        r"\bhome (?:town|city)\b",
    ),
    "employer": (
        r"\bworks? (?:at|for)\b",
        r"\bworking (?:at|for)\b",
        r"\bemployer\b",
        r"\bemployed\b",
        r"\b(?:new|current|day) job\b",
        r"\bjob at\b",
    ),
    "owner": (
        r"\bowns?\b",
        r"\bowned by\b",
        r"\bowner(?:ship)?\b",
        r"\bmaintainer\b",
        r"\bmaintained by\b",
        r"\bin charge of\b",
        r"\bresponsible for\b",
        r"\bhanded (?:\w+ )*over to\b",
        r"\btook over\b",
        r"\btaken over\b",
    ),
    "editor": (r"\beditor\b", r"\bide\b"),
    "computer": (r"\blaptop\b", r"\bwork machine\b", r"\bworkstation\b", r"\bcomputer\b"),
    "written in": (r"\b(?:re)?written in\b", r"\bimplemented in\b", r"\bprogramming language\b"),
    "payments": (r"\bpayments?\b", r"\bpayment (?:processor|provider|gateway)\b", r"\bpsp\b"),
    "orchestration": (r"\borchestrat\w+", r"\bscheduler\b"),
    "deployment": (r"\bdeploy(?:s|ed|ment)?\b", r"\bgitops\b", r"\bcontinuous delivery\b"),
    "hosting": (r"\bhosted (?:on|at|by|with)\b", r"\bhosting\b", r"\bhosts? (?:on|at|with)\b"),
    "indentation": (r"\bindent\w*", r"\btabs\b", r"\b\d+-space\b"),
    "config file": (r"\bconfig(?:uration)? (?:file|from|in|at|lives)\b", r"\bits config\b", r"\bconfig is\b"),
    "package manager": (r"\bpackage manager\b",),
    "shell": (r"\b(?:login |default )?shell\b",),
    "time zone": (r"\btime ?zone\b",),
    "analytics": (r"\banalytics\b",),
    "error tracking": (
        r"\berror (?:tracking|reporting|monitoring)\b",
        r"\berrors (?:go|are sent|are reported) to\b",
        r"\bcrash reporting\b",
    ),
    "email provider": (r"\b(?:transactional )?emails? (?:go|are sent|provider|service)\b", r"\bemail provider\b"),
    "on call": (r"\bon[- ]call\b", r"\bpager\b"),
    "threshold": (r"\bthreshold\b", r"\bkicks in\b"),
    "manager": (r"\breports? to\b", r"\b(?:line |engineering )?manager is\b", r"\bmanaged by\b", r"\bnew manager\b"),
    "lead": (r"\b(?:tech|team|project) lead\b", r"\bled by\b", r"\bleads the\b"),
    "test runner": (r"\btest (?:runner|framework)\b", r"\btests (?:run|are run|are written) (?:with|in|on)\b"),
    "linter": (r"\blint(?:er|ing|ed)?\b", r"\bformatter\b", r"\bformatted with\b"),
    "bundler": (r"\bbundler\b", r"\bbundled (?:with|by)\b", r"\bbuild tool\b"),
    "monitoring": (r"\bmonitor(?:ing|ed)\b", r"\bmetrics (?:go|are sent|are shipped) to\b", r"\bobservability\b"),
    "logging": (r"\blogs (?:go|are sent|are shipped|end up) (?:to|in)\b", r"\blog (?:aggregation|shipping)\b"),
    "feature flags": (r"\bfeature flags?\b", r"\bflags? (?:service|provider)\b"),
    "search engine": (r"\bsearch (?:is powered by|runs on|engine|backend)\b", r"\bpowers? (?:the )?search\b"),
    "message broker": (r"\bmessage (?:broker|bus|queue)\b", r"\bbroker\b", r"\bevent bus\b"),
    "identity provider": (
        r"\b(?:sso|single sign-on|identity provider|idp|auth provider)\b",
        r"\blog(?:s)? ?in (?:with|via|through)\b",
    ),
    "cdn": (r"\bcdn\b",),
    "secrets store": (r"\bsecrets (?:are )?(?:stored|kept|managed|live) in\b", r"\bsecrets? manager\b"),
    "docs site": (
        r"\bdocs (?:are )?(?:built|generated|hosted) (?:with|on|by)\b",
        r"\bdocumentation site\b",
        r"\bdocs site\b",
    ),
    "issue tracker": (r"\bissue tracker\b", r"\b(?:issues|tickets|bugs) (?:are )?(?:tracked|filed|logged) in\b"),
    "release cadence": (r"\brelease cadence\b", r"\breleases? (?:ship|go out|happen|are cut)\b", r"\breleased every\b"),
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
}
# The attributes whose values are what otherwise tells look-alikes apart (a language, a country): "written in Python"
# / "rewritten in Rust" is one service's language changed, not the Python and the Rust one.
QUALIFIER_VALUED = frozenset({"written in", "residence"})
_PATTERNS = {name: re.compile("|".join(words)) for name, words in _NAMED_BY.items()}


def attributes_named(text: str) -> frozenset[str]:
    """The attributes of the table that `text` names."""
    lower = text.lower()
    return frozenset(name for name, pattern in _PATTERNS.items() if pattern.search(lower))


def naming_words(text: str) -> frozenset[str]:
    """The lower-cased words of `text` that name an attribute of the table ("lives", "in"; "payment", "provider")."""
    lower = text.lower()
    return frozenset(
        word for pattern in _PATTERNS.values() for match in pattern.finditer(lower) for word in match.group(0).split()
    )
