"""Webhooks: receivers another system runs, told of changes to the memories (deliveries.py sends them).

Adding a hook checks its URL: http or https only, and a receiver on a loopback, private, link-local or otherwise
internal address only when MEMORYHUB_WEBHOOK_ALLOW_PRIVATE is true. Whoever adds a hook (a project's owner on the
dashboard) chooses where the server sends requests from inside the network it runs in; without the check, a hook
could make it call the machine's own services or its neighbours' (server-side request forgery). The address is
checked again at every delivery, as a name can come to point elsewhere after the hook was added.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import socket
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Max

from memoryhub.models import MemoryEvent, Webhook

EVENTS = (
    "memory.created",
    "memory.superseded",
    "memory.archived",
    "memory.restored",
    "conflict.opened",
    "proposal.decided",
)
SIGNATURE_HEADER = "X-MemoryHub-Signature"


def sign(body: bytes, secret: str) -> str:
    """The signature header's value: `sha256=` and the hex HMAC-SHA256 of the body with the hook's secret."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _internal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not address.is_global or address.is_multicast


def refusal(url: str) -> str | None:
    """Why a receiver at `url` may not be called now (its scheme, its address), or None."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "only http and https URLs can receive webhooks"
    if not parts.hostname:
        return "the URL names no host"
    if settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE:
        return None
    try:
        found = socket.getaddrinfo(parts.hostname, port or 443, type=socket.SOCK_STREAM)
    except OSError:
        return f"the host {parts.hostname} cannot be resolved"
    for *_, sockaddr in found:
        address = ipaddress.ip_address(sockaddr[0].split("%")[0])
        if _internal(address):
            return (
                f"{parts.hostname} is a loopback or private address ({address}); "
                "set MEMORYHUB_WEBHOOK_ALLOW_PRIVATE=true to allow receivers inside the network"
            )
    return None


def clean_events(events: list[str] | None) -> list[str]:
    chosen = list(dict.fromkeys(events or EVENTS))
    unknown = [name for name in chosen if name not in EVENTS]
    if unknown:
        raise ValidationError({"events": f"unknown event {', '.join(unknown)}; one of: {', '.join(EVENTS)}"})
    return chosen


def add_webhook(*, url: str, project: str | None, events: list[str] | None, actor: str) -> Webhook:
    """A new hook, told of the changes made from now on. Its secret is on the returned row (shown once)."""
    url = (url or "").strip()
    why = refusal(url)
    if why:
        raise ValidationError({"url": why})
    if len(url) > 2000:
        raise ValidationError({"url": "at most 2000 characters"})
    project = (project or "").strip() or None
    chosen = clean_events(events)
    # The log's end as it is now: a new hook hears of what happens next, not of the store's whole past.
    end = MemoryEvent.objects.aggregate(end=Max("id"))["end"] or 0
    return Webhook.objects.create(
        url=url, project=project, events=chosen, secret=secrets.token_hex(32), created_by=actor, cursor=end
    )


def hooks_of(projects: list[str] | None) -> list[Webhook]:
    """The hooks of these projects (None: every hook, the hub-wide ones included)."""
    hooks = Webhook.objects.all()
    if projects is not None:
        hooks = hooks.filter(project__in=projects)
    return list(hooks.order_by("pk"))


def remove_webhook(*, hook_id: int, projects: list[str] | None = None) -> bool:
    """Remove a hook (among these projects' when `projects` is given); False when there is no such hook."""
    hooks = Webhook.objects.filter(pk=hook_id)
    if projects is not None:
        hooks = hooks.filter(project__in=projects)
    deleted, _ = hooks.delete()
    return bool(deleted)
