"""The write lane: texts about to be stored are embedded one request at a time, at a lower CPU priority than
search, so a burst of writes cannot take the cores a search needs.

Why: on a small machine every write and every search embeds its text with the same model. Eight agents writing
and searching at once used to run up to eight embeddings side by side; a search then waited for the CPU behind
the writes' embeddings, and its p95 grew several times over its p95 at rest. Here:

- writes, edits and imports embed on the runtime's write lane, one thread of their own (so one at a time, in the
  order they came; `runtime.on_write_lane`),
- that thread, and the threads of its own onnxruntime session (created on it, so they inherit its priority),
  run MEMORYHUB_WRITE_EMBED_NICE steps of `nice` below the server: the kernel gives a search's embedding the
  CPU first, and a write's embedding still gets all of it when no search runs (a lone import is as fast),
- searches keep embedding on the process's shared embedder, at normal priority.

Only onnxruntime runs at the lower priority, and it releases the interpreter lock while it runs: a thread of low
priority holding that lock (Python code) could keep every search waiting for its next time slice. The gate's
Python work is kept from crowding searches differently, by one write at a time (runtime/turns.py).

Only the bundled local model gets a lane: a remote embedding provider spends no CPU here, and an embedder set by
a test or a command is used as it is, on the caller's thread.
"""

from __future__ import annotations

from concurrent.futures import Future

import numpy as np

from memoryhub import embeddings, runtime

_twins: dict[int, embeddings.Embedder] = {}  # id of the process's embedder -> the lane's copy of it


def _twin(active: embeddings.LocalMiniLM) -> embeddings.Embedder:
    """The lane's own copy of the local model, built on the lane's thread (so its threads run at the lane's
    priority); only the lane's thread reads or changes `_twins`."""
    twin = _twins.get(id(active))
    if twin is None:
        _twins.clear()  # another embedder became active: the old twin is of no use
        twin = _twins[id(active)] = type(active)(cache_dir=active.cache_dir, batch_size=active.batch_size)
    return twin


def uses_lane(embedder: embeddings.Embedder) -> bool:
    return type(embedder) in (embeddings.LocalMiniLM, embeddings.LocalE5)


def embed_for_storage(texts: list[str]) -> np.ndarray:
    """Embed texts that are about to be stored (a write, an edit, an import) with the active model."""
    active = embeddings.get_embedder()
    if not uses_lane(active):
        return active.embed(texts)
    return runtime.on_write_lane(lambda: _twin(active).embed(texts))


def start_embedding_for_storage(texts: list[str]) -> Future[np.ndarray]:
    """`embed_for_storage` that returns at once: the lane embeds while the caller goes on; the future hands the
    vectors over (`result()`, waiting for them if need be), and `cancel()` drops them if the lane has not started
    them. An embedder without a lane embeds now (a future already done)."""
    active = embeddings.get_embedder()
    if not uses_lane(active):
        done: Future[np.ndarray] = Future()
        done.set_result(active.embed(texts))
        return done
    return runtime.queue_on_write_lane(lambda: _twin(active).embed(texts))


def warm_up() -> None:
    """Load the lane's copy of the model now (serve calls it), so the first write does not wait for it."""
    if uses_lane(embeddings.get_embedder()):
        embed_for_storage(["warm up"])
