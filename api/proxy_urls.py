"""Mounted at the site root: OpenAI clients expect `<base>/v1/...`, MCP clients a plain `/mcp`."""

from django.urls import re_path

from api import proxy_views

urlpatterns = [
    # With or without the slash: APPEND_SLASH would answer a POST with a redirect that clients do not follow.
    re_path(r"^v1/chat/completions/?$", proxy_views.chat_completions, name="proxy-chat-completions"),
    re_path(r"^v1/models/?$", proxy_views.models, name="proxy-models"),
    re_path(r"^mcp/?$", proxy_views.mcp_endpoint, name="mcp"),
]
