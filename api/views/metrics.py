"""GET /metrics: Prometheus text, for 127.0.0.1 by default; with MEMORYHUB_METRICS_TOKEN set, for whoever sends it
as a bearer token (a Prometheus on another machine)."""

from __future__ import annotations

import hmac
import ipaddress

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET

from api.errors import error_body
from memoryhub.operations.figures import store_figures
from memoryhub.runtime import metrics


def _from_loopback(request: HttpRequest) -> bool:
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


def _allowed(request: HttpRequest) -> bool:
    token = settings.MEMORYHUB_METRICS_TOKEN
    if not token:
        return _from_loopback(request)
    sent = request.headers.get("Authorization", "")
    return hmac.compare_digest(sent.encode(), f"Bearer {token}".encode())


@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not _allowed(request):
        why = "a bearer token (MEMORYHUB_METRICS_TOKEN)" if settings.MEMORYHUB_METRICS_TOKEN else "127.0.0.1"
        return JsonResponse(error_body("forbidden", f"metrics are open to {why} only"), status=403)
    body, content_type = metrics.exposition(store_figures())
    return HttpResponse(body, content_type=content_type)
