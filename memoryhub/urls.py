from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("metrics", include("api.metrics_urls")),  # Prometheus text (api/views/metrics.py)
    path("api/v1/", include("api.urls")),
    path("", include("api.proxy_urls")),  # /v1/chat/completions, /v1/models (chat proxy) and /mcp
    path("", include("ui.urls")),
]

# JSON errors (the API's one error shape) under /api/; Django's stock pages elsewhere.
handler400 = "api.errors.handler400"
handler404 = "api.errors.handler404"
handler500 = "api.errors.handler500"
