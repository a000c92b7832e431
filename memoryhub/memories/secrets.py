"""Secret detection and redaction: what must never be stored, in a memory, its tags or metadata, history or log.

Two sources of rules, run together on every write:

- Yelp's detect-secrets (its regex plugins): token formats it keeps up to date as providers change them (GitLab,
  Slack, SendGrid, Twilio, Mailchimp, Discord, Telegram, Square, IBM, PyPI, npm `_authToken`, Artifactory...).
  Only its regex plugins are used: its keyword and entropy plugins are tuned for source files (quotes required,
  per file type) and its public-IP plugin flags addresses, which are not secrets.
- Our own rules where such libraries are weak: newer token formats (OpenAI project keys, Anthropic, Hugging
  Face, DigitalOcean, Heroku, npm `npm_`), whole private key blocks (the body, not only the header), JSON service
  account files, connection strings, `Authorization` headers, CLI flags (`-p`, `--password`, `docker login -p`),
  framework secret keys, `key=value` assignments judged by the value's entropy, and passwords said in plain
  language ("the prod database password is ...").

`find_secrets` answers (kind, start, end) spans; `redact` replaces every span (overlaps merged first) with
`[REDACTED <kind>, <n> chars]`. Kinds are names for people; the value itself is never repeated anywhere.

Labels (tags, metadata keys, the project, the source) are held to a stricter rule, `label_secret_kinds`: a label
names something, so a machine-made token or a password there is refused with no keyword beside it. `redact_label`
and `redact_shown` are the one way a label or a message about a value is shown or kept (error `fields` keys, the gate
log, usage records, 403 messages, the dashboard's messages).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from django.core.exceptions import ValidationError

from memoryhub.memories.sieve import Sieved, SievedList, sieved


class WriteRefused(ValidationError):
    """A write the store will not take as sent (a secret, noise, a blank project): the API answers 422, not 400.
    `kind` ("secret", "noise" or "") becomes the error code `rejected_<kind>`."""

    def __init__(self, message, *args, kind: str = "", **kwargs):
        super().__init__(message, *args, **kwargs)
        self.kind = kind


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int


# --- detect-secrets' regex plugins ---------------------------------------------------------------------------

# Plugin class name -> the kind we report. Plugins left out: KeywordDetector and the high-entropy detectors
# (file-type heuristics; our assignment rule below covers key=value), IPPublicDetector (an address is not a
# secret), JwtTokenDetector and PrivateKeyDetector (our rules span the whole token or block).
_PLUGIN_KINDS = {
    "ArtifactoryDetector": "Artifactory token",
    "AWSKeyDetector": "AWS access key",
    "AzureStorageKeyDetector": "Azure storage key",
    "BasicAuthDetector": "password in a URL",
    "CloudantDetector": "Cloudant credentials",
    "DiscordBotTokenDetector": "Discord bot token",
    "GitHubTokenDetector": "GitHub token",
    "GitLabTokenDetector": "GitLab token",
    "IbmCloudIamDetector": "IBM Cloud IAM key",
    "IbmCosHmacDetector": "IBM COS HMAC key",
    "MailchimpDetector": "Mailchimp key",
    "NpmDetector": "npm token",
    "OpenAIDetector": "OpenAI API key",
    "PypiTokenDetector": "PyPI token",
    "SendGridDetector": "SendGrid API key",
    "SlackDetector": "Slack token",
    "SoftlayerDetector": "SoftLayer key",
    "SquareOAuthDetector": "Square OAuth secret",
    "StripeDetector": "Stripe key",
    "TelegramBotTokenDetector": "Telegram bot token",
    "TwilioKeyDetector": "Twilio key",
}


@cache
def _library_patterns() -> tuple[tuple[str, Sieved], ...]:
    """(kind, pattern) from detect-secrets' regex plugins; empty if the library is missing (our rules remain)."""
    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class  # optional (below)
    except ImportError:  # pragma: no cover - requirements.txt pins it
        return ()
    patterns = []
    for plugin_class in get_mapping_from_secret_type_to_class().values():
        kind = _PLUGIN_KINDS.get(plugin_class.__name__)
        if kind is None:
            continue
        for pattern in plugin_class.denylist:
            patterns.append((kind, sieved(pattern)))
    return tuple(patterns)


# --- our rules -----------------------------------------------------------------------------------------------

_B = r"(?<![A-Za-z0-9_])"  # a token starts here (a word boundary that also treats "_" as part of the word)
_E = r"(?![A-Za-z0-9_])"
# (kind, pattern, group): group 0 redacts the whole match; a group number redacts only the value it holds.
_RULES: list[tuple[str, str, int]] = [
    ("private key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[^-\n]*-----|$)", 0),
    ("private key", r"PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC: *[0-9a-f]+|$)", 0),
    ("private key", r"\"private_key\"\s*:\s*\"(?:[^\"\\]|\\.){16,}\"", 0),
    ("GCP service account key", r"\"private_key_id\"\s*:\s*\"([0-9a-f]{32,})\"", 1),
    ("AWS access key", _B + r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}" + _E, 0),
    (
        "AWS secret key",
        r"(?i)aws[\w .-]{0,30}?(?:secret|private)[\w .-]{0,20}?(?:[=:]|\bis\b)\s*[\"'`]?"
        r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        1,
    ),
    ("AWS secret key", r"(?i)secret[_-]?access[_-]?key[\"']?\s*[=:]\s*[\"'`]?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])", 1),
    ("Azure storage key", r"(?i)AccountKey=([A-Za-z0-9+/]{40,}={0,2})", 1),
    ("Azure storage key", r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{86}==(?![A-Za-z0-9+/=])", 0),
    ("Azure SAS signature", r"(?i)[?&]sig=([A-Za-z0-9%+/=]{30,})", 1),
    ("Azure client secret", _B + r"[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}" + _E, 0),
    ("Google API key", _B + r"AIza[0-9A-Za-z_-]{35}", 0),
    ("Google OAuth secret", _B + r"GOCSPX-[A-Za-z0-9_-]{20,}", 0),
    ("Google OAuth token", _B + r"ya29\.[0-9A-Za-z_-]{20,}", 0),
    ("GitHub token", _B + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})", 0),
    ("GitLab token", _B + r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|oas|agent)-[A-Za-z0-9_-]{20,}", 0),
    ("npm token", _B + r"npm_[A-Za-z0-9]{36}" + _E, 0),
    ("npm token", r"(?i)_authToken\s*=\s*[\"']?([^\s\"']{8,})", 1),
    ("PyPI token", _B + r"pypi-AgE[A-Za-z0-9_-]{50,}", 0),
    ("Hugging Face token", _B + r"(?:hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z0-9]{30,})" + _E, 0),
    ("Stripe key", _B + r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}", 0),
    ("Stripe webhook secret", _B + r"whsec_[A-Za-z0-9+/=]{24,}", 0),
    ("SendGrid API key", _B + r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}", 0),
    ("Slack token", _B + r"xox[abposrce]-[A-Za-z0-9-]{10,}", 0),
    ("Slack token", _B + r"xapp-\d-[A-Za-z0-9-]{10,}", 0),
    ("Slack webhook URL", r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]{20,}", 0),
    ("Twilio key", _B + r"(?:SK|AC)[0-9a-fA-F]{32}" + _E, 0),
    ("Twilio key", r"(?i)twilio[\w .-]{0,30}?(?:token|secret|key)[\w .-]{0,10}?[=:\s]\s*[\"'`]?([0-9a-f]{32})" + _E, 1),
    ("Mailgun key", _B + r"key-[0-9a-zA-Z]{32}" + _E, 0),
    ("Mailgun key", _B + r"[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}" + _E, 0),
    # DigitalOcean documents 64 hex characters; the prefix alone is distinctive, so any length or case is caught.
    ("DigitalOcean token", _B + r"do[opr]_v1_[A-Za-z0-9]{32,}" + _E, 0),
    ("Django secret key", _B + r"django-insecure-[^\s\"'`]{20,}", 0),
    ("Heroku API key", _B + r"HRKU-[A-Za-z0-9_-]{20,}", 0),
    (
        "Heroku API key",
        r"(?i)heroku[\w .-]{0,30}?(?:key|token|auth)[\w .-]{0,10}?[=:\s]\s*[\"'`]?"
        r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})",
        1,
    ),
    ("Shopify token", _B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _E, 0),
    ("Linear API key", _B + r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}" + _E, 0),
    ("Postman API key", _B + r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}" + _E, 0),
    ("Anthropic API key", _B + r"sk-ant-[A-Za-z0-9_-]{20,}", 0),
    ("OpenAI API key", _B + r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}", 0),
    ("JWT", _B + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", 0),
    (
        "Authorization header",
        r"(?i)\b(?:proxy-)?authorization\b[\"']?\s*[:=]\s*[\"']?(?:basic|bearer|token|digest|apikey|sso-key)\s+"
        r"([A-Za-z0-9._~+/=:-]{8,})",
        1,
    ),
    ("bearer token", r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{16,})", 1),
    ("password on a command line", r"(?i)\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?\s-p([^\s\"'-][^\s\"']*)", 1),
    (
        "password on a command line",
        r"(?i)\b(?:docker|podman|nerdctl|helm|oras|buildah|skopeo)\s+(?:registry\s+)?login\b[^\n]*?"
        r"\s(?:-p|--password)(?:\s+|=)[\"']?([^\s\"']+)",
        1,
    ),
    ("password on a command line", r"(?i)\bsshpass\s+-p\s*[\"']?([^\s\"']+)", 1),
    (
        "password on a command line",
        r"(?i)(?<![\w-])--(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|auth-token)"
        r"(?:\s+|=)[\"']?([^\s\"'-][^\s\"']*)",
        1,
    ),
    ("password on a command line", r"(?i)\bcurl\b[^\n]*?\s(?:-u|--user)\s+[\"']?[^\s:\"']+:([^\s\"']+)", 1),
    ("password in a URL", r"(?i)\b[a-z][a-z0-9+.-]{0,20}://[^/\s:@\"']{0,200}:([^/\s@\"']+)@", 1),
]
# Sieved, as the library's are: a text holding none of the strings a rule needs is passed over (sieve.py).
_COMPILED_RULES = [(kind, sieved(re.compile(pattern)), group) for kind, pattern, group in _RULES]
_RULE_LIST = SievedList(_COMPILED_RULES, lambda rule: rule[1])


@cache
def _library_list() -> SievedList[tuple[str, Sieved]]:
    return SievedList(_library_patterns(), lambda rule: rule[1])


# Values that stand for a secret rather than being one: "${DB_PASSWORD}", "<token>", "os.environ[...]".
_PLACEHOLDER = re.compile(
    r"^(?:\$|\{|<|%|\*{3}|x{3,}|\.\.\.|os\.|env\b|process\.env|settings\.|config\.|getenv|secrets?\.|vault|none$|"
    r"null$|nil$|true$|false$|changeme$|password$|your[_-]|example|redacted|placeholder|dummy|test$|\[)",
    re.IGNORECASE,
)
_KEYWORD = (
    r"(?:password|passwd|pwd|passphrase|secret|secret[_-]?key(?:[_-]?base)?|api[_-]?key|apikey|"
    r"access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|client[_-]?secret|private[_-]?key|token|"
    r"app[_-]?key|credentials?|signing[_-]?key|encryption[_-]?key|master[_-]?key)"
)
# `KEY=value`, `"key": "value"`, `key: value`, `key => value` (shell, .env, JSON, YAML, Ruby, PHP).
_ASSIGNMENT = sieved(re.compile(r"(?i)(" + _KEYWORD + r")[\"']?\s*(?::=|=>|==?|:)\s*[\"'`]?([^\s\"'`,;]{4,})"))
# "the prod database password is hunter2-...", "token for the staging API: ..."
_PLAIN = sieved(
    re.compile(
        r"(?i)\b(?:password|passphrase|passcode|passwd|pwd|secret key|api key|api token|access token|auth token|token|"
        r"secret|credentials?)\b(?:\s+(?:for|of|to|on|at)\s+[\w .@/:-]{1,40}?)?\s+"
        r"(?:is|was|are|=|set to|became|changed to|reads)\s*[:=]?\s*[\"'`]?([^\s\"'`,;]{4,})"
    )
)
# "use password Zq8..." and "the login is admin / Zq8...": a password right after the word, or after a user name.
_PLAIN_BARE = sieved(
    re.compile(
        r"(?i)\b(?:password|passphrase|passcode|pwd)\s+[\"'`]?([^\s\"'`,;]{4,})|"
        r"\b(?:login|credentials?|user(?:name)?(?: and password)?)\b[^.\n]{0,20}?\b(?:is|are|:)\s*"
        r"[^\s/:]+\s*(?:/|:)\s*[\"'`]?([^\s\"'`,;]{4,})"
    )
)
# A value that is code: a call or a subscript from its first character (`get_key()`, `os.environ[...]`,
# `config("X")`), an expression in brackets, a dotted path. Brackets further in (`p@ss(w0rd)!`, a Django key) do
# not make a value code.
_CODE_LIKE = re.compile(r"^[A-Za-z_][\w.]*[(\[]|^[(\[{]|^\w+\.\w+\.|^[a-z_]+\.[a-z_]+$")

# Django's key alphabet (get_random_secret_key): lowercase, digits and these symbols. A run of 40 to 80 of them is
# a key when it is as mixed as a random one (below); code made of the same characters reads as words.
_DJANGO_SYMBOLS = "!@#$%^&*(-_=+)"
_DJANGO_RUN = re.compile(r"(?<![a-z0-9!@#$%^&*(\-_=+)])[a-z0-9!@#$%^&*(\-_=+)]{40,80}(?![a-z0-9!@#$%^&*(\-_=+)])")
_WORD_RUN = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{3,}")


def shannon_entropy(value: str) -> float:
    """Bits per character of `value` (a random 32-character token scores about 4.5, an English word under 3)."""
    if not value:
        return 0.0
    counts = [value.count(ch) for ch in set(value)]
    return -sum(c / len(value) * math.log2(c / len(value)) for c in counts)


def _wordiness(value: str) -> float:
    """The share of `value` in runs that read as words (`deploy`, `User`, `HTTP`): near 0.2 for a random token, well
    over 0.5 for names, paths and code."""
    return sum(len(m) for m in _WORD_RUN.findall(value)) / len(value) if value else 0.0


def _class_changes(value: str) -> float:
    """How often the next character is of another class (lower, upper, digit, symbol): 0.4 to 0.7 when random."""
    classes = ["l" if c.islower() else "u" if c.isupper() else "d" if c.isdigit() else "s" for c in value]
    return sum(a != b for a, b in zip(classes, classes[1:], strict=False)) / max(1, len(value) - 1)


def looks_like_django_key(value: str, *, bare: bool = False) -> bool:
    """A string in Django's key alphabet as mixed as a generated key: letters, and digits and symbols other than
    `-` and `_` (which names and kebab-case words also hold). None of 100,000 generated keys scored under these
    thresholds. `bare` (no keyword beside it) also sets aside what reads as code, `total(price=10)*qty+ship(3)`:
    pronounceable words (vowels) making up most of it; that costs about 3 keys in 10,000."""
    letters = [c for c in value if c.isalpha()]
    marks = sum(c.isdigit() or (c in _DJANGO_SYMBOLS and c not in "-_") for c in value)
    if not (len(letters) >= 10 and marks >= 6 and _class_changes(value) >= 0.28 and shannon_entropy(value) >= 4.2):
        return False
    vowels = sum(c in "aeiou" for c in letters) / len(letters)
    return not (bare and vowels >= 0.35 and _wordiness(value) >= 0.55)


_SYLLABLE_RUN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")  # camelCase and snake_case split into words


def _pronounceable(value: str) -> float:
    """The share of `value` in runs that could be words (3+ letters, a vowel, no 5 consonants in a row): over 0.6 for
    names (`getUserIdFromToken`, `fix/PAY-123-refund-rounding`), about 0.2 for a random token."""
    found = 0
    for run in _SYLLABLE_RUN.findall(value):
        if len(run) >= 3 and re.search(r"[aeiouyAEIOUY]", run) and not re.search(r"[^aeiouyAEIOUY]{5}", run):
            found += len(run)
    return found / len(value) if value else 0.0


def _jumbled(value: str) -> float:
    """How often, inside each run of letters and digits, a lowercase letter is followed by a capital or a letter by a
    digit or back: about 0.45 for a random token, under 0.25 for names (`getUserId`, `PostgreSQL16`, `FILTERED_KNN`)."""
    changes = pairs = 0
    for piece in re.findall(r"[A-Za-z0-9]+", value):
        for a, b in zip(piece, piece[1:], strict=False):
            pairs += 1
            changes += (a.islower() and b.isupper()) or (a.isdigit() != b.isdigit())
    return changes / pairs if pairs else 0.0


def _looks_random(value: str) -> bool:
    """A machine-made token (a key, a secret's random part, a PEM line), not a name, a path or a version."""
    if len(value) < 16 or re.search(r"\s|://", value):
        return False
    cores = {value, max(re.split(r"[^A-Za-z0-9+/=]", value), key=len)}  # the longest part between separators
    for core in cores:
        if len(core) < 16 or not re.search(r"[A-Za-z]", core) or _pronounceable(core) >= 0.6:
            continue
        if re.fullmatch(r"[0-9a-fA-F]+", core):
            if len(core) >= 24:  # shorter hex is an abbreviated commit or an id; 24 and up a token or a digest
                return True
            continue
        if _jumbled(core) < 0.25 and not re.fullmatch(r"[A-Za-z0-9+/]{14,}={1,2}", core):
            continue  # words and numbers side by side; padded base64 may read like that and still be a key
        mixed_case = bool(re.search(r"[a-z]", core) and re.search(r"[A-Z]", core))
        if mixed_case and shannon_entropy(core) >= 3.5 or len(core) >= 24 and shannon_entropy(core) >= 3.8:
            return True
    return False


def _looks_like_password(value: str) -> bool:
    """A short label that reads as a password: a symbol inside letters and digits (`Tr0ub4dor&3`), or mixed case
    with digits between letters (`Zq8vR2mK9`, `S3cr3tFake`); not `OAuth2`, `macOS14`, `build#512` or `k8s`."""
    if not 8 <= len(value) <= 64 or re.search(r"\s", value):
        return False
    has_letter, has_digit = bool(re.search(r"[A-Za-z]", value)), bool(re.search(r"\d", value))
    if has_letter and has_digit and re.search(r"[!$%^&*~?]", value[1:-1] if len(value) > 2 else ""):
        return True
    if has_letter and has_digit and re.search(r"[A-Za-z][!$%^&*~?]$", value):
        return True
    mixed_case = bool(re.search(r"[a-z]", value) and re.search(r"[A-Z]", value))
    letter_digit_changes = len(re.findall(r"(?<=[A-Za-z])\d|(?<=\d)[A-Za-z]", value))
    return mixed_case and letter_digit_changes >= 3


def label_secret_kinds(label: str) -> list[str]:
    """The kinds of secret in a label (a tag, a metadata key, a project name). A label names something: a random
    token or a password there is refused even with no keyword or known prefix beside it."""
    return list(_label_kinds(label))


# Labels repeat (an import of 1000 memories names a few projects and tags over and over), and checking one runs
# every rule: remembered, they were 40% of the secret checks of an import. The answer depends on the text alone.
@lru_cache(maxsize=4096)
def _label_kinds(label: str) -> tuple[str, ...]:
    kinds = kinds_in(label)
    if not kinds and _looks_random(label.strip()):
        kinds = ["random token"]
    if not kinds and _looks_like_password(label.strip()):
        kinds = ["password"]
    return tuple(kinds)


def _looks_secret(value: str, *, password: bool) -> bool:
    """A value after a secret-ish keyword: a real secret, or a name, a placeholder, a word, code?"""
    value = value.rstrip(".")
    if len(value) >= 16 and (looks_like_django_key(value) or _looks_random(value)):
        return True  # whatever its alphabet: Django's keys hold `(` and `)`, which the code test below reads as code
    if len(value) < (4 if password else 8) or _PLACEHOLDER.match(value) or _CODE_LIKE.search(value):
        return False
    if re.fullmatch(r"[A-Z][A-Z0-9_]+", value):  # an environment variable's name, not its value
        return False
    has_digit, has_alpha = bool(re.search(r"\d", value)), bool(re.search(r"[A-Za-z]", value))
    has_symbol = bool(re.search(r"[^A-Za-z0-9]", value))
    if password:
        # "is hunter2", "is S3cure!" yes; "is stored", "is rotated" (an English word) no.
        return has_digit and has_alpha or (has_symbol and has_alpha and not re.fullmatch(r"[a-z]+-[a-z]+", value))
    return len(value) >= 16 and shannon_entropy(value) >= 3.5 or (has_digit and has_alpha and len(value) >= 12)


def _is_password_word(keyword: str) -> bool:
    return bool(re.search(r"(?i)pass|pwd|secret|credential", keyword))


# Characters that show as nothing (zero-width spaces and joiners, the soft hyphen, direction marks, the BOM): a copy
# from a chat window or a web page may carry one inside a token, which would split it for every rule.
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")


def without_invisibles(text: str) -> str:
    return _INVISIBLE.sub("", text)


def find_secrets(text: str) -> list[Finding]:
    """Every secret in `text`, in order of position (spans may overlap; `merge_spans` joins them). Invisible
    characters are read past: the spans are found in the text without them and cover them in `text`."""
    if not text:
        return []
    if _INVISIBLE.search(text):
        kept = [i for i, ch in enumerate(text) if not _INVISIBLE.match(ch)]
        visible = "".join(text[i] for i in kept)
        return [Finding(f.kind, kept[f.start], kept[f.end - 1] + 1) for f in find_secrets(visible) if f.end > f.start]
    found: list[Finding] = []
    for kind, pattern in _library_list().may_match(text):
        for m in pattern.finditer(text):
            start, end = m.span(m.lastindex or 0) if m.lastindex else m.span()
            if end - start >= 8:
                found.append(Finding(kind, start, end))
    for kind, pattern, group in _RULE_LIST.may_match(text):
        for m in pattern.finditer(text):
            start, end = m.span(group)
            if group and _PLACEHOLDER.match(m.group(group)):
                continue
            found.append(Finding(kind, start, end))
    for m in _DJANGO_RUN.finditer(text):
        if looks_like_django_key(m.group(), bare=True):
            found.append(Finding("Django secret key", m.start(), m.end()))
    for m in _ASSIGNMENT.finditer(text):
        keyword, value = m.group(1), m.group(2)
        if _looks_secret(value, password=_is_password_word(keyword)):
            kind = "framework secret key" if re.search(r"(?i)secret[_-]?key|app[_-]?key", keyword) else None
            found.append(Finding(kind or "password or secret assignment", m.start(2), m.start(2) + len(value)))
    for m in [*_PLAIN.finditer(text), *_PLAIN_BARE.finditer(text)]:
        group = m.lastindex or 1
        value = m.group(group).rstrip(".")
        if _looks_secret(value, password=True):
            found.append(Finding("password in plain text", m.start(group), m.start(group) + len(value)))
    return sorted(found, key=lambda f: (f.start, -f.end))


def merge_spans(found: Iterable[Finding]) -> list[Finding]:
    """Overlapping or touching spans as one, named by the kind that starts first (so no part of one is left)."""
    merged: list[Finding] = []
    for f in sorted(found, key=lambda f: (f.start, -f.end)):
        if merged and f.start <= merged[-1].end:
            last = merged[-1]
            merged[-1] = Finding(last.kind, last.start, max(last.end, f.end))
        else:
            merged.append(f)
    return merged


def redact(text: str, found: Iterable[Finding] | None = None) -> str:
    """`text` with every secret span replaced by `[REDACTED <kind>, <n> chars]`."""
    spans = merge_spans(find_secrets(text) if found is None else found)
    out, position = [], 0
    for f in spans:
        out += [text[position : f.start], f"[REDACTED {f.kind}, {f.end - f.start} chars]"]
        position = f.end
    return "".join(out) + text[position:]


def kinds_in(text: str) -> list[str]:
    return list(dict.fromkeys(f.kind for f in find_secrets(text)))


# Fields that hold labels (names for things), where a random token or a password is refused on sight.
LABEL_FIELDS = ("project", "tags", "source")


def holds_secret(text: str) -> bool:
    """Whether typed text holds a secret, read as prose and as a list of labels (a form's comma-separated tags)."""
    return bool(find_secrets(text)) or any(label_secret_kinds(part) for part in re.split(r"[,\s]+", text) if part)


# Remembered as `_label_kinds` is, for the same reason: every agent call's usage record redacts its project name,
# and checking it ran every rule again (a tenth of a keyword search's own time).
@lru_cache(maxsize=4096)
def redact_label(label: str) -> str:
    """A label as it may be shown or kept: a secret in it replaced by its kind and length."""
    if kinds_in(label):
        return redact(label)
    kinds = label_secret_kinds(label)
    return f"[REDACTED {kinds[0]}, {len(label)} chars]" if kinds else label


# A value a message quotes back ('"<input>" is not a valid choice.', 'Tag “<tag>” ...').
_QUOTED = re.compile(r"[\"'“‘]([^\"'“”‘’\s]{8,200})[\"'”’]")


def redact_shown(message: str) -> str:
    """A message as it may be shown: secrets in it redacted, and a quoted value that is a secret as a label too."""
    return _QUOTED.sub(lambda m: m.group(0).replace(m.group(1), redact_label(m.group(1))), redact(message))


def _strings(value: Any, path: str, *, label: bool) -> Iterable[tuple[str, str, bool]]:
    """(path, text, is a label) for every string in a JSON value, keys included: `metadata.db.url`, `tags.2`. A
    key that is a secret is named by its kind in the path, so the path itself can be shown."""
    if isinstance(value, str):
        yield path, value, label
    elif isinstance(value, dict):
        for key, item in value.items():
            key_path = f"{path}.{redact_label(str(key))}"
            yield key_path, str(key), True
            # "password": "hunter2" only reads as a secret with its key beside it.
            if isinstance(item, str | int | float) and not isinstance(item, bool):
                yield key_path, f'"{key}": "{item}"', False
            yield from _strings(item, key_path, label=False)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}.{index}", label=label)


def secrets_in_fields(fields: dict[str, Any]) -> dict[str, list[str]]:
    """{field path: [kinds]} for every secret in a write's fields (content, project, tags, metadata, source...).
    Paths never hold a secret: a metadata key that is one appears as `metadata.[REDACTED <kind>, <n> chars]`."""
    out: dict[str, list[str]] = {}
    for name, value in fields.items():
        for path, text, label in _strings(value, name, label=name in LABEL_FIELDS):
            kinds = label_secret_kinds(text) if label else kinds_in(text)
            if kinds:
                bucket = out.setdefault(path, [])
                bucket += [k for k in kinds if k not in bucket]
    return out


def refusal_message(kinds: Iterable[str]) -> str:
    return (
        f"refused: it holds a secret ({', '.join(dict.fromkeys(kinds))}); nothing was stored. Store where the secret "
        "lives (a vault path, an environment variable name), never its value"
    )


def check_no_secrets(fields: dict[str, Any], *, prefix: str = "") -> None:
    """Raise WriteRefused (422) naming each field that holds a secret and the kind; never the value."""
    found = secrets_in_fields(fields)
    if found:
        raise WriteRefused({f"{prefix}{path}": refusal_message(kinds) for path, kinds in found.items()}, kind="secret")


def redact_value(value: Any) -> Any:
    """A JSON value with every secret in its strings redacted (keys too); a key whose value is a secret by its
    name alone (`"password": "hunter2"`) has the value replaced."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(item, str | int | float) and not isinstance(item, bool):
                pair = f'"{key}": "{item}"'
                if find_secrets(pair) and not label_secret_kinds(str(key)) and not find_secrets(str(item)):
                    out[redact_label(str(key))] = f"[REDACTED {kinds_in(pair)[0]}, {len(str(item))} chars]"
                    continue
            out[redact_label(str(key))] = redact_value(item)
        return out
    return value


def _redact_labels(value: Any) -> Any:
    if isinstance(value, str):
        return redact_label(value)
    return [_redact_labels(v) for v in value] if isinstance(value, list) else value


def redact_rows(rows: Iterable, names: tuple[str, ...]) -> list:
    """Rows whose fields held a secret, redacted in place (not saved). Label fields (tags, project, source) are read
    as labels: a random token or a password there is a secret with no keyword beside it."""
    changed = []
    for row in rows:
        dirty = False
        for name in names:
            value = getattr(row, name)
            redacted = _redact_labels if name in LABEL_FIELDS else redact_value
            clean = redacted(value) if value is not None else None
            if clean != value:
                setattr(row, name, clean)
                dirty = True
        if dirty:
            changed.append(row)
    return changed
