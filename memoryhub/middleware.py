"""Security headers on every response, beyond what Django's SecurityMiddleware and XFrameOptionsMiddleware send.

The dashboard loads only its own files (vendored htmx, its CSS and charts): a strict Content-Security-Policy
means a memory whose text smuggles in `<script>` or an `onerror=` attribute cannot run even if a template
forgot to escape it. API answers hold what agents remember, so no cache may keep them.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from memoryhub.runtime import metrics


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response
        self.headers = {
            "Content-Security-Policy": settings.MEMORYHUB_CONTENT_SECURITY_POLICY,
            "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
            "Cross-Origin-Resource-Policy": "same-origin",
        }

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        for name, value in self.headers.items():
            # A view that needs another policy (e.g. a documentation page) may set its own.
            if value and name not in response:
                response[name] = value
        if request.path.startswith("/api/") and "Cache-Control" not in response:
            response["Cache-Control"] = "no-store"
        return response


class RequestMetricsMiddleware:
    """Counts every answer by route and status for GET /metrics. The route is the URL pattern's name (`api:search`,
    `api:memory-detail`), not the path: one series per endpoint, not one per memory id."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        route = (match.view_name or match.route) if match is not None else "unmatched"
        metrics.count_request(route, response.status_code)
        return response
