"""`python -m bench updates --set round4-fold` measures the fold pairs of a JSON file through a server of its own
(bench/fold_file.py) and prints counts only: the file may be a sealed held-out set, so no sentence of it is shown."""

from __future__ import annotations

import json

import pytest

from bench import fold_file

ITEMS = [
    {"domain": "Web back ends", "stored": "The orders API paginates with cursors.",
     "adds": "The orders API paginates with cursors of at most 200 rows.", "detail": "200",
     "same": "Cursors are how the orders API paginates."},
    {"domain": "infra", "stored": "Grafana alerts go to the ops channel.",
     "adds": "Grafana alerts go to the ops channel and to PagerDuty.", "detail": "PagerDuty",
     "same": "Grafana alerts go to the ops channel."},
]  # fmt: skip


def test_it_reads_two_pairs_per_item_and_names_an_item_that_lacks_a_field(tmp_path):
    path = tmp_path / "fold.json"
    path.write_text(json.dumps(ITEMS))
    pairs = fold_file.read_pairs(path)
    assert [(p.key, p.kind, p.detail) for p in pairs] == [
        ("web-back-ends.0.adds", "adds", "200"), ("web-back-ends.0.same", "same", ""),
        ("infra.1.adds", "adds", "PagerDuty"), ("infra.1.same", "same", ""),
    ]  # fmt: skip
    path.write_text(json.dumps([*ITEMS, {"domain": "x", "stored": "secret text", "adds": "a", "same": "b"}]))
    with pytest.raises(ValueError) as error:
        fold_file.read_pairs(path)
    assert str(error.value) == f"{path}: item 2 lacks detail"


def test_it_writes_each_pair_through_a_live_server_and_prints_counts_only(tmp_path):
    path = tmp_path / "fold.json"
    path.write_text(json.dumps(ITEMS))
    printed: list[str] = []
    results = fold_file.run(path, write=printed.append, keep=str(tmp_path / "run"))
    assert sorted((r.pair.key, r.stored_outcome, r.outcome) for r in results) == [
        ("infra.1.adds", "created", "created"), ("infra.1.same", "created", "duplicate"),
        ("web-back-ends.0.adds", "created", "created"), ("web-back-ends.0.same", "created", "duplicate"),
    ]  # fmt: skip
    output = "\n".join(printed)
    assert "details lost (answered duplicate or merged, or the detail missing from the store): 0/2 (0%)" in output
    assert "paraphrases folded (answered duplicate): 2/2 (100%)" in output
    # The first line names the server's address and the store's path, whose digits (a port, pytest's numbered temporary
    # folder) may hold a detail such as "200": the file's text is looked for in the lines after it.
    assert printed[0].startswith("server: ")
    output = "\n".join(printed[1:])
    for item in ITEMS:
        for field in ("stored", "adds", "same"):
            assert item[field] not in output
        assert item["detail"] not in output
