"""The chatter head: a linear reader over the write's own embedding and its words, for chatter the sentence rules let
through (memoryhub/writes/chatter_head.py, trained by `python -m bench heads`). The shipped weights belong to the
bundled model, keep every labelled fact and instruction, and read a share of labelled chatter as chatter on their own;
the gate asks it with the vector it stores, asks more of it for a text the rules mark as durable, and it stays silent
for another model's vectors."""

from __future__ import annotations

import numpy as np
import pytest

from bench import chatter_set, gate_set, planted_set
from memoryhub.embeddings import get_embedder
from memoryhub.embeddings.heads import SLOTS, word_slots
from memoryhub.models import Proposal
from memoryhub.writes import chatter_head
from memoryhub.writes.chatter_head import Head, reads_as_chatter, reads_as_fact
from memoryhub.writes.gate_preview import preview_write
from memoryhub.writes.noise import noise_reason

CHATTER = "Poked around the retry helper a bit more and the timeouts look saner."
FACT = "The payments API retries idempotent requests three times with jitter."


def test_the_shipped_weights_belong_to_the_bundled_model():
    head = chatter_head._head()
    embedder = get_embedder()
    assert head is not None and head.model_id == embedder.model_id
    assert len(head.weights) == embedder.dimensions + SLOTS and head.vector_scale > 0
    assert 0.5 <= head.threshold < 1.0
    assert head.threshold <= head.threshold_marked < 1.0
    assert 0.0 < head.threshold_fact < 0.5  # it keeps a fact the rules refuse only when it is sure


def test_it_keeps_every_labelled_fact_and_instruction():
    embedder = get_embedder()
    kept = chatter_set.FACTS_DEV + gate_set.DURABLE + planted_set.dev_half(planted_set.ORDINARY)
    vectors = embedder.embed(kept)
    refused = [t for t, v in zip(kept, vectors, strict=True) if reads_as_chatter(t, v, model_id=embedder.model_id)]
    assert refused == []


def test_it_reads_a_share_of_labelled_chatter_as_chatter_on_its_own():
    embedder = get_embedder()
    vectors = embedder.embed(chatter_set.CHATTER_DEV)
    read = sum(
        reads_as_chatter(t, v, model_id=embedder.model_id)
        for t, v in zip(chatter_set.CHATTER_DEV, vectors, strict=True)
    )
    assert read / len(vectors) >= 0.4  # 99 of 163 when trained: it speaks only where no fact it saw sits near


def _head_that_refuses(text: str, *, threshold_marked: float = 0.0) -> Head:
    """A head aimed at one text's vector: that text reads as chatter (probability 0.993), a plain fact does not."""
    vector = get_embedder().embed([text])[0].astype(np.float32)
    return Head(weights=vector * 20, bias=-15.0, threshold=0.5, model_id=get_embedder().model_id,
                threshold_marked=threshold_marked)  # fmt: skip


@pytest.fixture
def aimed_head(monkeypatch):
    monkeypatch.setattr(chatter_head, "_head", lambda: _head_that_refuses(CHATTER))


def test_the_gate_refuses_what_the_head_reads_as_chatter(aimed_head, claude):
    assert noise_reason(CHATTER) is None  # the rules alone keep it
    response = claude.store(CHATTER, project="alpha")
    assert response.status_code == 422, response.json()
    assert "agent chatter" in str(response.json())
    assert claude.store(FACT, project="alpha").status_code == 201


def test_the_head_is_silent_for_another_models_vectors(aimed_head):
    vector = get_embedder().embed([CHATTER])[0]
    assert reads_as_chatter(CHATTER, vector, model_id=get_embedder().model_id)
    assert not reads_as_chatter(CHATTER, vector, model_id="openai:text-embedding-3-small")


def test_the_head_reads_the_texts_words_beside_its_vector(monkeypatch):
    """A head that weighs one word and not the vector reads the text with that word as chatter, whatever its vector."""
    embedder = get_embedder()
    weights = np.zeros(embedder.dimensions + SLOTS, dtype=np.float32)
    weights[embedder.dimensions + np.array(word_slots("lol"))] = 30.0
    monkeypatch.setattr(chatter_head, "_head", lambda: Head(weights=weights, bias=-15.0, threshold=0.5,
                                                            model_id=embedder.model_id))  # fmt: skip
    texts = ["The deploy went fine lol", "The deploy goes out on Tuesdays"]
    read = [
        reads_as_chatter(t, v, model_id=embedder.model_id) for t, v in zip(texts, embedder.embed(texts), strict=True)
    ]
    assert read == [True, False]


MARKED = "Poked around the retry helper a bit more because the timeouts looked off."  # "because": the rules' mark


def test_a_text_the_rules_mark_as_durable_asks_more_of_the_head(monkeypatch, claude):
    assert noise_reason(MARKED) is None
    monkeypatch.setattr(chatter_head, "_head", lambda: _head_that_refuses(MARKED, threshold_marked=0.999))
    vector = get_embedder().embed([MARKED])[0]
    model_id = get_embedder().model_id
    assert reads_as_chatter(MARKED, vector, model_id=model_id)
    assert not reads_as_chatter(MARKED, vector, model_id=model_id, marked_durable=True)
    assert claude.store(MARKED, project="alpha").status_code == 201


def test_a_marked_text_the_head_is_sure_of_is_refused(monkeypatch, claude):
    monkeypatch.setattr(chatter_head, "_head", lambda: _head_that_refuses(MARKED, threshold_marked=0.9))
    response = claude.store(MARKED, project="alpha")
    assert response.status_code == 422, response.json()
    assert "agent chatter" in str(response.json())


# The rules refuse it by its phrasing (an -ing word with no verb of theirs): a fact the head may keep.
PHRASED = "Deleting a workspace soft-deletes its files; a nightly job purges them."
CODE = "```python\ndef purge(workspace):\n    workspace.files.delete()\n```"  # refused by what it is


def _head_that_keeps(text: str) -> Head:
    """A head that reads one text's vector as a fact (probability of chatter 0.007) and refuses nothing itself."""
    vector = get_embedder().embed([text])[0].astype(np.float32)
    return Head(weights=-vector * 20, bias=15.0, threshold=0.999, model_id=get_embedder().model_id,
                threshold_marked=0.999, threshold_fact=0.2)  # fmt: skip


def test_a_fact_the_rules_refuse_by_phrasing_is_kept_when_the_head_reads_it_as_a_fact(monkeypatch, claude):
    assert noise_reason(PHRASED)  # the rules alone refuse it
    monkeypatch.setattr(chatter_head, "_head", lambda: None)
    assert claude.store(PHRASED, project="alpha").status_code == 422
    monkeypatch.setattr(chatter_head, "_head", lambda: _head_that_keeps(PHRASED))
    vector = get_embedder().embed([PHRASED])[0]
    assert reads_as_fact(PHRASED, vector, model_id=get_embedder().model_id)
    assert not reads_as_fact(PHRASED, vector, model_id="openai:text-embedding-3-small")
    assert claude.store(PHRASED, project="alpha").status_code == 201


def test_a_refusal_by_form_stands_whatever_the_head_reads(monkeypatch, claude):
    monkeypatch.setattr(chatter_head, "_head", lambda: _head_that_keeps(CODE))
    assert reads_as_fact(CODE, get_embedder().embed([CODE])[0], model_id=get_embedder().model_id)
    response = claude.store(CODE, project="alpha")
    assert response.status_code == 422, response.json()
    assert "code" in str(response.json())


STORED_FONT = "Coding font: JetBrains Mono at 14 pt."
CHANGED_FONT = "Coding font: Berkeley Mono at 14 pt."


def test_a_new_value_of_a_stored_fact_is_kept_whatever_the_head_reads(monkeypatch, claude):
    """A short change reads like chatter to the head; beside the fact it changes, the update rules know better, and
    the change goes to a person instead of being lost."""
    monkeypatch.setattr(chatter_head, "_head", lambda: _head_that_refuses(CHANGED_FONT))
    assert claude.store(CHANGED_FONT, project="alpha").status_code == 422  # nothing stored that it changes
    monkeypatch.setattr(chatter_head, "_head", lambda: None)
    stored = claude.store(STORED_FONT, project="alpha").json()["memory"]["id"]
    monkeypatch.setattr(chatter_head, "_head", lambda: _head_that_refuses(CHANGED_FONT))
    response = claude.store(CHANGED_FONT, project="alpha")
    assert response.status_code == 201, response.json()
    proposal = Proposal.objects.get(pk=response.json()["conflicts"][0])
    assert proposal.sources == [stored, response.json()["memory"]["id"]]


def test_a_dry_run_says_what_the_gate_would_do_with_such_a_change(monkeypatch, claude):
    monkeypatch.setattr(chatter_head, "_head", lambda: None)
    assert claude.store(STORED_FONT, project="alpha").status_code == 201
    monkeypatch.setattr(chatter_head, "_head", lambda: _head_that_refuses(CHANGED_FONT))
    assert preview_write(content=CHANGED_FONT, project="alpha", seen=set()).outcome == "created"
    assert preview_write(content=CHANGED_FONT, project="beta", seen=set()).outcome == "rejected"


JAPANESE_FACT = "ユーザーはエビとカニのアレルギーがあります。"


def test_the_head_is_silent_for_a_text_in_a_script_of_its_own(monkeypatch):
    """The head reads the bundled English model's vectors; a Japanese, Korean, Russian or Chinese text is left to
    that language's own rules, even by a head aimed at it."""
    from memoryhub.writes.noise import judge_noise

    monkeypatch.setattr(chatter_head, "_head", lambda: _head_that_refuses(JAPANESE_FACT))
    vector = get_embedder().embed([JAPANESE_FACT])[0]
    assert reads_as_chatter(JAPANESE_FACT, vector, model_id=get_embedder().model_id)
    assert judge_noise(JAPANESE_FACT, vector=vector, model_id=get_embedder().model_id) is None


PORTUGUESE_FACT = "Sou alérgica a dipirona."
PORTUGUESE_PLAIN = "O escritório fica na Rua Augusta, 120."


def test_the_head_is_silent_for_a_text_its_own_language_marks_as_lasting(monkeypatch):
    """A text in another language with that language's mark of a lasting fact (always, never, because, allergic) is
    left to the rules, even by a head aimed at it; one without such a mark is read as any other text."""
    from memoryhub.writes.noise import judge_noise

    model_id = get_embedder().model_id
    for text, silent in ((PORTUGUESE_FACT, True), (PORTUGUESE_PLAIN, False)):
        monkeypatch.setattr(chatter_head, "_head", lambda text=text: _head_that_refuses(text))
        vector = get_embedder().embed([text])[0]
        assert reads_as_chatter(text, vector, model_id=model_id)
        assert (judge_noise(text, vector=vector, model_id=model_id) is None) is silent
