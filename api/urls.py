"""Everything under /api/v1/. Paths answer with or without a trailing slash."""

from django.urls import path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import SimpleRouter

from api.views.agents import CaptureView, ImportFromView, WhoamiView
from api.views.docs import OfflineSwaggerView, docs_asset
from api.views.memories import MemoryViewSet
from api.views.proposals import ProposalViewSet
from api.views.retrieval import ExportView, HealthView, RecallView, SearchView, ToolCallView, ToolsView

app_name = "api"


class OptionalSlashRouter(SimpleRouter):
    """`memories` and `memories/` both answer: agents write either, and a redirect would drop a POST body."""

    def __init__(self):
        super().__init__()
        self.trailing_slash = "/?"


router = OptionalSlashRouter()
router.register("memories", MemoryViewSet, basename="memory")
router.register("proposals", ProposalViewSet, basename="proposal")

urlpatterns = [
    re_path(r"^health/?$", HealthView.as_view(), name="health"),
    re_path(r"^search/?$", SearchView.as_view(), name="search"),
    re_path(r"^recall/?$", RecallView.as_view(), name="recall"),
    re_path(r"^tools/?$", ToolsView.as_view(), name="tools"),
    re_path(r"^tools/call/?$", ToolCallView.as_view(), name="tools-call"),
    re_path(r"^export/?$", ExportView.as_view(), name="export"),
    re_path(r"^whoami/?$", WhoamiView.as_view(), name="whoami"),
    re_path(r"^import_from/?$", ImportFromView.as_view(), name="import-from"),
    re_path(r"^capture/?$", CaptureView.as_view(), name="capture"),
    path("schema", SpectacularAPIView.as_view(), name="schema"),
    path("docs", OfflineSwaggerView.as_view(), name="docs"),
    # The page loads its assets relative to `docs`; `docs/` is sent there rather than served with broken links.
    path("docs/", RedirectView.as_view(pattern_name="api:docs", permanent=True)),
    path("docs/assets/<str:name>", docs_asset, name="docs-asset"),
    *router.urls,
]
