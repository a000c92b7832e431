"""The OpenAPI schema and a Swagger UI page that works offline: its assets come from the installed
drf-spectacular-sidecar package, served here, so no CDN and no collectstatic are needed."""

from __future__ import annotations

import mimetypes
from pathlib import Path

import drf_spectacular_sidecar
from django.http import FileResponse, Http404
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularSwaggerSplitView

SWAGGER_DIR = (
    Path(drf_spectacular_sidecar.__file__).resolve().parent / "static" / "drf_spectacular_sidecar" / "swagger-ui-dist"
)
ASSETS = {"swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "favicon-32x32.png"}


# The page's script is served by the same view (?script), not inline, so the site's strict CSP holds for scripts;
# Swagger UI sets style attributes, so this page alone allows inline styles.
DOCS_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"
)


class OfflineSwaggerView(SpectacularSwaggerSplitView):
    url_name = "api:schema"

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        response["Content-Security-Policy"] = DOCS_POLICY
        return response

    @staticmethod
    def _swagger_ui_resource(filename):
        return reverse("api:docs-asset", args=[filename])

    @staticmethod
    def _swagger_ui_favicon():
        return reverse("api:docs-asset", args=["favicon-32x32.png"])


@require_GET
@cache_control(max_age=86400, public=True)
def docs_asset(request, name: str):
    if name not in ASSETS:
        raise Http404(name)
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return FileResponse(open(SWAGGER_DIR / name, "rb"), content_type=content_type)
