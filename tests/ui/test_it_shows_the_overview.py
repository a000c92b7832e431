"""The overview: counts per project, category, tier and status; calls per agent; the recall block's size."""

from __future__ import annotations

import re
from datetime import timedelta

from django.utils import timezone

from memoryhub.models import UsageRecord


def table(html: str, table_id: str) -> dict[str, str]:
    body = html[html.index(f'id="{table_id}"') :]
    body = body[: body.index("</table>")]
    rows = re.findall(r"<tr><th scope=\"row\">(?:<a [^>]*>)?([^<]+)(?:</a>)?</th>(.*?)</tr>", body, re.S)
    return {name.strip(): re.sub(r"<[^>]+>", " ", cells).split() for name, cells in rows}


def test_it_counts_memories_per_project_category_tier_and_status(ui, store):
    html = ui.get("/overview/").content.decode()
    assert table(html, "by-project") == {"alpha": ["2"], "beta": ["1"], "global": ["1"]}
    assert table(html, "by-category")["decision"] == ["1"]
    assert table(html, "by-tier") == {"semantic": ["3"], "procedural": ["1"]}
    assert table(html, "by-status") == {"active": ["4"], "unconfirmed": ["3"], "confirmed": ["1"]}


def test_it_counts_writes_and_searches_per_agent(ui, store):
    for agent, kind, n in [("claude", "write", 3), ("claude", "search", 5), ("codex", "search", 2)]:
        for _ in range(n):
            UsageRecord.objects.create(agent=agent, kind=kind, project="alpha")
    html = ui.get("/overview/").content.decode()
    head = html[html.index('id="agent-usage"') :]
    assert re.findall(r'<th scope="col" class="num">(\w+)</th>', head)[:3] == ["search", "write", "total"]
    assert table(html, "agent-usage") == {"claude": ["5", "3", "8"], "codex": ["2", "0", "2"]}


def test_it_shows_the_recall_block_size_per_project(ui, store):
    UsageRecord.objects.create(agent="claude", kind="recall", project="alpha", recall_chars=350)
    UsageRecord.objects.create(agent="claude", kind="recall", project="alpha", recall_chars=250)
    html = ui.get("/overview/").content.decode()
    rows = table(html, "recall-sizes")
    assert set(rows) == {"global", "alpha", "beta"}
    chars, _, memories, avg_sent, calls = rows["alpha"]
    assert 0 < int(chars) <= 400 and int(memories) >= 2  # both alpha memories and the global fit
    assert (avg_sent, calls) == ("300", "2")
    assert rows["beta"][-2:] == ["—", "0"]
    # Looking at the overview is not use: nothing was reinforced.
    assert all(m.access_count == 0 for m in store.values())


def test_it_shows_the_chat_proxy_per_day_and_agent(ui, store):
    now = timezone.now()
    for agent, days_ago, recall, tools, prompt, completion, ms in [
        ("claude", 0, 300, 1, 1000, 200, 100.0),
        ("claude", 0, 100, 0, 500, 100, 300.0),
        ("codex", 0, 50, 2, 10, 5, 50.0),
        ("claude", 1, 0, 0, 7, 3, 20.0),
        ("claude", 20, 999, 9, 9, 9, 9.0),  # older than the window
    ]:
        UsageRecord.objects.create(
            agent=agent, kind="proxy", recall_chars=recall, tool_calls=tools, prompt_tokens=prompt,
            completion_tokens=completion, latency_ms=ms, created_at=now - timedelta(days=days_ago),
        )  # fmt: skip
    UsageRecord.objects.create(agent="claude", kind="search", project="alpha")  # not the proxy
    html = ui.get("/overview/").content.decode()
    body = html[html.index('id="proxy-usage"') :]
    body = body[: body.index("</table>")]
    rows = [re.sub(r"<[^>]+>", " ", row).split() for row in re.findall(r"<tr><th scope=\"row\">(.*?)</tr>", body, re.S)]
    today, yesterday = timezone.localdate(now).isoformat(), timezone.localdate(now - timedelta(days=1)).isoformat()
    assert rows == [
        [today, "claude", "2", "400", "1", "1500", "300", "200"],
        [today, "codex", "1", "50", "2", "10", "5", "50"],
        [yesterday, "claude", "1", "0", "0", "7", "3", "20"],
    ]
    assert 'aria-label="2 requests"' in body


def test_it_says_when_nothing_went_through_the_proxy(ui, store):
    html = ui.get("/overview/").content.decode()
    assert "No request went through the chat proxy in the last 14 days." in html


def test_the_recall_preview_uses_the_configured_budget(ui, store, settings):
    settings.MEMORYHUB_RECALL_BUDGET_CHARS = 120
    html = ui.get("/overview/").content.decode()
    assert "budget 120 characters" in html
    chars = int(table(html, "recall-sizes")["alpha"][0])
    assert 0 < chars <= 120
    assert f"{chars} of 120 characters" in html
