"""GET /metrics: Prometheus text over every worker of `serve --workers 2` (the search histogram counts every search
made, whichever worker answered it), requests by route and status, writes by gate outcome, the store's figures;
open to 127.0.0.1 only unless MEMORYHUB_METRICS_TOKEN is set."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.parser import text_string_to_metric_families

from tests.live_server import LiveServer, create_token, migrated_store


def samples(text: str) -> dict[tuple[str, tuple], float]:
    """(sample name, sorted labels) -> value, from Prometheus text (the parser raises on anything malformed)."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_two_workers_answer_one_view_of_every_search_and_write(store_template, tmp_path):
    db = migrated_store(store_template, tmp_path)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    # TMPDIR: the workers' metric files land where the test can see whose they are.
    server = LiveServer(db, threads=4, workers=2, env={"TMPDIR": str(scratch)}).start()
    try:
        token = create_token(db, "agent-1")
        auth = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=server.url, headers=auth, timeout=60) as http:
            created = http.post("/api/v1/memories", json={"content": "The nightly export runs at 02:00 UTC"})
            assert created.status_code == 201
            again = http.post("/api/v1/memories", json={"content": "The nightly export runs at 02:00 UTC"})
            assert again.json()["outcome"] in ("duplicate", "merged")
            refused = http.post("/api/v1/memories", json={"content": "ok"})
            assert refused.status_code == 422
        searches = {"hybrid": 0, "keyword": 0}

        def shares() -> dict[str, float]:
            """Searches counted by each worker, from its own file (histogram_<pid>.db: one value per bucket)."""
            counted = {}
            for path in scratch.glob("memoryhub-metrics-*/histogram_*.db"):
                values = MmapedDict.read_all_values_from_file(str(path))
                found = [value for key, value, *_ in values if json.loads(key)[1] == "memoryhub_search_seconds_bucket"]
                if sum(found):
                    counted[path.name] = sum(found)
            return counted

        # A fresh connection each: whichever worker accepts it answers. On until both have answered some (usually
        # at once), and at least a dozen in all.
        while sum(searches.values()) < 12 or (len(shares()) < 2 and sum(searches.values()) < 80):
            mode = "hybrid" if sum(searches.values()) % 3 else "keyword"
            with httpx.Client(base_url=server.url, headers=auth, timeout=60) as fresh:
                answer = fresh.post("/api/v1/search", json={"query": "when does the export run", "mode": mode})
                assert answer.status_code == 200
            searches[mode] += 1
        # Both workers answered searches, each counting in its own file; no scrape sees only its own share.
        assert len(shares()) == 2 and sum(shares().values()) == sum(searches.values()), shares()

        for _ in range(4):  # every scrape, whichever worker answers it, sees every worker's counts
            with httpx.Client(base_url=server.url, timeout=60) as fresh:
                scraped = fresh.get("/metrics")
            assert scraped.status_code == 200
            assert scraped.headers["content-type"].startswith("text/plain")
            found = samples(scraped.text)
            for mode, count in searches.items():
                assert found[("memoryhub_search_seconds_count", (("mode", mode),))] == count
                assert found[("memoryhub_search_seconds_bucket", (("le", "+Inf"), ("mode", mode)))] == count
            assert found[("memoryhub_writes_total", (("outcome", "created"),))] == 1
            assert found[("memoryhub_writes_total", (("outcome", again.json()["outcome"]),))] == 1
            assert found[("memoryhub_writes_total", (("outcome", "rejected"),))] == 1
            search_route = (("route", "api:search"), ("status", "200"))
            assert found[("memoryhub_requests_total", search_route)] == sum(searches.values())
            assert found[("memoryhub_requests_total", (("route", "api:memory-list"), ("status", "422")))] == 1
            assert found[("memoryhub_memories", (("status", "active"),))] == 1
            assert found[("memoryhub_memories", (("status", "superseded"),))] == 0
            assert found[("memoryhub_database_bytes", ())] > 0
            assert found[("memoryhub_embedding_seconds_count", (("provider", "local"),))] >= 1
            assert found[("memoryhub_write_queue", ())] == 0
    finally:
        server.stop()
    assert not list(scratch.glob("memoryhub-metrics-*")), "the metric files are removed when the server stops"


@pytest.mark.django_db
def test_metrics_are_for_loopback_or_the_token_only(client, settings):
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200
    refused = client.get("/metrics", REMOTE_ADDR="10.1.2.3")
    assert refused.status_code == 403
    assert "127.0.0.1" in refused.json()["error"]["message"]

    settings.MEMORYHUB_METRICS_TOKEN = "scrape-me-please"
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 403
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 403  # the token, from anywhere
    wrong = client.get("/metrics", REMOTE_ADDR="10.1.2.3", HTTP_AUTHORIZATION="Bearer scrape-me")
    assert wrong.status_code == 403
    right = client.get("/metrics", REMOTE_ADDR="10.1.2.3", HTTP_AUTHORIZATION="Bearer scrape-me-please")
    assert right.status_code == 200
    assert samples(right.content.decode())[("memoryhub_database_bytes", ())] > 0
    assert client.post("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 405


def test_the_dashboard_json_names_only_metrics_the_server_exposes():
    import json
    import re

    dashboard = json.loads((Path(__file__).resolve().parents[1] / "docs" / "grafana-dashboard.json").read_text())
    queries = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    named = {name for query in queries for name in re.findall(r"\bmemoryhub_[a-z_]+", query)}
    exposed = {
        "memoryhub_requests_total", "memoryhub_search_seconds_bucket", "memoryhub_search_seconds_count",
        "memoryhub_search_seconds_sum", "memoryhub_writes_total", "memoryhub_embedding_seconds_bucket",
        "memoryhub_embedding_seconds_count", "memoryhub_embedding_seconds_sum", "memoryhub_write_queue",
        "memoryhub_memories", "memoryhub_database_bytes",
    }  # fmt: skip
    assert named and named <= exposed, named - exposed
