"""A server's own copy of the local model embeds queries on one onnxruntime thread (`serve` calls
embeddings.embed_queries_only before it loads the model); what it stores is embedded by the write lane's copy, on the
usual threads. The vectors are the same either way, to the bit."""

from __future__ import annotations

import numpy as np
import pytest

from memoryhub import embeddings, runtime
from memoryhub.embeddings import embed_queries, write_lane

TEXTS = ["how do we deploy the auth gateway", "The staging cluster is rebuilt on Sundays", "getUserId returns None"]


@pytest.fixture
def shared():
    before = embeddings.get_embedder()
    yield before
    embeddings.set_embedder(before)
    embeddings._threads = None


def test_a_server_embeds_queries_on_one_thread_and_stores_on_the_lanes_copy_with_the_same_vectors(shared):
    assert shared.threads is None  # a command's or a test's model: as many threads as the cores allow
    embeddings.set_embedder(None)
    embeddings.embed_queries_only()
    serving = embeddings.get_embedder()
    assert serving.threads == embeddings.QUERY_THREADS == 1
    assert serving.runner.session.get_session_options().intra_op_num_threads == 1
    np.testing.assert_array_equal(embed_queries(serving, TEXTS), embed_queries(shared, TEXTS))
    lane_copy = runtime.on_write_lane(lambda: write_lane._twin(serving))  # built on the lane, as a write does
    assert lane_copy.threads is None
    np.testing.assert_array_equal(lane_copy.embed(TEXTS), shared.embed(TEXTS))
