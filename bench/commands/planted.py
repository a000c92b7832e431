"""Measure how planted instructions are held for a person (bench/planted_set.py): planted held back and ordinary
writes kept, for each batch in the order it was written: the dev half (the rules were designed on it), the first
held-out half and the second batch (each measured once, then its misses became design material), and the third batch
(the held-out figure: measured only).

Two readings per half: the detector alone (the rules, `memoryhub.memories.planted`, and the planted head on the
text's vector, `memoryhub.memories.planted_head`, as the gate asks them: `holds.planted_reason`), and through the
REST API in a scratch store (the user's store is never touched), each write in a project of its own, written with
`POST memories` by an ordinary (trusted) token, then looked for with `POST search` and `POST recall` asked with its
own words. A planted write counts as held back when neither returns it; an ordinary write counts as kept when both do.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from rest_framework.test import APIClient

from bench.planted_set import (
    ORDINARY,
    ORDINARY_FIFTH,
    ORDINARY_FOURTH,
    ORDINARY_LATER,
    ORDINARY_SIXTH,
    ORDINARY_THIRD,
    PLANTED,
    PLANTED_FIFTH,
    PLANTED_FOURTH,
    PLANTED_LATER,
    PLANTED_SIXTH,
    PLANTED_THIRD,
    dev_half,
    held_out_half,
)
from bench.scratch import scratch_database
from memoryhub.agents.tokens import create_token
from memoryhub.embeddings import get_embedder
from memoryhub.memories.holds import planted_reason

ROUND4 = Path(__file__).resolve().parents[1] / "data" / "round4"
# (name, planted, ordinary), in the order the batches were written.
BATCHES = (
    ("dev", dev_half(PLANTED), dev_half(ORDINARY)),
    ("first held-out half (seen)", held_out_half(PLANTED), held_out_half(ORDINARY)),
    ("second batch (seen)", PLANTED_LATER, ORDINARY_LATER),
    ("third batch (held out)", PLANTED_THIRD, ORDINARY_THIRD),
    ("fourth batch (dev)", PLANTED_FOURTH, ORDINARY_FOURTH),
    ("fifth batch (dev)", PLANTED_FIFTH, ORDINARY_FIFTH),
    ("sixth batch (dev)", PLANTED_SIXTH, ORDINARY_SIXTH),
)


def _detected(texts: list[str]) -> list[bool]:
    """Which texts the detector holds: the rules and the head on the text's vector, as a write is judged."""
    embedder = get_embedder()
    vectors = embedder.embed(texts) if texts else []
    model_id = embedder.model_id
    return [planted_reason(t, vector=v, model_id=model_id) is not None for t, v in zip(texts, vectors, strict=True)]


def _through_the_api(client: APIClient, project: str, text: str) -> tuple[bool, bool]:
    """(found by search, found by recall) after one write."""
    client.post("/api/v1/memories", {"content": text, "project": project}, format="json")
    hits = client.post("/api/v1/search", {"query": text, "project": project, "k": 10}, format="json").json()
    recall = client.post(
        "/api/v1/recall", {"query": text, "project": project, "budget_chars": 4000}, format="json"
    ).json()
    return any(h["content"] == text for h in hits["results"]), text in recall["text"]


class Command(BaseCommand):
    help = "Planted instructions held back and ordinary writes kept, dev and held-out halves (bench/planted_set.py)."

    def add_arguments(self, parser):
        parser.add_argument("--rules-only", action="store_true", help="the detector alone, no scratch store")
        parser.add_argument("--verbose", action="store_true", help="list the dev half's misses (never the held-out)")
        parser.add_argument(
            "--set", dest="which", choices=("labelled", "round4"), default="labelled",
            help="round4: the sealed set (planted.json in --dir), measured the same way: counts only, never its texts",
        )  # fmt: skip
        parser.add_argument("--dir", dest="folder", type=Path, default=ROUND4, help="with --set round4: its folder")

    def handle(self, *args, rules_only: bool, verbose: bool, which: str = "labelled", folder: Path = ROUND4,
               **options):  # fmt: skip
        batches = BATCHES
        if which == "round4":
            path = folder / "planted.json"
            if not path.is_file():
                raise CommandError(f"no sealed set at {path}")
            data = json.loads(path.read_text(encoding="utf-8"))
            batches = ((f"{folder.name} (sealed)", list(data["planted"]), list(data["ordinary"])),)
            verbose = False  # a sealed set's texts are never printed
        self.stdout.write("detector alone:")
        for name, planted, ordinary in batches:
            held = [t for t, h in zip(planted, _detected(planted), strict=True) if h]
            kept = [t for t, h in zip(ordinary, _detected(ordinary), strict=True) if not h]
            self._row(f"{name}: planted held back", len(held), len(planted))
            self._row(f"{name}: ordinary kept", len(kept), len(ordinary))
            if verbose and name == "dev":  # the held-out misses are never listed: nothing is tuned on them
                for text in sorted(set(planted) - set(held)) + sorted(set(ordinary) - set(kept)):
                    self.stdout.write(f"    miss: {text}")
        if rules_only:
            return
        self.stdout.write("through POST memories, then POST search and POST recall (scratch store):")
        with scratch_database(None):
            _, raw = create_token(name="eval-planted")
            client = APIClient(SERVER_NAME="localhost")
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
            for offset, (name, planted_texts, ordinary_texts) in enumerate(batches):
                planted = [_through_the_api(client, f"p{offset}-{i}", t) for i, t in enumerate(planted_texts)]
                ordinary = [_through_the_api(client, f"o{offset}-{i}", t) for i, t in enumerate(ordinary_texts)]
                self._row(f"{name}: planted held back", sum(not any(r) for r in planted), len(planted))
                self._row(f"{name}: ordinary kept", sum(all(r) for r in ordinary), len(ordinary))

    def _row(self, label: str, hit: int, total: int) -> None:
        self.stdout.write(f"  {label:<52} {hit:>4} / {total:<4} {100 * hit / total:6.1f}%")
