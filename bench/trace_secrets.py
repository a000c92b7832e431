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


def _github(rng):
    token = "ghp_" + _pick(rng, _ALNUM, 36)
    return TraceCase("GitHub token", f"The release job pushes tags with {token}", (token[4:],))


def _stripe(rng):
    token = "sk_live_" + _pick(rng, _ALNUM, 24)
    return TraceCase("Stripe live key", f"billing service charges cards with {token}", (token[8:],))


def _openai(rng):
    token = "sk-proj-" + _pick(rng, _ALNUM + "_-", 48)
    return TraceCase("OpenAI project key", f"the summariser calls the model with key {token}", (token[8:],))


def _anthropic(rng):
    token = "sk-ant-api03-" + _pick(rng, _ALNUM + "_-", 60)
    return TraceCase("Anthropic key", f"eval harness: ANTHROPIC_API_KEY={token}", (token[13:],))


def _gitlab(rng):
    token = "glpat-" + _pick(rng, _ALNUM + "_-", 20)
    return TraceCase("GitLab token", f"mirror to gitlab using {token} as the push credential", (token[6:],))


def _google(rng):
    token = "AIza" + _pick(rng, _ALNUM + "_-", 35)
    return TraceCase("Google API key", f"Maps tiles load with {token} on the store locator", (token[4:],))


def _slack_bot(rng):
    token = f"xoxb-{rng.randrange(10**11, 10**12)}-{rng.randrange(10**11, 10**12)}-{_pick(rng, _ALNUM, 24)}"
    return TraceCase("Slack bot token", f"standup bot authenticates as {token}", (token[-24:],))


def _sendgrid(rng):
    token = f"SG.{_pick(rng, _ALNUM + '_-', 22)}.{_pick(rng, _ALNUM + '_-', 43)}"
    return TraceCase("SendGrid key", f"password reset mails go out via SendGrid {token}", (token[3:25], token[-43:]))


def _npm(rng):
    token = "npm_" + _pick(rng, _ALNUM, 36)
    return TraceCase("npm token", f"publish from CI with //registry.npmjs.org/:_authToken={token}", (token[4:],))


def _pypi(rng):
    token = "pypi-AgEIcHlwaS5vcmc" + _pick(rng, _ALNUM + "_-", 60)
    return TraceCase("PyPI token", f"twine upload -u __token__ -p {token}", (token[-60:],))


def _huggingface(rng):
    token = "hf_" + _pick(rng, _ALNUM, 34)
    return TraceCase("Hugging Face token", f"model downloads use {token} for the gated repos", (token[3:],))


def _digitalocean(rng):
    token = "dop_v1_" + _pick(rng, _LOWER_HEX, 64)
    return TraceCase("DigitalOcean token", f"doctl auth init --access-token {token}", (token[7:],))


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


def _mailgun(rng):
    token = "key-" + _pick(rng, _LOWER_HEX, 32)
    return TraceCase("Mailgun key", f"Mailgun sends receipts with {token}", (token[4:],))


def _heroku(rng):
    token = "HRKU-" + _pick(rng, _ALNUM + "_-", 40)
    return TraceCase("Heroku key", f"heroku deploys authenticate with {token}", (token[5:],))


def _datadog(rng):
    token = _pick(rng, _LOWER_HEX, 32)
    return TraceCase("Datadog API key", f"agents ship metrics with DD_API_KEY={token}", (token,))


def _telegram(rng):
    token = f"{rng.randrange(10**8, 10**9)}:AA{_pick(rng, _ALNUM + '_-', 33)}"
    return TraceCase("Telegram bot token", f"on-call bot is {token}", (token.split(":")[1],))


def _django(rng):
    key = _pick(rng, string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)", 50)
    return TraceCase("Django secret key", f"SECRET_KEY = 'django-insecure-{key}'", (key,))


def _shopify(rng):
    token = "shpat_" + _pick(rng, _LOWER_HEX, 32)
    return TraceCase("Shopify token beside its shop", f"shop acme.myshopify.com token {token}", (token[6:],))


def _client_secret_pair(rng):
    client_id = _pick(rng, _LOWER_HEX, 20)
    secret = _pick(rng, _ALNUM, 40)
    return TraceCase("OAuth client secret beside its client id", f"client_id={client_id} client_secret={secret}",
                     (secret,))  # fmt: skip


def _linear(rng):
    token = "lin_api_" + _pick(rng, _ALNUM, 40)
    return TraceCase("Linear key", f"triage script reads issues with {token}", (token[8:],))


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
