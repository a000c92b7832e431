"""Fold pairs read from a JSON file, measured as round three measures its fold pairs (bench/round3_eval.py): a real
server (`manage.py serve`) on a new scratch store, reached over HTTP with a token.

The file is a list of items {"domain", "stored", "adds", "detail", "same"}: a stored sentence, a write that adds a
detail (`detail`, a piece of `adds` that must be in the store afterwards) and a write that says the same. Each item
gives two pairs, each in a project of its own so no item meets another: `stored` then `adds`, and `stored` then
`same`. Only counts are printed, never a sentence: the file may be a sealed held-out set.

- details lost: a write that adds a detail answered `duplicate` or `merged`, or its detail missing from the store;
- paraphrases folded: a write that says the same answered `duplicate`.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from bench import crowded_eval, round3_eval
from bench.fold_round3 import FoldPair

FIELDS = ("domain", "stored", "adds", "detail", "same")


def read_pairs(path: Path) -> list[FoldPair]:
    """The file's items as fold pairs, two per item ("<domain>.<n>.adds", "<domain>.<n>.same"); a ValueError
    naming the first item that lacks a field (by its number, never its text)."""
    items = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(items, list):
        raise ValueError(f"{path}: expected a list of items")
    pairs = []
    for n, item in enumerate(items):
        missing = [f for f in FIELDS if not isinstance(item, dict) or not isinstance(item.get(f), str)]
        if missing:
            raise ValueError(f"{path}: item {n} lacks {', '.join(missing)}")
        domain = re.sub(r"[^a-z]+", "-", item["domain"].lower()).strip("-") or "item"
        key = f"{domain}.{n}"
        pairs.append(FoldPair(f"{key}.adds", domain, "adds", item["stored"], item["adds"], item["detail"]))
        pairs.append(FoldPair(f"{key}.same", domain, "same", item["stored"], item["same"]))
    return pairs


def count_lines(results: list[round3_eval.FoldResult]) -> list[str]:
    """The counts of a run: no sentence of the file, no gate reason (a reason quotes the text)."""
    adds = [r for r in results if r.pair.adds_detail]
    same = [r for r in results if not r.pair.adds_detail]
    lost = [r for r in adds if r.outcome in ("duplicate", "merged") or not r.detail_kept]

    def rate(hits: int, total: int) -> str:
        return f"{hits}/{total} ({100 * hits / max(1, total):.0f}%)"

    def outcomes(rows: list[round3_eval.FoldResult]) -> str:
        return ", ".join(f"{n} {o}" for o, n in Counter(r.outcome for r in rows).most_common())

    return [
        f"fold pairs: {len(adds)} add a detail, {len(same)} say the same",
        f"stored sentence not stored as a new memory: {sum(r.stored_outcome != 'created' for r in results)}",
        f"writes that add a detail: {outcomes(adds)}",
        f"  details lost (answered duplicate or merged, or the detail missing from the store): "
        f"{rate(len(lost), len(adds))}",
        f"  answered duplicate: {rate(sum(r.outcome == 'duplicate' for r in adds), len(adds))}",
        f"paraphrases and repeats: {outcomes(same)}",
        f"  paraphrases folded (answered duplicate): {rate(sum(r.outcome == 'duplicate' for r in same), len(same))}",
    ]


def run(path: Path, *, write: Callable[[str], None], keep: str | None = None) -> list[round3_eval.FoldResult]:
    """Start a server on a new store, write the file's pairs through it (each pair in a project of its own), print
    the counts, stop it."""
    pairs = read_pairs(path)
    directory = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="memoryhub-fold-file-"))
    directory.mkdir(parents=True, exist_ok=True)
    server = round3_eval.start_server(directory)
    write(f"server: {server.url} (manage.py serve), store {directory / 'store.sqlite3'}")
    api = crowded_eval.HttpApi(server.url, server.token, timeout=120)
    try:
        started = time.monotonic()
        # Projects named in words ("fold-infra-3-adds"): the gate holds a label of random characters to be a secret.
        results = [round3_eval.run_fold_pair(api, f"fold-{p.key.replace('.', '-')}", p) for p in pairs]
        write("\n".join(count_lines(results)))
        write(f"total {time.monotonic() - started:.0f} s")
    finally:
        api.close()
        server.stop()
    return results
