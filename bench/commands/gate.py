"""Measure the write gate on the labelled sets: keep, refuse and secret rates (bench/gate_set.py), and
what it folds (bench/fold_set.py).

The fold pairs go through the REST API in a scratch store (the user's store is never touched), each pair in a
project of its own: the stored memory is written, then the second write, both with `POST memories`. Printed for the
dev pairs (the rule was tuned on them) and the held-out pairs (measured at the end only):
- writes that add a detail: answered `duplicate` with the detail missing from the store (should be none), and the
  detail in an active memory afterwards (kept as a memory of its own or merged into the stored one);
- repeats and paraphrases: answered `duplicate`, naming the stored memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.management.base import BaseCommand
from rest_framework.test import APIClient

from bench import secret_holdout as held
from bench.fold_set import DEV, HELD_OUT, FoldPair
from bench.gate_set import DURABLE, NOISE, secret_writes
from bench.scratch import scratch_database
from memoryhub.agents.tokens import create_token
from memoryhub.embeddings import get_embedder
from memoryhub.memories.secrets import find_secrets, label_secret_kinds
from memoryhub.models import Memory, Status
from memoryhub.writes.noise import noise_reason


def judge(text: str) -> str | None:
    """What the gate refuses a write for ('secret', 'noise'), or None when it keeps it. The same checks, in the same
    order, as `gate_write` (the rules, then the chatter head on the text's vector), without storing anything
    (duplicates need a store, so they are left out)."""
    if find_secrets(text):
        return "secret"
    embedder = get_embedder()
    vector = embedder.embed([text])[0]
    return "noise" if noise_reason(text, vector=vector, model_id=embedder.model_id) else None


@dataclass(frozen=True)
class FoldResult:
    pair: FoldPair
    outcome: str  # of the second write
    reason: str
    detail_kept: bool  # ADDS: the detail is in an active memory of the pair's project
    names_stored: bool  # the answer's memory is the stored one, named in the reason

    @property
    def lost_detail(self) -> bool:
        return self.pair.adds_detail and self.outcome == "duplicate" and not self.detail_kept

    @property
    def right(self) -> bool:
        if self.pair.adds_detail:
            return self.detail_kept
        return self.outcome == "duplicate" and self.names_stored


def run_fold_pair(client: APIClient, project: str, pair: FoldPair) -> FoldResult:
    """One pair through the API: the stored memory, then the write; what the gate answered and what the store holds."""
    stored = client.post("/api/v1/memories", {"content": pair.stored, "project": project}, format="json").json()
    answer = client.post("/api/v1/memories", {"content": pair.write, "project": project}, format="json").json()
    stored_id = stored["memory"]["id"]
    memory_id = (answer.get("memory") or {}).get("id")
    texts = Memory.objects.filter(project=project, status=Status.ACTIVE).values_list("content", flat=True)
    kept = bool(pair.detail) and any(pair.detail.lower() in text.lower() for text in texts)
    names = memory_id == stored_id and f"#{stored_id}" in answer.get("reason", "")
    return FoldResult(pair, answer["outcome"], answer.get("reason", ""), kept, names)


class Command(BaseCommand):
    help = "Run the gate's rules over the labelled set and print how many durable writes are kept, how many noisy "
    help += "ones and secrets are refused, and (with --verbose) each miss."

    def add_arguments(self, parser):
        parser.add_argument("--verbose", action="store_true", help="list every write the gate judged wrong")
        parser.add_argument(
            "--holdout", type=int, default=0, metavar="N",
            help="also measure the held-out secret set (bench/secret_holdout.py) with N generated Django keys",
        )  # fmt: skip
        parser.add_argument("--no-fold", action="store_true", help="leave out the fold pairs (no store needed)")
        parser.add_argument("--db", help="scratch database file for the fold pairs (default: a temporary file)")
        parser.add_argument("--dev", action="store_true", help="the dev fold pairs only (while tuning)")

    def handle(
        self, *args, verbose: bool, holdout: int = 0, no_fold: bool = False, db: str | None = None, dev: bool = False,
        **options,
    ):  # fmt: skip
        kept = [t for t in DURABLE if judge(t) is None]
        refused = [t for t in NOISE if judge(t) is not None]
        secrets = secret_writes()
        caught = [(k, t) for k, t in secrets if judge(t) == "secret"]
        rows = [
            ("durable kept", len(kept), len(DURABLE)),
            ("noise refused", len(refused), len(NOISE)),
            ("secrets refused", len(caught), len(secrets)),
        ]
        for label, hit, total in rows:
            self.stdout.write(f"{label:<16} {hit:>4} / {total:<4} {100 * hit / total:6.1f}%")
        kinds = sorted({k for k, _ in secrets})
        self.stdout.write(f"secret kinds in the set: {len(kinds)} ({', '.join(kinds)})")
        if holdout:
            self._holdout(holdout)
        if not no_fold:
            self._fold(db, verbose=verbose, dev_only=dev)
        if verbose:
            for text in DURABLE:
                if text not in kept:
                    self.stdout.write(f"  durable refused ({judge(text)}): {text[:100]}")
            for text in NOISE:
                if text not in refused:
                    self.stdout.write(f"  noise kept: {text[:100]}")
            for kind, _ in secrets:
                if kind not in {k for k, _ in caught}:
                    self.stdout.write(f"  secret missed: {kind}")

    def _holdout(self, n: int) -> None:
        """Rates on the held-out set, written before the secret detector was tuned."""

        rows = [
            ("Django keys in a SECRET_KEY line", [bool(find_secrets(x.text)) for x in held.django_key_lines(n)]),
            ("Django keys, bare", [bool(find_secrets(x.text)) for x in held.bare_django_keys(n)]),
            ("DigitalOcean tokens", [bool(find_secrets(x.text)) for x in held.digitalocean_tokens()]),
            ("secrets as labels", [bool(label_secret_kinds(x.text)) for x in held.labelled_secrets()]),
            *[
                (f"random label: {shape}", [bool(label_secret_kinds(v)) for v in values])
                for shape, values in held.random_labels(n).items()
            ],
            ("benign labels kept", [not label_secret_kinds(t) for t in held.BENIGN_TAGS + held.BENIGN_PROJECTS]),
        ]
        for label, hits in rows:
            self.stdout.write(f"{label:<44} {sum(hits):>4} / {len(hits):<4} {100 * sum(hits) / len(hits):6.1f}%")

    def _fold(self, db: str | None, *, verbose: bool, dev_only: bool) -> None:
        """The fold pairs through the API in a scratch store: dev, then held out; with `verbose`, the dev misses."""
        with scratch_database(db):
            _, raw = create_token(name="eval-gate")
            client = APIClient(SERVER_NAME="localhost")
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
            halves = (("dev", DEV, 0),) if dev_only else (("dev", DEV, 0), ("held out", HELD_OUT, 10_000))
            for name, pairs, offset in halves:
                results = [run_fold_pair(client, f"fold-{offset + i}", pair) for i, pair in enumerate(pairs)]
                adds = [r for r in results if r.pair.adds_detail]
                same = [r for r in results if not r.pair.adds_detail]
                self.stdout.write(f"fold pairs, {name}:")
                rows = [
                    ("adds a detail: duplicate, detail lost", sum(r.lost_detail for r in adds), len(adds)),
                    ("adds a detail: detail in the store", sum(r.right for r in adds), len(adds)),
                    ("adds nothing: duplicate naming it", sum(r.right for r in same), len(same)),
                ]
                for label, hit, total in rows:
                    self.stdout.write(f"  {label:<40} {hit:>4} / {total:<4} {100 * hit / total:6.1f}%")
                if verbose and name == "dev":  # the held-out misses are never listed: nothing is tuned on them
                    for r in results:
                        if not r.right:
                            self.stdout.write(f"  dev miss [{r.pair.kind}] {r.pair.stored!r} -> {r.pair.write!r}: "
                                              f"{r.outcome}: {r.reason}")  # fmt: skip
