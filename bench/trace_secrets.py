"""A held-out set of secrets for issue 36 ("a refused secret leaves nothing"), written before the redaction of refused
writes was changed, in two halves: `dev` (looked at while the redaction was built) and `final` (only run at the end).

Every case is a line a person or an agent might send, with the secret where people paste it, and the parts that
must never be kept anywhere once the write is refused (`parts`: the secret itself, and a companion value on the same
line such as the AWS secret beside its key id or the Twilio auth token beside the account SID). Values are made at
run time from a seeded generator, never stored as literals (so no scanner flags this file, and no value is one a
detector was tuned on).

`tests/test_it_leaves_no_secret_behind.py` sends each through every route and searches every table and the
database files for each part.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

ZWSP = "\u200b"  # a zero-width space, as a copy from a chat window or a rich-text page carries


@dataclass(frozen=True)
class TraceCase:
    kind: str
    text: str  # the write's content
    parts: tuple[str, ...]  # what must never be stored (each long enough to be distinctive)


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


_ALNUM = string.ascii_letters + string.digits
_LOWER_HEX = "0123456789abcdef"
_B64 = string.ascii_letters + string.digits + "+/"
_UPPER_ALNUM = string.ascii_uppercase + string.digits


def _prefixed(kind: str, prefix: str, alphabet: str, n: int, line: str) -> Callable[[random.Random], TraceCase]:
    """A maker of a token that is `prefix` and `n` random characters of `alphabet`, said in `line` (at its {});
    the random characters are the part never to be kept."""

    def make(rng: random.Random) -> TraceCase:
        token = prefix + _pick(rng, alphabet, n)
        return TraceCase(kind, line.format(token), (token[len(prefix) :],))

    return make


def _aws_pair(rng):
    key_id = "AKIA" + _pick(rng, _UPPER_ALNUM, 16)
    secret = _pick(rng, _B64, 40)
    return TraceCase("AWS secret beside its key id", f"ci uploads with {key_id} {secret} to the artifacts bucket",
                     (key_id, secret))  # fmt: skip


def _twilio_pair(rng):
    sid = "AC" + _pick(rng, _LOWER_HEX, 32)
    token = _pick(rng, _LOWER_HEX, 32)
    return TraceCase("Twilio auth token beside the SID", f"SMS alerts go through Twilio {sid} {token}", (sid, token))


def _slack_webhook_zw(rng):
    team, bot, tail = "T" + _pick(rng, _UPPER_ALNUM, 10), "B" + _pick(rng, _UPPER_ALNUM, 10), _pick(rng, _ALNUM, 24)
    url = f"https://hooks.slack{ZWSP}.com/services/{team}/{bot}/{tail}"
    return TraceCase("Slack webhook with a zero-width space", f"Deploy notices post to {url}", (tail, f"{bot}/{tail}"))


_github = _prefixed("GitHub token", "ghp_", _ALNUM, 36, "The release job pushes tags with {}")


_stripe = _prefixed("Stripe live key", "sk_live_", _ALNUM, 24, "billing service charges cards with {}")


_openai = _prefixed("OpenAI project key", "sk-proj-", _ALNUM + "_-", 48, "the summariser calls the model with key {}")


_anthropic = _prefixed("Anthropic key", "sk-ant-api03-", _ALNUM + "_-", 60, "eval harness: ANTHROPIC_API_KEY={}")


_gitlab = _prefixed("GitLab token", "glpat-", _ALNUM + "_-", 20, "mirror to gitlab using {} as the push credential")


_google = _prefixed("Google API key", "AIza", _ALNUM + "_-", 35, "Maps tiles load with {} on the store locator")


def _slack_bot(rng):
    token = f"xoxb-{rng.randrange(10**11, 10**12)}-{rng.randrange(10**11, 10**12)}-{_pick(rng, _ALNUM, 24)}"
    return TraceCase("Slack bot token", f"standup bot authenticates as {token}", (token[-24:],))


def _sendgrid(rng):
    token = f"SG.{_pick(rng, _ALNUM + '_-', 22)}.{_pick(rng, _ALNUM + '_-', 43)}"
    return TraceCase("SendGrid key", f"password reset mails go out via SendGrid {token}", (token[3:25], token[-43:]))


_npm = _prefixed("npm token", "npm_", _ALNUM, 36, "publish from CI with //registry.npmjs.org/:_authToken={}")


_pypi = _prefixed("PyPI token", "pypi-AgEIcHlwaS5vcmc", _ALNUM + "_-", 60, "twine upload -u __token__ -p {}")


_huggingface = _prefixed("Hugging Face token", "hf_", _ALNUM, 34, "model downloads use {} for the gated repos")


_digitalocean = _prefixed("DigitalOcean token", "dop_v1_", _LOWER_HEX, 64, "doctl auth init --access-token {}")


def _jwt(rng):
    def part(n):
        return base64.urlsafe_b64encode(rng.randbytes(n)).decode().rstrip("=")

    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(b'{"sub":"svc-reporting","role":"admin"}').decode().rstrip("=")
    token = f"{head}.{body}.{part(32)}"
    return TraceCase("JWT", f"the reporting service sends {token} to the admin API", (token.split(".")[2],))


def _pem(rng):
    body = "\n".join(base64.b64encode(rng.randbytes(48)).decode() for _ in range(4))
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    return TraceCase("private key block", f"deploy key for the box:\n{block}", tuple(body.splitlines()[1:3]))


def _postgres_url(rng):
    password = _pick(rng, _ALNUM, 18)
    text = f"analytics reads postgresql://report:{password}@db.internal:5432/warehouse"
    return TraceCase("password in a database URL", text, (password,))


def _plain_password(rng):
    password = _pick(rng, _ALNUM, 8) + "!" + _pick(rng, string.digits, 3)
    return TraceCase("password in plain words", f"the staging admin password is {password} until Friday", (password,))


def _basic_auth(rng):
    creds = base64.b64encode(f"deploy:{_pick(rng, _ALNUM, 20)}".encode()).decode()
    return TraceCase("Basic Authorization header", f"curl -H 'Authorization: Basic {creds}' https://ci.internal/api",
                     (creds,))  # fmt: skip


def _azure(rng):
    key = base64.b64encode(rng.randbytes(64)).decode()
    text = f"DefaultEndpointsProtocol=https;AccountName=assets;AccountKey={key};EndpointSuffix=core.windows.net"
    return TraceCase("Azure storage key", text, (key[:40],))


_mailgun = _prefixed("Mailgun key", "key-", _LOWER_HEX, 32, "Mailgun sends receipts with {}")


_heroku = _prefixed("Heroku key", "HRKU-", _ALNUM + "_-", 40, "heroku deploys authenticate with {}")


_datadog = _prefixed("Datadog API key", "", _LOWER_HEX, 32, "agents ship metrics with DD_API_KEY={}")


def _telegram(rng):
    token = f"{rng.randrange(10**8, 10**9)}:AA{_pick(rng, _ALNUM + '_-', 33)}"
    return TraceCase("Telegram bot token", f"on-call bot is {token}", (token.split(":")[1],))


def _django(rng):
    key = _pick(rng, string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)", 50)
    return TraceCase("Django secret key", f"SECRET_KEY = 'django-insecure-{key}'", (key,))


_shopify = _prefixed("Shopify token beside its shop", "shpat_", _LOWER_HEX, 32, "shop acme.myshopify.com token {}")


def _client_secret_pair(rng):
    client_id = _pick(rng, _LOWER_HEX, 20)
    secret = _pick(rng, _ALNUM, 40)
    return TraceCase("OAuth client secret beside its client id", f"client_id={client_id} client_secret={secret}",
                     (secret,))  # fmt: skip


_linear = _prefixed("Linear key", "lin_api_", _ALNUM, 40, "triage script reads issues with {}")


def _aws_pair_tab(rng):
    key_id = "AKIA" + _pick(rng, _UPPER_ALNUM, 16)
    secret = _pick(rng, _B64, 40)
    return TraceCase("AWS credentials row (CSV)", f"backup-user,{key_id},{secret}", (key_id, secret))


def _twilio_api_key(rng):
    key = "SK" + _pick(rng, _LOWER_HEX, 32)
    secret = _pick(rng, _ALNUM, 32)
    return TraceCase("Twilio API key and its secret", f"video rooms: api key {key} secret {secret}", (key, secret))


def _postman(rng):
    token = f"PMAK-{_pick(rng, _LOWER_HEX, 24)}-{_pick(rng, _LOWER_HEX, 34)}"
    return TraceCase("Postman key", f"collection runs use {token}", (token[5:29],))


def _slack_webhook_plain(rng):
    tail = _pick(rng, _ALNUM, 24)
    url = f"https://hooks.slack.com/services/T{_pick(rng, _UPPER_ALNUM, 8)}/B{_pick(rng, _UPPER_ALNUM, 8)}/{tail}"
    return TraceCase("Slack webhook", f"alerts channel webhook: {url}", (tail,))


# Alternating: the even ones are the dev half, the odd ones the final half, so both hold paired and single values.
_MAKERS: list[Callable[[random.Random], TraceCase]] = [
    _aws_pair, _twilio_pair, _slack_webhook_zw, _aws_pair_tab, _github, _stripe, _openai, _anthropic, _gitlab,
    _google, _slack_bot, _sendgrid, _npm, _pypi, _huggingface, _digitalocean, _jwt, _pem, _postgres_url,
    _plain_password, _basic_auth, _azure, _mailgun, _heroku, _datadog, _telegram, _django, _shopify,
    _client_secret_pair, _linear, _twilio_api_key, _postman, _slack_webhook_plain,
]  # fmt: skip


def trace_cases(half: str = "all", *, seed: int = 36) -> list[TraceCase]:
    """The cases of one half (`dev`, `final`) or `all`, with values from `seed` (another seed, other values)."""
    rng = random.Random(seed)
    cases = [make(rng) for make in _MAKERS]
    if half == "dev":
        return cases[0::2]
    if half == "final":
        return cases[1::2]
    return cases
