"""The API's one error shape, decided once:

    {"error": {"code": "invalid", "message": "content: This field is required.", "fields": {"content": ["..."]}}}

`code` is a stable machine word, `message` a sentence for a person, `fields` names each bad field (empty when
the error is not about a field). DRF exceptions go through `exception_handler`; Django's own 400/404/500 pages
under /api/ go through the handlers below (wired in memoryhub/urls.py).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist, RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, JsonResponse
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.response import Response

from memoryhub.agents.tokens import AccessDenied
from memoryhub.agents.tools import ToolError
from memoryhub.embeddings import EmbeddingError
from memoryhub.memories.backup import BackupError
from memoryhub.memories.secrets import WriteRefused, redact_shown

logger = logging.getLogger(__name__)


def too_large_message() -> str:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return f"the request body is larger than the limit of {limit} bytes (MEMORYHUB_MAX_BODY_BYTES)"


def error_body(code: str, message: str, fields: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """The error shape. Every message passes `redact_shown` on its way out: a message that quotes what was sent
    ('"<value>" is not a valid choice') never repeats a secret, whichever layer wrote it."""
    shown = {redact_shown(k): [redact_shown(m) for m in v] for k, v in (fields or {}).items()}
    return {"error": {"code": code, "message": redact_shown(message), "fields": shown}}


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "the object is not in a state that allows this"
    default_code = "conflict"


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "the request body is too large"
    default_code = "too_large"


_CODES = {
    400: "invalid",
    401: "not_authenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid",
    429: "throttled",
    500: "server_error",
    503: "unavailable",
}


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail as {"field": [messages]}, nested fields joined with dots ("memories.0.content")."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = "non_field_errors" if key in ("non_field_errors", "__all__") and not prefix else f"{prefix}{key}"
            for field, messages in _flatten(value, name + ".").items():
                out.setdefault(field, []).extend(messages)
    elif isinstance(detail, list) and detail and all(isinstance(d, (dict, list)) for d in detail):
        for index, value in enumerate(detail):
            if value:
                for field, messages in _flatten(value, f"{prefix}{index}.").items():
                    out.setdefault(field, []).extend(messages)
    else:
        items = detail if isinstance(detail, list) else [detail]
        out[prefix.rstrip(".") or "non_field_errors"] = [str(i) for i in items if i not in (None, "")]
    return out


def _field_message(fields: dict[str, list[str]]) -> str:
    parts = [
        (" ".join(messages) if name == "non_field_errors" else f"{name}: {' '.join(messages)}")
        for name, messages in fields.items()
    ]
    return "; ".join(parts) or "invalid input"


def validation_response(fields: dict[str, list[str]], status_code: int = 400) -> Response:
    return Response(error_body("invalid", _field_message(fields), fields), status=status_code)


def django_validation_fields(exc: DjangoValidationError) -> dict[str, list[str]]:
    if hasattr(exc, "error_dict"):
        return _flatten({k: [str(m) for m in v] for k, v in exc.message_dict.items()})
    return {"non_field_errors": [str(m) for m in exc.messages]}


def exception_handler(exc: Exception, context: dict) -> Response:
    """Every exception a view raises becomes the one error shape (DRF calls this; see settings)."""
    if isinstance(exc, exceptions.ValidationError):
        return validation_response(_flatten(exc.detail))
    if isinstance(exc, WriteRefused):
        fields = django_validation_fields(exc)
        code = f"rejected_{exc.kind}" if getattr(exc, "kind", "") else "invalid"
        return Response(error_body(code, _field_message(fields), fields), status=422)
    if isinstance(exc, DjangoValidationError):
        return validation_response(django_validation_fields(exc))
    if isinstance(exc, ToolError):
        fields = {exc.field: [exc.message]} if exc.field and exc.status in (400, 422) else {}
        code = exc.code or _CODES.get(exc.status, "invalid")
        return Response(error_body(code, exc.message, fields), status=exc.status)
    if isinstance(exc, AccessDenied | DjangoPermissionDenied):
        return Response(error_body("forbidden", str(exc) or "not allowed"), status=403)
    if isinstance(exc, Http404 | ObjectDoesNotExist):
        return Response(error_body("not_found", str(exc) or "not found"), status=404)
    if isinstance(exc, RequestDataTooBig):
        return Response(error_body("too_large", too_large_message()), status=413)
    if isinstance(exc, EmbeddingError):
        logger.warning("embedder failed: %s", exc)
        return Response(error_body("unavailable", f"the embedding model is unavailable: {exc}"), status=503)
    if isinstance(exc, BackupError):
        # The automatic backup before a destructive write failed, so the write was not made: the store is fine but
        # cannot take this change until backups work again (or are switched off). Not the caller's fault: 503.
        logger.error("automatic backup failed: %s", exc)
        return Response(error_body("unavailable", str(exc)), status=503)
    if isinstance(exc, exceptions.APIException):
        code = _CODES.get(exc.status_code, "error")
        headers = {}
        if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
            headers["WWW-Authenticate"] = 'Bearer realm="api"'
            response = Response(error_body(code, str(exc.detail)), status=401, headers=headers)
            return response
        if getattr(exc, "wait", None):
            headers["Retry-After"] = str(int(exc.wait))
        detail = exc.detail
        message = str(detail) if not isinstance(detail, dict | list) else _field_message(_flatten(detail))
        return Response(error_body(code, message), status=exc.status_code, headers=headers)
    if isinstance(exc, SuspiciousOperation):
        return Response(error_body("invalid", str(exc) or "bad request"), status=400)
    logger.exception("unexpected error in %s", context.get("view").__class__.__name__, exc_info=exc)
    return Response(error_body("server_error", "the server failed on this request; see its log"), status=500)


# --- Django's handlers: JSON under /api/, the stock pages elsewhere ---------------------------------------------


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def handler400(request, exception=None):
    if _is_api(request):
        if isinstance(exception, RequestDataTooBig):
            return JsonResponse(error_body("too_large", too_large_message()), status=413)
        return JsonResponse(error_body("invalid", "bad request"), status=400)
    return defaults.bad_request(request, exception)


def handler404(request, exception=None):
    if _is_api(request):
        return JsonResponse(error_body("not_found", f"no such endpoint: {request.method} {request.path}"), status=404)
    return defaults.page_not_found(request, exception)


def handler500(request):
    if _is_api(request):
        return JsonResponse(error_body("server_error", "the server failed on this request; see its log"), status=500)
    return defaults.server_error(request)
