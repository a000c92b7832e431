"""A held-out set of secrets for issue 25, written before the detector was changed for it, and kept in the tests.

Generated at run time (never stored as literals): Django secret keys in quantity (Django's own generator, in a
`SECRET_KEY = '...'` line, with and without the `django-insecure-` prefix, and bare), DigitalOcean tokens as
people paste them, and secrets placed where a label belongs: tags, metadata keys, the project name. BENIGN_TAGS
are labels people really use, some of them code-ish, that must stay allowed.

`tests/test_it_refuses_secrets_in_every_field.py` asserts the rates; `python -m bench gate --holdout` prints them.
"""

from __future__ import annotations

import base64
import random
import secrets
import string
from dataclasses import dataclass

from django.core.management.utils import get_random_secret_key


@dataclass(frozen=True)
class HeldOut:
    kind: str  # what it is, for people (not necessarily the detector's kind name)
    text: str  # the write (content), or the bare value for tags, metadata keys and projects
    secret: str  # the part that must never be stored or echoed


def django_keys(n: int) -> list[str]:

    return [get_random_secret_key() for _ in range(n)]


def django_key_lines(n: int) -> list[HeldOut]:
    """`n` generated keys in the lines people paste (settings, .env, prose), half with Django's insecure prefix."""
    shapes = [
        "SECRET_KEY = '{k}'",
        'SECRET_KEY = "{k}"',
        "The nightly export job authenticates with SECRET_KEY = '{k}' from the old settings file",
        "DJANGO_SECRET_KEY={k}",
        "settings.py has SECRET_KEY='{k}'",
    ]
    out = []
    for i, key in enumerate(django_keys(n)):
        value = f"django-insecure-{key}" if i % 2 else key
        out.append(HeldOut("Django secret key", shapes[i % len(shapes)].format(k=value), value))
    return out


def bare_django_keys(n: int) -> list[HeldOut]:
    """Generated keys with no keyword beside them: alone, and after a few words."""
    out = []
    for i, key in enumerate(django_keys(n)):
        text = key if i % 2 else f"the key for the staging site is {key}"
        out.append(HeldOut("Django secret key (bare)", text, key))
    return out


def digitalocean_tokens() -> list[HeldOut]:
    token = "dop_v1_" + secrets.token_hex(32)
    oauth = "doo_v1_" + secrets.token_hex(32)
    refresh = "dor_v1_" + secrets.token_hex(32)
    return [
        HeldOut("DigitalOcean token", f"doctl auth init --access-token {token}", token),
        HeldOut("DigitalOcean token", f"DIGITALOCEAN_ACCESS_TOKEN={token}", token),
        HeldOut("DigitalOcean token", f"the droplet API uses {token} for the nightly snapshots", token),
        HeldOut("DigitalOcean token", f'{{"do_token": "{oauth}"}}', oauth),
        HeldOut("DigitalOcean token", f"refresh with {refresh}", refresh),
        HeldOut("DigitalOcean token", f"token: {token.upper().replace('DOP_V1_', 'dop_v1_')}", token.upper()[7:]),
    ]


def _random(alphabet: str, n: int, rng: random.Random) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def secret_labels(rng: random.Random | None = None) -> list[HeldOut]:
    """Bare secret values, as an attacker or a careless agent puts them in a tag, a metadata key or a project.
    Fresh randomness by default; a seeded `rng` gives the same set every time (for tests that walk every route)."""
    rng = rng or random.SystemRandom()
    alnum = string.ascii_letters + string.digits
    aws_secret = _random(alnum + "/+", 40, rng)
    jwt = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiJ4In0." + _random(alnum + "-_", 43, rng)
    pem_body = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(45))).decode()  # a 60-character PEM line
    django_key = _random("abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)", 50, rng)  # Django's own alphabet
    return [
        HeldOut("AWS secret key part", aws_secret, ""),
        HeldOut("JWT", jwt[:64], ""),
        HeldOut("PEM body line", pem_body, ""),
        HeldOut("Twilio token", _random("0123456789abcdef", 32, rng), ""),
        HeldOut("GitHub token", "ghp_" + _random(alnum, 36, rng), ""),
        HeldOut("Slack token", "xoxb-1234567890-" + _random(alnum, 24, rng), ""),
        HeldOut("Stripe key", "sk_live_" + _random(alnum, 24, rng), ""),
        HeldOut("OpenAI key", "sk-proj-" + _random(alnum, 40, rng), ""),
        HeldOut("DigitalOcean token", "dop_v1_" + _random("0123456789abcdef", 56, rng), ""),
        HeldOut("Django secret key", django_key, ""),
        HeldOut("random 40-character string", _random(alnum, 40, rng), ""),
        HeldOut("random 24-character string", _random(alnum, 24, rng), ""),
        HeldOut("password", "Tr0ub4dor&3-" + _random(string.digits, 3, rng), ""),
        HeldOut("password", _random(string.ascii_lowercase, 3, rng) + "!" + _random(alnum, 8, rng), ""),
        HeldOut("password", "Zq8vR2mK9x", ""),
        HeldOut("password", "hunter2-Fake!", ""),
    ]


def labelled_secrets(rng: random.Random | None = None) -> list[HeldOut]:
    """`secret_labels` with the secret field filled in (the whole label)."""
    return [HeldOut(s.kind, s.text, s.secret or s.text) for s in secret_labels(rng)]


def random_labels(n: int) -> dict[str, list[str]]:
    """`n` fresh machine-made strings of each shape, to measure the label rule's rate on random tokens."""
    rng, alnum = random.SystemRandom(), string.ascii_letters + string.digits
    shapes = {
        "24 letters and digits": lambda: _random(alnum, 24, rng),
        "40 letters and digits": lambda: _random(alnum, 40, rng),
        "AWS secret part (40 base64)": lambda: _random(alnum + "/+", 40, rng),
        "PEM line (60 base64)": lambda: base64.b64encode(bytes(rng.getrandbits(8) for _ in range(45))).decode(),
        "urlsafe token (43)": lambda: base64.urlsafe_b64encode(bytes(rng.getrandbits(8) for _ in range(32))).decode(),
    }
    return {name: [make() for _ in range(n)] for name, make in shapes.items()}


# Labels people use, code-ish on purpose: versions, tickets, hashes of commits, UUID-free ids, camelCase.
BENIGN_TAGS: list[str] = [
    "deploy", "ci", "python3.12", "py3.12", "k8s", "i18n", "l10n", "x86_64", "arm64", "ipv4", "IPv6", "OAuth2",
    "oauth2-client", "gRPC", "iOS17", "macOS14", "S3", "EC2", "v2.3.1-rc1", "CVE-2024-1234", "JIRA-1234",
    "PAY-123", "fix/PAY-123-refund-rounding", "feature/login", "utf-8", "H264", "postgres-15", "node20",
    "team:platform", "area/api", "priority:high", "needs-review", "getUserId", "useEffect", "DjangoREST",
    "sqlite-vec", "fts5", "pgvector", "@scope/pkg", "c++", "c#", "asp.net", "make-test", "2024-Q3",
    "release-2024.05", "sha256", "base64", "jwt", "aws", "secrets", "password-policy", "api-keys", "oauth",
    "tokens", "TODO", "gotcha", "pref", "WebSocket", "PostgreSQL16", "Python3", "CamelCaseTag", "snake_case_tag",
    "a1b2c3d", "3f9a2c1", "run-42", "build#512", "pr-412", "rfc7519", "es2022", "tsconfig.json", "pyproject.toml",
]  # fmt: skip

# Metadata and projects people use: keys and values that are labels, paths, URLs without credentials.
BENIGN_METADATA: list[dict] = [
    {"file": "src/app/settings.py", "line": 42},
    {"url": "https://github.com/org/repo/pull/412", "commit": "3f9a2c1b7e4d5f60718293a4b5c6d7e8f9012345"},
    {"ticket": "PAY-123", "reviewed_by": "ana"},
    {"secret_store": "vault://prod/checkout", "env_var": "STRIPE_API_KEY"},
    {"nested": {"deeper": {"path": "docs/gate.md"}}},
]
BENIGN_PROJECTS: list[str] = ["alpha", "billing-service", "org/repo", "web-app_v2", "MemoryHub", "k8s-infra"]
