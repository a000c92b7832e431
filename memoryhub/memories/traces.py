"""What a refused write may leave behind: nothing of any secret-like value on it.

The detector (`memories.secrets`) finds the span it has a rule for. A secret rarely travels alone: an AWS secret sits
beside its key id, a Twilio auth token beside the account SID, a client secret beside the client id, a password
after the user name. Redacting only the span the detector matched would keep the companion in the gate log. So the
copy of a refused write that is kept (`redact_refused`) also masks, on every line that holds a secret, every value
that is not a plain word (anything with a digit, mixed case inside, or a long high-entropy run), and anywhere in the
text every value that reads as a machine-made token or a password (`secrets.label_secret_kinds`). Plain words, the
kinds and the lengths stay, so a person can still see what was refused and why.

Invisible characters (a zero-width space inside a webhook URL) are removed from the kept copy before it is judged, as
the detector reads past them too.
"""

from __future__ import annotations

import re
from typing import Any

from memoryhub.memories.secrets import (
    find_secrets,
    label_secret_kinds,
    merge_spans,
    shannon_entropy,
    without_invisibles,
)

# A value on a line: what lies between spaces and the separators people put around values (quotes, `=`, `,`, `;`,
# brackets). `:` and `/` are kept inside, so a URL is one value and is masked whole when it holds a token.
_VALUE = re.compile(r"[^\s\"'`=,;()<>\[\]{}|]+")
_CHUNK = re.compile(r"[^\s\"'`]+")
# A plain word or a dotted or hyphenated run of them (`hooks.slack.com`, `read-only`, `Deploy`): never a secret's part.
_PLAIN_WORD = re.compile(r"[A-Za-z][a-z]*(?:[.\-_/:][A-Za-z][a-z]*)*[.:,!?]?")


def _secret_like(value: str, *, on_a_secret_line: bool) -> bool:
    if label_secret_kinds(value):
        return True
    if not on_a_secret_line or len(value) < 6 or _PLAIN_WORD.fullmatch(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    inner_capital = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return has_digit or inner_capital or (len(value) >= 16 and shannon_entropy(value) >= 3.5)


def redact_refused(text: str) -> str:
    """The copy of a refused write's text that may be kept: see the module docstring."""
    text = without_invisibles(text)
    spans = [(f.start, f.end, f.kind) for f in merge_spans(find_secrets(text))]
    secret_lines = {text.count("\n", 0, start) for start, _, _ in spans}
    secret_lines |= {text.count("\n", 0, end) for _, end, _ in spans}
    offset = 0
    for number, line in enumerate(text.split("\n")):
        # Each value between separators, and each whole run between spaces (base64's `==` is a separator above).
        for m in [*_VALUE.finditer(line), *_CHUNK.finditer(line)]:
            start, end = offset + m.start(), offset + m.end()
            if any(s < end and start < e for s, e, _ in spans):
                continue
            if _secret_like(m.group(), on_a_secret_line=number in secret_lines):
                spans.append((start, end, "value beside a secret"))
        offset += len(line) + 1
    out, position = [], 0
    for start, end, kind in sorted(spans):
        if start < position:
            continue
        out += [text[position:start], f"[REDACTED {kind}, {end - start} chars]"]
        position = end
    return "".join(out) + text[position:]


def shown_safely(text: str) -> str:
    """A text as an answer or a report may repeat it: unchanged without a secret, as `redact_refused` keeps it with
    one (an import's or a capture's item list names each refused item)."""
    return redact_refused(text) if find_secrets(text) else text


def redact_refused_value(value: Any) -> Any:
    """A JSON value (a refused write's metadata) with `redact_refused` applied to every string, keys included; a key
    whose value reads as a secret only beside it (`"password": "hunter2"`) keeps neither."""
    if isinstance(value, str):
        return redact_refused(value)
    if isinstance(value, list):
        return [redact_refused_value(v) for v in value]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            pair = f'"{key}": "{item}"' if isinstance(item, str | int | float) and not isinstance(item, bool) else ""
            if pair and find_secrets(pair):
                out[redact_refused(str(key))] = f"[REDACTED {find_secrets(pair)[0].kind}, {len(str(item))} chars]"
            else:
                out[redact_refused(str(key))] = redact_refused_value(item)
        return out
    return value
