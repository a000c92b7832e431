"""A small client for any OpenAI-compatible chat endpoint (OpenAI, Ollama, LM Studio, llama.cpp, vLLM) over httpx.

Used for consolidation proposals, where the answer must be one JSON object. Hybrid "thinking" models can spend
the whole output budget reasoning and come back empty, so every request disables thinking in each dialect we
know of, and an answer that still carries reasoning, or none at all, is an error rather than an empty proposal.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from django.conf import settings

logger = logging.getLogger(__name__)

# Each server reads its own switch and ignores (or, for a few, rejects) the others; see `_drop_rejected_switches`.
THINKING_OFF: dict[str, Any] = {
    "reasoning_effort": "none",  # OpenAI reasoning models, Ollama's OpenAI endpoint, OpenRouter
    "chat_template_kwargs": {"enable_thinking": False},  # vLLM, SGLang, llama.cpp with Qwen3-style templates
    "think": False,  # Ollama
}
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
_THINK_BLOCK = re.compile(r"^\s*<think>(.*?)</think>\s*", re.DOTALL)


class LLMError(RuntimeError):
    """The model gave no usable answer: callers fall back to the deterministic path."""


@dataclass
class ChatClient:
    base_url: str
    model: str
    api_key: str = ""
    timeout: float = 60.0
    retries: int = 2
    backoff: float = 1.0  # seconds before the first retry; doubles each time
    max_backoff: float = 30.0
    max_tokens: int = 1024
    # Switches a server refused once are not sent again by this client.
    _refused: set[str] = field(default_factory=set, init=False, repr=False)

    @property
    def name(self) -> str:
        return f"llm:{self.model}"

    @property
    def url(self) -> str:
        base = self.base_url.rstrip("/")
        if base.endswith("/chat/completions"):
            return base
        return base + ("/chat/completions" if base.endswith("/v1") else "/v1/chat/completions")

    def request_body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "stream": False,
            "response_format": {"type": "json_object"},
        }
        body.update({k: v for k, v in THINKING_OFF.items() if k not in self._refused})
        return body

    def complete_json(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        """Send the chat, return the answer parsed as one JSON object; LLMError otherwise."""
        return parse_answer(self._post(messages))

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _post(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        attempt = 0
        while True:
            body = self.request_body(messages)
            try:
                response = httpx.post(self.url, json=body, headers=self._headers(), timeout=self.timeout)
            except httpx.TimeoutException as exc:
                # Not retried: a model too slow once is slow again, and a run has many clusters to get through.
                raise LLMError(f"the LLM did not answer within {self.timeout:g} s") from exc
            except httpx.TransportError as exc:
                if attempt >= self.retries:
                    raise LLMError(f"could not reach the LLM at {self.url}: {exc}") from exc
                attempt += 1
                self._wait(attempt, None)
                continue
            if response.status_code == 400 and self._drop_rejected_switches(response):
                continue
            if response.status_code in RETRY_STATUSES and attempt < self.retries:
                attempt += 1
                self._wait(attempt, response.headers.get("retry-after"))
                continue
            if response.status_code >= 400:
                raise LLMError(f"the LLM answered HTTP {response.status_code}: {response.text[:300]}")
            try:
                data = response.json()
            except ValueError as exc:
                raise LLMError("the LLM's response is not JSON") from exc
            if not isinstance(data, dict):
                raise LLMError("the LLM's response is not a JSON object")
            return data

    def _drop_rejected_switches(self, response: httpx.Response) -> bool:
        """A strict server (OpenAI itself) rejects switches it does not know: stop sending those, try again."""
        text = response.text
        refused = {k for k in THINKING_OFF if k not in self._refused and re.search(rf"\b{re.escape(k)}\b", text)}
        if not refused:
            return False
        logger.info("LLM server refused %s; retrying without", ", ".join(sorted(refused)))
        self._refused |= refused
        return True

    def _wait(self, attempt: int, retry_after: str | None) -> None:
        delay = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        if retry_after:
            try:
                delay = min(self.max_backoff, max(0.0, float(retry_after)))
            except ValueError:
                pass  # an HTTP date: keep our own backoff
        time.sleep(delay)


def parse_answer(data: dict[str, Any]) -> dict[str, Any]:
    """The first choice's text as a JSON object. Empty text or any reasoning is an error, never a silent {}."""
    try:
        choice = data["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMError("the LLM's response has no choices[0].message") from exc
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(reasoning, str) and reasoning.strip() or (reasoning and not isinstance(reasoning, str)):
        raise LLMError("the LLM reasoned although thinking was disabled (reasoning field not empty)")
    content = message.get("content")
    if not isinstance(content, str) or not content.strip():
        reason = choice.get("finish_reason") or "unknown"
        raise LLMError(f"the LLM gave an empty answer (finish_reason: {reason})")
    text = content.strip()
    think = _THINK_BLOCK.match(text)
    if think:
        # Some templates emit an empty <think></think> even with thinking off; a non-empty one is reasoning.
        if think.group(1).strip():
            raise LLMError("the LLM reasoned in its answer although thinking was disabled")
        text = text[think.end() :].strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        raise LLMError(f"the LLM's answer is not valid JSON: {text[:120]!r}") from exc
    if not isinstance(parsed, dict):
        raise LLMError("the LLM's answer is JSON but not an object")
    return parsed


def get_llm() -> ChatClient | None:
    """The configured consolidation LLM, or None when MEMORYHUB_LLM_BASE_URL is unset."""
    if not settings.MEMORYHUB_LLM_BASE_URL:
        return None
    if not settings.MEMORYHUB_LLM_MODEL:
        raise LLMError("MEMORYHUB_LLM_MODEL must name the model when MEMORYHUB_LLM_BASE_URL is set")
    return ChatClient(
        base_url=settings.MEMORYHUB_LLM_BASE_URL,
        model=settings.MEMORYHUB_LLM_MODEL,
        api_key=settings.MEMORYHUB_LLM_API_KEY,
        timeout=settings.MEMORYHUB_LLM_TIMEOUT,
        retries=settings.MEMORYHUB_LLM_RETRIES,
    )
