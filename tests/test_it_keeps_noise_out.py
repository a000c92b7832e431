"""The gate keeps durable writes and refuses chatter, measured on the labelled set (bench/gate_set.py):
durable kept >= 97%, noise refused >= 85%, secrets refused 100%; the rates printed by `python -m bench gate`."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from bench.commands import command
from bench.commands.gate import judge
from bench.gate_set import DURABLE, NOISE, secret_writes
from memoryhub.models import GateLogEntry, Memory
from memoryhub.writes.gate import gate_write
from memoryhub.writes.noise import noise_reason


def test_the_set_is_big_enough_and_balanced():
    assert len(DURABLE) + len(NOISE) >= 150
    assert abs(len(DURABLE) - len(NOISE)) <= 0.1 * (len(DURABLE) + len(NOISE))
    assert len(set(DURABLE) | set(NOISE)) == len(DURABLE) + len(NOISE)  # no write labelled twice


def test_durable_writes_are_kept():
    refused = [(text, judge(text), noise_reason(text)) for text in DURABLE if judge(text)]
    assert 1 - len(refused) / len(DURABLE) >= 0.97, refused


def test_noise_is_refused():
    kept = [text for text in NOISE if judge(text) is None]
    assert 1 - len(kept) / len(NOISE) >= 0.85, kept


def test_every_secret_is_refused_as_a_secret():
    missed = [kind for kind, text in secret_writes() if judge(text) != "secret"]
    assert missed == []


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Started working on the ticket. Will update later.", "session log"),
        ("thanks, that works!", "acknowledgement"),
        ("hmm let me think about this", "thinking aloud"),
        ("Step 1 done. Step 2 done.", "status or progress"),
        ("today I worked on the invoice bug and then had lunch", "session log"),
        ("Session summary: fixed the login redirect, added tests, updated docs.", "session log"),
        ("2024-05-01 12:00:01,123 ERROR [checkout] Payment declined for order 4411", "log output"),
        ("Should we use Redis for this?", "question"),
        ("TODO: add tests for the export endpoint", "plan for later"),
    ],
)
def test_each_refusal_says_why_so_the_agent_can_act(text, why):
    assert why in (noise_reason(text) or "")


@pytest.mark.django_db
def test_through_the_gate_durable_writes_are_stored_and_noise_is_logged():
    """A sample through the real gate (the real embedder, the duplicate check): stored or refused as judged."""
    for text in DURABLE[::8]:
        result = gate_write(content=text, project="alpha", source="eval")
        assert result.outcome == "created", (text, result.reason)
    for text in NOISE[::8]:
        result = gate_write(content=text, project="alpha", source="eval")
        assert (result.outcome, result.kind) == ("rejected", "noise"), text
        assert result.reason.startswith("refused: it ")
    assert Memory.objects.count() == len(DURABLE[::8])
    assert GateLogEntry.objects.filter(kind="noise").count() == len(NOISE[::8])


# A change of schedule is what memory must keep up with; the same words as the heading of a report, or away from
# the keyboard, are a session's chatter.
@pytest.mark.parametrize(
    "text, noise",
    [
        ("Standup is now at 10:00 instead of 9:30.", False),
        ("Standup moved to 10:00.", False),
        ("Team lunch is on Fridays now.", False),
        ("Standup: fixed the login bug and reviewed two PRs.", True),
        ("Daily standup notes - worked on the cache.", True),
        ("Back from lunch, continuing the refactor.", True),
        ("Going to lunch, will resume after.", True),
        ("Just a note: I'm taking a break.", True),
    ],
)
def test_a_standup_or_a_lunch_is_noise_only_as_chatter(text, noise):
    assert bool(noise_reason(text)) is noise, noise_reason(text)


def test_eval_gate_prints_the_rates():
    out = io.StringIO()
    call_command(command("gate"), no_fold=True, stdout=out)  # the rules alone; the fold pairs need a store
    text = out.getvalue()
    kept = sum(judge(t) is None for t in DURABLE)
    assert f"durable kept     {kept:>4} / {len(DURABLE):<4}" in text
    assert "noise refused" in text and "secrets refused" in text
    assert "secret kinds in the set: " in text


@pytest.mark.django_db
def test_an_llm_judges_only_what_the_rules_are_unsure_of_and_its_failures_leave_the_rules_verdict(settings):
    from memoryhub.writes.noise import judge_noise, noise_verdict
    from tests.fake_openai import FakeOpenAI, chat_answer

    unsure, sure_noise = "Pizza for the team on Friday", "thanks, that works!"
    assert noise_verdict(unsure) == (None, False) and noise_verdict(sure_noise)[1] is True
    with FakeOpenAI() as fake:
        settings.MEMORYHUB_LLM_BASE_URL, settings.MEMORYHUB_LLM_MODEL = fake.base_url, "fake"
        settings.MEMORYHUB_LLM_RETRIES = 0
        settings.MEMORYHUB_GATE_LLM_JUDGE = True
        fake.reply(chat_answer('{"durable": false, "why": "social chatter, not about the work"}'))
        assert "social chatter" in judge_noise(unsure)
        assert judge_noise(sure_noise) == noise_verdict(sure_noise)[0]  # asked nothing
        assert len(fake.requests) == 1
        body = fake.requests[0].json
        assert body["reasoning_effort"] == "none" and body["messages"][1]["content"] == unsure
        # Reasoning although thinking was off, an empty answer, a malformed one: the rules decide (kept).
        fake.reply(chat_answer('{"durable": false}', reasoning_content="let me think"))
        fake.reply(chat_answer(""))
        fake.reply(chat_answer('{"verdict": "noise"}'))
        assert [judge_noise(unsure) for _ in range(3)] == [None, None, None]
        settings.MEMORYHUB_GATE_LLM_JUDGE = False
        assert judge_noise(unsure) is None and len(fake.requests) == 4


def test_the_benchmark_corpus_and_the_demo_memories_pass_the_rules():
    """Thousands of generated durable memories (identifiers, paths, error messages): none is judged noise or a
    secret, so the rules do not key on words such as 'merge', 'media' or 'token'."""
    from bench import corpus
    from memoryhub.memories import demo

    texts = [m["content"] for m in corpus.memories(2000)] + [m["content"] for m in demo.DEMO_MEMORIES]
    refused = [(text, judge(text)) for text in texts if judge(text)]
    assert refused == []


@pytest.mark.django_db
def test_new_text_for_an_existing_memory_passes_the_noise_rules_on_every_route(client, django_user_model):
    from memoryhub.agents.tokens import Agent
    from memoryhub.agents.tools import ToolError, call_tool
    from memoryhub.memories.store import create_memory
    from memoryhub.models import Proposal
    from tests.api.conftest import error_of, make_agent
    from ui.forms import version_of

    fact = "The alpha API listens on port 8080"
    memory = create_memory(content=fact, project="alpha")
    claude = make_agent("claude", projects=["alpha"])
    response = claude.patch(f"memories/{memory.pk}", {"content": "thanks, that works!"})
    assert response.status_code == 422 and error_of(response)["code"] == "rejected_noise"
    assert "acknowledgement" in error_of(response)["fields"]["content"][0]
    with pytest.raises(ToolError) as caught:
        call_tool(name="memory_update", arguments={"id": memory.pk, "content": "Step 1 done. Step 2 done."},
                  agent=Agent(name="claude", projects=["alpha"]))  # fmt: skip
    assert caught.value.status == 422 and "status or progress" in caught.value.message
    other = create_memory(content="The alpha API answers on port 8080 over HTTP", project="alpha")
    proposal = Proposal.objects.create(
        sources=[memory.pk, other.pk], cluster_key=f"{memory.pk},{other.pk}", project="alpha", content=fact,
        category="fact", tier="semantic", tags=[], importance=0.5, rationale="same",
    )  # fmt: skip
    response = make_agent("curator").post(f"proposals/{proposal.pk}/accept", {"content": "hmm let me think"})
    assert response.status_code == 422 and error_of(response)["code"] == "rejected_noise"
    client.force_login(django_user_model.objects.create_superuser("admin", "a@example.com", "pw-for-tests-only"))
    response = client.post(
        f"/memories/{memory.pk}/edit/",
        {f"m{memory.pk}-content": "Working on it.", f"m{memory.pk}-version": version_of(memory)},
    )
    assert response.status_code == 422 and "status or progress" in response.content.decode()
    memory.refresh_from_db()
    proposal.refresh_from_db()
    assert memory.content == fact and proposal.status == "pending"


@pytest.mark.parametrize(
    "text",
    [
        "I live in Lisbon and work remotely for a Berlin company.",
        "I'm allergic to penicillin.",
        "I moved to Berlin in March.",
        "I use fish as my shell on every machine.",
        "I have two daughters, Ana and Rita.",
        "I'm working at Globex since January.",
        "I switched to Neovim last year.",
        "I run Arch Linux on my laptop.",
    ],
)
def test_a_person_stating_a_fact_about_themselves_in_the_first_person_is_kept(text):
    assert noise_reason(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "I checked the config and it looks fine.",
        "I'm taking a look now.",
        "I just pushed the fix.",
        "I'm stuck on the migration.",
        "I've updated the README.",
        "I was debugging the flaky test all morning.",
        "I then restarted the worker.",
        "I see the problem now.",
    ],
)
def test_a_session_narrating_its_work_in_the_first_person_is_refused(text):
    assert noise_reason(text), text


@pytest.mark.parametrize(
    "text, noise",
    [
        ("Added a read replica for the reporting queries.", False),
        ("Set up a nightly job that vacuums the events table.", False),
        ("Added tests and pushed the branch.", True),
        ("Created a PR for the fix.", True),
        ("Added a few helper functions to utils.py.", True),
        ("Added logging.", True),
        ("No GPUs: everything fits on CPU.", False),
        ("No, that is fine.", True),
    ],
)
def test_what_the_system_now_has_is_a_fact_and_the_sessions_own_work_is_a_log(text, noise):
    assert bool(noise_reason(text)) is noise, noise_reason(text)


@pytest.mark.parametrize(
    ("text", "noise"),
    [
        # a person's standing instruction, whatever clause follows its verb
        ("Rotate the staging API keys after anyone leaves the team; I'll tell you when.", False),
        ("Merge only after CI is green and at least one human approved.", False),
        ("Use `gh pr create --draft` for work in progress.", False),
        # a lesson: tried and given up
        ("We tried SQLite for tests and gave up; it masks Postgres-specific bugs.", False),
        # the session pointing at itself
        ("Installed the dependencies, no warnings this time.", True),
        ("Generated 250 rows of fake data for the demo you asked for.", True),
        ("About 60% through the migration script.", True),
        ("Deploy to staging: in progress (step 4 of 7).", True),
    ],
)  # fmt: skip
def test_instructions_and_lessons_are_kept_and_a_session_pointing_at_itself_is_not(text, noise):
    assert bool(noise_reason(text)) == noise
