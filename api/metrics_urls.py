"""GET /metrics at the site's root, where Prometheus looks by default (api/views/metrics.py)."""

from django.urls import path

from api.views.metrics import metrics_view

urlpatterns = [path("", metrics_view, name="metrics")]
