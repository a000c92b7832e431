"""How the store keeps up with change, measured through the REST API on the labelled pairs of
bench/updates_set.py, in a scratch store (the user's store is never touched).

Each pair gets a project of its own (with `--crowded`, every pair of a kind shares one project, so each write
also meets the other pairs' facts): the older fact is written, then the newer one, both with `POST memories`;
then the pair's question is asked with `POST search` and `POST recall`, as an agent would. Printed for the dev
pairs (the rules were tuned on them) and the held-out pairs (written first, never tuned on):

- updates that say they changed (`cue`) and disagreements without a cue (`nocue`): the newer ranks above the
  older (or the older is gone); the recall block holds the newer and not the older; the older is superseded or
  queued for a person (and, apart, queued alone);
- look-alikes (`alike`): both stay active and each is found by its own question in the top 3; superseded or
  proposed together;
- paraphrases of one value (`same`): treated as an update (superseded or proposed); folded as a duplicate.

With `--store` (or `--store-only`, which skips the pairs), the crowded store of bench/crowded_set.py is
measured too (bench/crowded_eval.py): each half in a scratch store of its own, or, with `--url` and
`--token`, on a running server in projects named with a run id.

With `--set round3 --half dev|held_out`, the round-three sets (bench/crowded_round3.py, bench/fold_round3.py) are
measured instead, through a `manage.py serve` of their own on a new store (bench/round3_eval.py); `--misses`
lists the dev half's misses. With `--set round4-fold`, the fold pairs of a JSON file (`--fold-file`, by default
bench/data/round4/fold.json) are measured the same way, and only their counts printed (bench/fold_file.py).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from rest_framework.test import APIClient

from bench import crowded_eval
from bench.crowded_set import HALVES, half
from bench.scratch import scratch_database
from bench.updates_set import DEV, HELD_OUT, UpdatePair
from memoryhub.agents.tokens import create_token
from memoryhub.models import Memory, Proposal, ProposalKind, ProposalStatus, Status
from memoryhub.storage.resets import forget_store_caches


@dataclass
class PairResult:
    pair: UpdatePair
    outcome: str  # of the newer write
    newer_first: bool = False
    recall_clean: bool = False
    superseded: bool = False
    queued: bool = False
    both_found: bool = False
    recall_chars: int = 0
    ids: tuple[int, ...] = ()


class Command(BaseCommand):
    help = "Supersession, conflicts and look-alikes through the API on the labelled update pairs (dev, held out)."

    def add_arguments(self, parser):
        parser.add_argument("--db", help="scratch database file to use and keep (default: a temporary file)")
        parser.add_argument("--misses", action="store_true", help="list the dev pairs the rules get wrong")
        parser.add_argument("--crowded", action="store_true", help="one project per kind of pair, not per pair")

        parser.add_argument(
            "--store", action="store_true", help="also measure the crowded store (bench/crowded_set.py)"
        )
        parser.add_argument("--store-only", action="store_true", help="measure the crowded store, not the pairs")
        parser.add_argument(
            "--url",
            help="with --store: measure the crowded store on this running server (e.g. http://127.0.0.1:8000) "
            "instead of scratch stores. Its writes stay there, in projects named crowd-<8 hex>-<slug>; the "
            "globals, which cannot be kept apart from the person's own there, go to the project crowd-<8 hex>-me "
            "(so there the projects' searches do not see them). Needs --token, an unscoped one or one allowed those "
            "projects.",
        )
        parser.add_argument("--token", help="the bearer token for --url")
        parser.add_argument(
            "--set",
            dest="which",
            choices=("labelled", "round3", "round4-fold"),
            default="labelled",
            help="round3: the round-three crowded store and fold pairs, through a server of their own; "
            "round4-fold: the fold pairs of --fold-file (bench/fold_file.py), counts only",
        )
        parser.add_argument(
            "--fold-file",
            default=str(Path(__file__).resolve().parents[1] / "data" / "round4" / "fold.json"),
            help="with --set round4-fold: the JSON list of {domain, stored, adds, detail, same} items",
        )
        parser.add_argument(
            "--half", dest="round3_half", choices=("dev", "held_out"), help="with --set round3: the half to measure"
        )
        parser.add_argument(
            "--keep", help="with --set round3 or round4-fold: the folder for the store and the server's log"
        )

    def handle(self, *args, db: str | None, misses: bool, crowded: bool, store: bool, store_only: bool,
               url: str | None, token: str | None, which: str = "labelled", round3_half: str | None = None,
               keep: str | None = None, fold_file: str = "", **options):  # fmt: skip
        if which == "round4-fold":
            from bench import fold_file as measured

            if not Path(fold_file).is_file():
                raise CommandError(f"no fold file at {fold_file}")
            measured.run(Path(fold_file), write=self.stdout.write, keep=keep)
            return
        if which == "round3":
            if not round3_half:
                raise CommandError("--set round3 needs --half dev or --half held_out")
            from bench import round3_eval

            round3_eval.run(round3_half, write=self.stdout.write, misses=misses, keep=keep)
            return
        if url and not token:
            raise CommandError("--url needs --token")
        if not store_only:
            self._pairs(db=db, misses=misses, crowded=crowded)
        if store or store_only:
            self._store(misses=misses, url=url, token=token)

    def _pairs(self, *, db: str | None, misses: bool, crowded: bool) -> None:
        with scratch_database(db) as path:
            self.stdout.write(f"scratch database: {path}")
            _, raw = create_token(name="eval-updates")
            client = APIClient(SERVER_NAME="localhost")
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
            for name, pairs, offset in (("dev", DEV, 0), ("held out", HELD_OUT, 10_000)):
                results = [
                    self.run_pair(client, f"{name}-{pair.kind}" if crowded else f"pair-{offset + i}", pair)
                    for i, pair in enumerate(pairs)
                ]
                self._report(name, results)
                if misses and name == "dev":
                    self._misses(results)

    def _store(self, *, misses: bool, url: str | None, token: str | None) -> None:
        """The crowded store, each half on its own; misses are listed for the dev half only."""
        self.stdout.write("\n=== the crowded store (bench/crowded_set.py)")
        for name in HALVES:
            part = half(name)
            if url:
                scopes = crowded_eval.Scopes.live()
                self.stdout.write(f"{url}: projects {scopes.prefix}*")
                api = crowded_eval.HttpApi(url, token or "")
                try:
                    report = crowded_eval.measure_half(api, part, scopes=scopes, progress=self.stderr.write)
                finally:
                    api.close()
            else:
                with scratch_database() as path:
                    forget_store_caches()  # the search caches of the store before must not answer for this one
                    self.stdout.write(f"scratch database: {path}")
                    _, raw = create_token(name="eval-crowded")
                    api = crowded_eval.InProcessApi(raw)
                    report = crowded_eval.measure_half(api, part, progress=self.stderr.write)
                forget_store_caches()
            self.stdout.write("\n".join(crowded_eval.report_lines(report, part)))
            if misses and name == "dev":
                self.stdout.write("\n".join(crowded_eval.miss_lines(report)))

    def run_pair(self, client: APIClient, project: str, pair: UpdatePair) -> PairResult:
        """One pair through the API: both writes, then the question(s); what happened."""
        older = client.post("/api/v1/memories", {"content": pair.older, "project": project}, format="json").json()
        newer = client.post("/api/v1/memories", {"content": pair.newer, "project": project}, format="json").json()
        result = PairResult(pair, newer["outcome"])
        old_id = older["memory"]["id"] if older.get("memory") else None
        new_id = newer["memory"]["id"] if newer.get("memory") and newer["outcome"] == "created" else None
        result.ids = tuple(i for i in (old_id, new_id) if i is not None)
        if old_id is None or new_id is None:
            return result  # folded or refused: neither an update nor two facts
        old_row = Memory.objects.get(pk=old_id)
        result.superseded = old_row.status == Status.SUPERSEDED or Memory.objects.get(pk=new_id).superseded_by_id
        pending = Proposal.objects.filter(kind=ProposalKind.CONFLICT, status=ProposalStatus.PENDING, project=project)
        result.queued = any({old_id, new_id} <= set(p.sources) for p in pending)
        if pair.kind == "alike":
            statuses = set(Memory.objects.filter(pk__in=[old_id, new_id]).values_list("status", flat=True))
            result.both_found = (
                statuses == {Status.ACTIVE}
                and old_id in self._search(client, project, pair.question)[:3]
                and new_id in self._search(client, project, pair.newer_question)[:3]
            )
            return result
        ranked = self._search(client, project, pair.question)
        if new_id in ranked:
            result.newer_first = old_id not in ranked or ranked.index(new_id) < ranked.index(old_id)
        recall = client.post("/api/v1/recall", {"project": project, "query": pair.question}, format="json").json()
        result.recall_clean = new_id in recall["memory_ids"] and old_id not in recall["memory_ids"]
        result.recall_chars = len(recall["text"])
        return result

    @staticmethod
    def _search(client: APIClient, project: str, question: str) -> list[int]:
        body = {"query": question, "project": project, "k": 10}
        return [r["id"] for r in client.post("/api/v1/search", body, format="json").json()["results"]]

    def _report(self, name: str, results: list[PairResult]) -> None:
        by_kind: dict[str, list[PairResult]] = defaultdict(list)
        for r in results:
            by_kind[r.pair.kind].append(r)

        def rate(rows: list[PairResult], test) -> str:
            hits = sum(1 for r in rows if test(r))
            return f"{hits}/{len(rows)} ({100 * hits / max(1, len(rows)):.0f}%)"

        self.stdout.write(f"\n== {name}: {len(results)} pairs")

        def line(label: str, rows: list[PairResult], test) -> None:
            self.stdout.write(f"  {label:<58} {rate(rows, test)}")

        for kind, title in (("cue", "updates that say they changed"), ("nocue", "disagreements without a cue")):
            rows = by_kind.get(kind, [])
            self.stdout.write(f"{title} ({len(rows)}):")
            line("newer ranks above the older (or the older is gone)", rows, lambda r: r.newer_first)
            line("recall holds the newer and not the older", rows, lambda r: r.recall_clean)
            line("older superseded or queued for a person", rows, lambda r: r.superseded or r.queued)
            line("  of which queued for a person", rows, lambda r: r.queued)
            chars = [r.recall_chars for r in rows if r.recall_chars]
            if chars:
                self.stdout.write(f"  recall block: {sum(chars) / len(chars):.0f} characters on average")
        rows = by_kind.get("alike", [])
        self.stdout.write(f"look-alikes ({len(rows)}):")
        line("both active, each found by its own question in the top 3", rows, lambda r: r.both_found)
        line("superseded or proposed together", rows, lambda r: r.superseded or r.queued)
        rows = by_kind.get("same", [])
        # Links the labels do not ask for: a write superseding, or put to a person with, another pair's fact.
        labelled = {frozenset(r.ids) for r in results if len(r.ids) == 2}
        ours = {i for r in results for i in r.ids}
        links = [
            frozenset((pk, successor))
            for pk, successor in Memory.objects.filter(pk__in=ours, superseded_by__isnull=False).values_list(
                "pk", "superseded_by_id"
            )
        ]
        links += [frozenset(int(i) for i in p.sources[:2]) for p in Proposal.objects.filter(kind=ProposalKind.CONFLICT)
                  if set(int(i) for i in p.sources[:2]) <= ours]  # fmt: skip
        stray = [link for link in links if link not in labelled]
        self.stdout.write(f"links between facts of different pairs (superseded or proposed): {len(stray)}")
        self.stdout.write(f"paraphrases of one value ({len(rows)}):")
        line("treated as an update (superseded or proposed)", rows, lambda r: r.superseded or r.queued)
        line("folded as a duplicate", rows, lambda r: r.outcome in ("duplicate", "merged"))

    def _misses(self, results: list[PairResult]) -> None:
        self.stdout.write("\ndev misses:")
        for r in results:
            kind = r.pair.kind
            wrong = (
                (kind in ("cue", "nocue") and not (r.newer_first and r.recall_clean and (r.superseded or r.queued)))
                or (kind == "alike" and (not r.both_found or r.superseded or r.queued))
                or (kind == "same" and (r.superseded or r.queued))
            )
            if wrong:
                self.stdout.write(f"  [{kind}] {r.pair.older!r} -> {r.pair.newer!r}: {r}")
