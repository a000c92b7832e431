"""The bundled model: the int8 ONNX runner agrees with the numpy reference forward pass of the same weights."""

from __future__ import annotations

import numpy as np

from memoryhub.embeddings import LocalMiniLM, minilm

SENTENCES = [
    "The deploy workflow runs migrations before restarting the web workers",
    "getUserId returns None for anonymous sessions",
    "ok",
    "Never use split(',') to parse CSV: quoted fields contain commas.",
    "La base de données est sauvegardée chaque nuit à 2 heures",
]


def test_the_onnx_model_agrees_with_the_numpy_reference(real_embedder):
    assert isinstance(real_embedder, LocalMiniLM)
    assert real_embedder.backend == "onnx-int8"
    tokenizer = minilm.load_tokenizer()
    reference = minilm.NumpyBert(minilm.load_weights())
    encoded = tokenizer.encode_batch(SENTENCES)
    ids = np.array([e.ids for e in encoded], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
    expected = minilm.mean_pool_normalise(reference(ids, mask), mask)
    actual = real_embedder.embed(SENTENCES)
    cosines = (expected * actual).sum(axis=1)
    assert cosines.min() > 0.99, cosines


def test_embeddings_are_unit_length_and_batch_independent(real_embedder):
    alone = real_embedder.embed([SENTENCES[0]])[0]
    batched = real_embedder.embed(SENTENCES)[0]
    assert abs(float(np.linalg.norm(alone)) - 1.0) < 1e-4
    assert float(alone @ batched) > 0.99
