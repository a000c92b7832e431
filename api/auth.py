"""Bearer-token authentication for agents, a size-limited JSON parser, and the base every API view shares."""

from __future__ import annotations

import json

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer

from api.errors import PayloadTooLarge, too_large_message
from memoryhub.agents.tokens import Agent, verify_token
from memoryhub.memories.storable import MAX_JSON_DEPTH, unstorable


class BearerTokenAuthentication(BaseAuthentication):
    """`Authorization: Bearer <token>`; request.user becomes the token's `Agent`, request.auth the ApiToken."""

    keyword = b"bearer"

    def authenticate(self, request):
        header = get_authorization_header(request).split()
        if not header:
            return None  # IsAuthenticated then answers 401 "credentials were not provided"
        if header[0].lower() != self.keyword:
            raise exceptions.AuthenticationFailed("use an 'Authorization: Bearer <token>' header")
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("the Authorization header must be 'Bearer <token>', one token")
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise exceptions.AuthenticationFailed("the token is not valid") from exc
        token = verify_token(raw)
        if token is None:
            raise exceptions.AuthenticationFailed("the token is not valid or has been revoked")
        return Agent.from_token(token), token

    def authenticate_header(self, request) -> str:
        # A WWW-Authenticate header is what makes DRF answer 401 rather than 403.
        return 'Bearer realm="api"'


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.auth.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return build_bearer_security_scheme_object(header_name="Authorization", token_prefix="Bearer")


class LimitedJSONParser(JSONParser):
    """JSON bodies, checked before any view sees them.

    DRF reads the body stream itself, bypassing Django's DATA_UPLOAD_MAX_MEMORY_SIZE, so the limit is enforced
    here; and values that parse but cannot be stored or answered safely are refused naming their field.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        request = parser_context.get("request")
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
        except ValueError:
            declared = 0
        if limit is not None and declared > limit:
            raise PayloadTooLarge(too_large_message())
        data = stream.read(limit + 1) if limit is not None else stream.read()
        if limit is not None and len(data) > limit:
            raise PayloadTooLarge(too_large_message())
        try:
            text = data.decode(parser_context.get("encoding") or settings.DEFAULT_CHARSET)
        except (UnicodeDecodeError, LookupError) as exc:
            raise exceptions.ParseError("the body is not valid UTF-8 JSON") from exc
        try:
            value = json.loads(text)  # NaN and Infinity parse here and are refused below, naming the field
        except RecursionError as exc:
            raise exceptions.ParseError(f"the JSON is nested too deeply (limit {MAX_JSON_DEPTH} levels)") from exc
        except ValueError as exc:
            raise exceptions.ParseError(f"the body is not valid JSON: {exc}") from exc
        # A NUL may reach the views: a search query may carry one, and every write refuses it (clean_fields).
        problem = unstorable(value, nul_allowed=True)
        if problem:
            raise exceptions.ValidationError({problem.path or "non_field_errors": [problem.why]})
        return value


class AgentAPIMixin:
    """What every authenticated endpoint shares: bearer tokens only, JSON in and out."""

    authentication_classes = [BearerTokenAuthentication]
    permission_classes = [IsAuthenticated]
    parser_classes = [LimitedJSONParser]
    renderer_classes = [JSONRenderer]


def agent_of(request) -> Agent:
    return request.user
