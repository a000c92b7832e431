"""Bearer-token authentication for agents, a size-limited JSON parser, and the base every API view shares."""

from __future__ import annotations

import io

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer

from api.errors import PayloadTooLarge, too_large_message
from memoryhub.tokens import Agent, verify_token


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
    """DRF reads the body stream itself, bypassing Django's DATA_UPLOAD_MAX_MEMORY_SIZE; enforce it here."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        request = (parser_context or {}).get("request")
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
        except ValueError:
            declared = 0
        message = too_large_message()
        if limit is not None and declared > limit:
            raise PayloadTooLarge(message)
        data = stream.read(limit + 1) if limit is not None else stream.read()
        if limit is not None and len(data) > limit:
            raise PayloadTooLarge(message)
        return super().parse(io.BytesIO(data), media_type, parser_context)


class AgentAPIMixin:
    """What every authenticated endpoint shares: bearer tokens only, JSON in and out."""

    authentication_classes = [BearerTokenAuthentication]
    permission_classes = [IsAuthenticated]
    parser_classes = [LimitedJSONParser]
    renderer_classes = [JSONRenderer]


def agent_of(request) -> Agent:
    return request.user
