"""Capture at session end: the durable facts of a Claude Code transcript, picked by rules or by an LLM, each sent
through the write gate with the session id; through POST /api/v1/capture and the session-end hook.

The transcripts in tests/samples/transcripts/ are Claude Code's JSON lines (user and assistant events, text,
thinking, tool_use and tool_result blocks, meta events, a summary line). Precision is measured on all of them:
WORTH_KEEPING lists, for each transcript, the facts a person would want a later session to know, judged strictly
(a fact that was stale by the end of the session, or true but of no use, is not worth keeping). chatter,
slow-search and ci-migration were used to correct the rules after their first measurement; django-upgrade and
nightly-export were written afterwards and measured once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from memoryhub.agents.capture import capture_session, rule_candidates
from memoryhub.agents.tokens import create_token
from memoryhub.agents.transcripts import read_turns
from memoryhub.models import Memory
from tests.fake_openai import FakeOpenAI, chat_answer
from tests.integrations.test_it_runs_hooks import REMEMBER_HOOK, run_hook
from tests.live_server import LiveServer, free_port, migrated_store
from tests.live_server import create_token as create_live_token

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "samples" / "transcripts"

# Everything the rules pick, in the order they keep it (explicit requests, decisions, fixes, preferences, rules,
# procedures); the ones not in WORTH_KEEPING are the rules' mistakes.
PICKED = {
    "flaky-checkout": [
        "The Stripe mock must be reset between tests, it has bitten us twice already.",
        "The root cause was that the Stripe mock kept its state between tests, so the second test saw the payment "
        "intent created by the first one.",
        "The fix was to call `stripe_mock.reset()` in the `checkout_client` fixture before each test.",
        "I prefer running the checkout suite with pytest -x locally so it stops at the first failure.",
        "Never add retries to CI jobs to hide flaky tests.",
    ],
    "invoice-pdf": [
        "The invoice bucket key is AKIAIOSFODNN7EXAMPLE with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, we "
        "need it for the deploy.",
        "We decided to use WeasyPrint for invoices because wkhtmltopdf is no longer maintained.",
        "It turns out WeasyPrint needs the Pango system library: on the Debian base image, install it with "
        "`apt-get install -y libpango-1.0-0 libpangoft2-1.0-0` before `pip install`.",
        "Always render invoices in A4, never in US Letter, even for customers in the US.",
        "To preview an invoice locally, run `make invoice-preview ORDER=123` and open the PDF it writes to "
        "/tmp/invoices.",
    ],
    "questions-only": [],
    "port-clash": [
        "The Docker database for the webshop listens on port 5433 on my machine, not 5432.",
        "The problem was a local PostgreSQL from Homebrew listening on port 5432 next to the Docker one.",
        "I like short commit messages in the imperative mood, like 'Fix checkout retry'.",
        "Never run `docker compose down -v` in this project: it deletes the volume with the seeded product "
        "catalogue, and seeding it again takes twenty minutes.",
    ],
    "chatter": [
        "For the feature flags: we decided to keep them in Unleash rather than in environment variables, so product "
        "can flip them without a deploy.",
        "It turns out the Unleash client caches flag values for 30 seconds, so a flipped flag takes up to half a "
        "minute to reach the webshop.",
    ],
    "slow-search": [
        "The cause was an N+1 query: the template reads `product.images.first` for every row without a prefetch.",
        "The fix was to add `prefetch_related('images')` to the search queryset; the page now makes 3 queries "
        "instead of 1200.",
        "I want the search tests to assert the query count from now on.",
        "I prefer that you run the whole test suite before saying you are done.",
        "Never trust the page timing in DEBUG mode, by the way: the debug toolbar itself adds about 300 ms.",
    ],
    "ci-migration": [
        "The deploy job will need the same Postgres health check when we move it.",
        "We decided to keep Jenkins running in parallel until the end of the month, then switch it off.",
        "The issue was that the Postgres service container needs a health check; without `--health-cmd "
        "pg_isready` the tests start before the database accepts connections.",
        "Always pin actions to a full commit SHA, not to a tag, that's our supply-chain policy.",
        "To run the workflow locally before pushing, use `act -j test` with the medium runner image.",
    ],
    "django-upgrade": [
        "We agreed that every dependency upgrade gets its own PR with the changelog linked in the description.",
        "The root cause is that Django 5.1 removed `index_together`; the payments models still declare it in their "
        "Meta classes.",
        "It turns out the Celery 5.4 upgrade needs Python 3.9 or newer, which we already have.",
        "Always run `python -Wd manage.py test` after a Django upgrade: deprecation warnings show what the next "
        "version will remove.",
    ],
    "nightly-export": [
        "Only the worker-1 host may run scheduled jobs, the web hosts must not.",
        "The fix was to move the export into a Celery beat schedule, which runs it once for the whole cluster.",
        "Never change the CSV column order, accounting's macro depends on it.",
    ],
}
NOT_WORTH_KEEPING = {
    # Stale by the end of the session: the models were fixed in the next turn.
    PICKED["django-upgrade"][1],
    # True, but a requirement already met is of no use later.
    PICKED["django-upgrade"][2],
}
SECRET = PICKED["invoice-pdf"][0]  # picked, but the gate refuses it: never stored


def turns_of(name: str) -> list[dict[str, str]]:
    return read_turns(str(TRANSCRIPTS / f"{name}.jsonl"))[0]


def test_the_transcript_reader_keeps_only_what_was_said():
    turns = turns_of("flaky-checkout")
    text = "\n".join(t["text"] for t in turns)
    assert [t["role"] for t in turns[:3]] == ["user", "assistant", "assistant"]
    assert "Traceback" not in text  # tool results
    assert "gh run view" not in text  # tool calls
    assert "I should always look at the CI logs first" not in text  # thinking
    assert "/clear" not in text  # meta events
    assert turns[0]["text"] == "The checkout tests fail randomly on CI, can you look at why?"
    reminder = turns_of("questions-only")[-2]["text"]
    assert reminder == "No thanks, that's all for today."  # the injected system reminder is gone


def test_a_transcript_cut_mid_line_still_reads(tmp_path):
    whole = (TRANSCRIPTS / "port-clash.jsonl").read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(whole + '{"type": "assistant", "message": {"content": [{"type": "text", "text": "half')
    assert read_turns(str(cut))[0] == turns_of("port-clash")


@pytest.mark.parametrize("name", sorted(PICKED))
def test_the_rules_pick_each_transcripts_facts(name):
    assert [c.content for c in rule_candidates(turns_of(name))] == PICKED[name]


@pytest.mark.parametrize(
    ("role", "said", "kept"),
    [
        ("user", "Please remember that staging deploys need a VPN connection to the bastion host.",
         "Staging deploys need a VPN connection to the bastion host."),
        ("user", "Remember to push the branch when you are done with it.", None),
        ("user", "I want you to look at the logs for the checkout job first.", None),
        ("user", "We want to keep the public API backwards compatible across minor releases.",
         "We want to keep the public API backwards compatible across minor releases."),
        ("assistant", "We decided to look at the logging setup later this week.", None),
        ("assistant", "If we rename it, we should never leave the old name behind as an alias.", None),
        ("assistant", "Should we always run the migrations before the tests in CI?", None),
        ("assistant", "Always a pleasure to clean up the CI configuration for you!", None),
        ("assistant", "It turned out fine in the end, the pipeline takes six minutes now.", None),
        ("assistant", "I prefer tabs over spaces for all the Makefiles in this repository.", None),  # not the person
        ("user", "The fix was that.", None),  # too short to stand alone
    ],
)  # fmt: skip
def test_a_sentence_is_kept_only_when_it_states_a_lasting_fact(role, said, kept):
    picked = [c.content for c in rule_candidates([{"role": role, "text": said}])]
    assert picked == ([kept] if kept else [])


def test_what_the_rules_store_is_worth_keeping_at_least_nine_times_in_ten():
    stored = [fact for facts in PICKED.values() for fact in facts if fact != SECRET]
    worth = [fact for fact in stored if fact not in NOT_WORTH_KEEPING]
    assert (len(stored), len(worth)) == (32, 30)
    assert len(worth) / len(stored) >= 0.9


@pytest.mark.django_db
def test_each_fact_goes_through_the_gate_with_the_session_id(real_embedder):
    report = capture_session(turns=turns_of("invoice-pdf"), project="webshop", session_id="s-8d0b", source="claude")

    assert report.extractor == "rules"
    assert [(i.outcome, i.candidate.rule) for i in report.items] == [
        ("rejected", "remember"), ("created", "decision"), ("created", "fix"), ("created", "preference"),
        ("created", "procedure"),
    ]  # fmt: skip
    assert "AKIA" not in json.dumps([i.as_dict() for i in report.items])  # the secret is not repeated back
    assert not Memory.objects.filter(content__contains="AKIA").exists()
    weasy = Memory.objects.get(content__startswith="We decided to use WeasyPrint")
    assert (weasy.project, weasy.category, weasy.source) == ("webshop", "decision", "claude")
    assert weasy.metadata == {"via": "session capture", "extractor": "rules:decision", "session_id": "s-8d0b"}

    again = capture_session(turns=turns_of("invoice-pdf"), project="webshop", session_id="s-8d0b", source="claude")

    assert [i.outcome for i in again.items] == ["rejected", "duplicate", "duplicate", "duplicate", "duplicate"]
    assert Memory.objects.count() == 4


@pytest.mark.django_db
def test_a_dry_run_says_what_would_be_stored_and_stores_nothing(real_embedder):
    report = capture_session(turns=turns_of("port-clash"), project="webshop", session_id="s", source="claude",
                             dry_run=True)  # fmt: skip
    assert [i.outcome for i in report.items] == ["created"] * 4
    assert Memory.objects.count() == 0


@pytest.fixture
def llm(settings):
    with FakeOpenAI() as server:
        settings.MEMORYHUB_LLM_BASE_URL = server.base_url
        settings.MEMORYHUB_LLM_MODEL = "fake-model"
        settings.MEMORYHUB_LLM_RETRIES = 0
        settings.MEMORYHUB_CAPTURE_MAX_INPUT_CHARS = 2000
        settings.MEMORYHUB_CAPTURE_MAX_PER_SESSION = 2
        yield server


@pytest.mark.django_db
def test_with_an_llm_configured_it_extracts_with_thinking_off_bounded_input_and_a_cap(llm, real_embedder):
    llm.reply(chat_answer(json.dumps({"memories": [
        {"content": "Invoices are rendered with WeasyPrint; wkhtmltopdf is unmaintained.", "category": "decision"},
        {"content": "The invoice bucket key is AKIAIOSFODNN7EXAMPLE.", "category": "fact"},
        {"content": "A third memory past the cap of two per session.", "category": "fact"},
    ]})))  # fmt: skip

    report = capture_session(turns=turns_of("invoice-pdf"), project="webshop", session_id="s-llm", source="claude")

    assert report.extractor == "llm:fake-model" and report.note == ""
    assert [(i.candidate.rule, i.outcome) for i in report.items] == [("llm", "created"), ("llm", "rejected")]
    stored = Memory.objects.get()
    assert stored.content == "Invoices are rendered with WeasyPrint; wkhtmltopdf is unmaintained."
    assert stored.metadata == {"via": "session capture", "extractor": "llm:fake-model", "session_id": "s-llm"}
    [request] = llm.chat_requests
    body = request.json
    assert body["reasoning_effort"] == "none" and body["think"] is False
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    transcript = body["messages"][1]["content"]
    assert len(transcript) <= 2000
    assert transcript.endswith("USER: Thanks, that's all for now.")  # the end of the session is kept
    assert "At most 2 memories" in body["messages"][0]["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("answer", "why"),
    [(chat_answer(""), "empty answer"), (chat_answer(None, reasoning_content="Let me think about the session..."),
                                        "reasoned")],
    ids=["empty", "reasoning-only"],
)  # fmt: skip
def test_an_empty_or_reasoning_only_llm_answer_is_an_error_and_the_rules_run(llm, real_embedder, answer, why):
    llm.reply(answer)

    report = capture_session(turns=turns_of("port-clash"), project="webshop", session_id="s", source="claude")

    assert report.extractor == "rules" and why in report.note
    assert [i.candidate.content for i in report.items] == PICKED["port-clash"][:2]  # the cap still holds


@pytest.mark.django_db
def test_the_capture_endpoint_uses_the_tokens_only_project_and_refuses_others(client, real_embedder):
    _, raw = create_token(name="claude", projects=["webshop"])
    headers = {"Authorization": f"Bearer {raw}"}
    body = {"turns": turns_of("nightly-export"), "session_id": "s-0a1b"}

    def post(extra: dict):
        return client.post("/api/v1/capture", data=json.dumps(body | extra), content_type="application/json",
                           headers=headers)  # fmt: skip

    dry = post({"dry_run": True})
    assert dry.status_code == 200 and [i["outcome"] for i in dry.json()["items"]] == ["created"] * 3
    assert Memory.objects.count() == 0
    done = post({})
    assert done.status_code == 200
    assert done.json()["counts"] == {"created": 3, "merged": 0, "duplicate": 0, "rejected": 0}
    assert set(Memory.objects.values_list("project", flat=True)) == {"webshop"}
    assert post({"project": "billing"}).status_code == 403
    assert post({"turns": [{"role": "system", "text": "x"}]}).status_code == 400


@pytest.mark.slow
def test_the_session_end_hook_captures_the_transcript_once_and_fails_open(store_template, tmp_path):
    store = migrated_store(store_template, tmp_path / "store")
    folder = tmp_path / "webshop"
    folder.mkdir()
    transcript = tmp_path / "session.jsonl"
    transcript.write_text((TRANSCRIPTS / "flaky-checkout.jsonl").read_text())
    state = str(tmp_path / "captured.json")
    event = {"session_id": "3f2a9c1e", "cwd": str(folder), "hook_event_name": "Stop",
             "transcript_path": str(transcript)}  # fmt: skip
    with LiveServer(store, threads=2) as live:
        token = create_live_token(store, "claude-code", "--project", "webshop")

        def hook(*argv: str):
            environment = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYHUB_")}
            environment |= {"MEMORYHUB_URL": live.url, "MEMORYHUB_TOKEN": token, "MEMORYHUB_CAPTURE_STATE": state}
            return subprocess.run([sys.executable, str(REMEMBER_HOOK), *argv], input=json.dumps(event),
                                  capture_output=True, text=True, env=environment, timeout=120)  # fmt: skip

        dry = hook("--dry-run")
        first = hook()
        second = hook()  # a Stop hook runs after every turn: nothing new, nothing sent
        with transcript.open("a") as out:
            said = "Remember that the checkout suite needs Redis 7 because it uses the FUNCTION command."
            out.write(json.dumps({"type": "user", "message": {"role": "user", "content": said}}) + "\n")
        third = hook()
        stored = httpx.get(f"{live.url}/api/v1/memories", params={"project": "webshop", "limit": 50},
                           headers={"Authorization": f"Bearer {token}"}, timeout=30).json()["results"]  # fmt: skip

    assert dry.returncode == 0 and dry.stdout.splitlines() == [f"created: [{c or '-'}] {f}" for c, f in zip(
        ["", "gotcha", "gotcha", "preference", "preference"], PICKED["flaky-checkout"], strict=True)]  # fmt: skip
    assert first.returncode == 0 and first.stdout == ""
    assert "5 created" in first.stderr, first.stderr
    assert second.returncode == 0 and second.stderr == ""
    assert "1 created" in third.stderr, third.stderr
    assert len(stored) == 6
    assert {m["metadata"]["session_id"] for m in stored} == {"3f2a9c1e"}
    assert "The checkout suite needs Redis 7 because it uses the FUNCTION command." in {m["content"] for m in stored}

    down = run_hook(REMEMBER_HOOK, event, url=f"http://127.0.0.1:{free_port()}", token=token,
                    MEMORYHUB_CAPTURE_STATE=str(tmp_path / "other.json"), MEMORYHUB_PROJECT="webshop")  # fmt: skip
    assert down.returncode == 0 and "unreachable" in down.stderr
