"""Retrieval quality on LoCoMo conversations: recall@1/5/10 and MRR for keyword, semantic and hybrid search.

Every turn becomes a memory (one project per conversation, `dia_id` in metadata) in a scratch database, so
the configured store is untouched. Each question of categories 1-4 (single-hop, temporal, multi-hop,
open-domain; 5 is adversarial, with no answer in the data) is asked of its conversation's project, and the
ranks of its evidence turns are scored:

- recall@k: the share of a question's evidence turns found in the first k results, averaged over questions;
- hit@k: the share of questions with at least one evidence turn in the first k;
- MRR: 1 / rank of the first evidence turn within the first 10 (0 when none), averaged.

`--cv` tunes fusion leaving one conversation out (bench/locomo_cv.py): each question is retrieved
once and a coarse grid of settings is re-fused in memory; the setting best on the other conversations is
measured on the held-out one, and that cross-validated figure is printed beside the in-sample one.

`--baseline` runs plain reciprocal rank fusion instead of the tuned values (k=60, words and meaning weighed
alike, no word coverage, no absolute relevance, no reply lifted under its question, no floor). What is called
R@10 elsewhere is often this command's hit@10 (a question counts as found when any of its evidence turns is in
the first 10); R@10, the stricter share of evidence turns found, is printed beside it.

`--conversation-ranking on|off` runs with MEMORYHUB_CONVERSATION_RANKING switched (the speaker and date counted as
words, the reply lifted under its question: memoryhub/retrieval/conversations.py); default: the setting.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

from bench import locomo_cv
from bench.scratch import scratch_database
from memoryhub.embeddings import embed_queries, get_embedder
from memoryhub.memories.store import import_memories
from memoryhub.models import Memory
from memoryhub.retrieval import conversations, fusion, tuning
from memoryhub.retrieval.search import MODES, MemoryFilter, _rows, project_candidates, search_memories
from memoryhub.storage import sql

CATEGORIES = (1, 2, 3, 4)
DIA_ID = re.compile(r"D\d+:\d+")
# --baseline: the tuning table's values of plain reciprocal rank fusion, and no floor.
PLAIN_FUSION = {
    "rrf_k": 60,
    "keyword_weight": 1.0,
    "semantic_weight": 1.0,
    "coverage_weight": 0.0,
    "score_absolute": 0.0,
    "rare_words": 0.0,
    "answer_share": 0.0,
}
CUTOFFS = (1, 5, 10)


def turn_text(turn: dict) -> str:
    """What was said, by whom; a shared photo is part of the turn, so its caption is kept with it."""
    text = f"{turn.get('speaker', '')}: {turn.get('text', '')}".strip()
    if turn.get("blip_caption"):
        text += f" [shares {turn['blip_caption']}]"
    return text


# How the turns are stored: with the session and its date in metadata (what a careful import keeps), or plain
# (the text and an id only, what an agent writing turn by turn usually sends).
STORED = ("session", "plain")


def load_conversation(path: Path, stored: str = "session") -> tuple[list[dict], list[dict]]:
    """(memories to import, questions) of one LoCoMo conversation file."""
    data = json.loads(path.read_text())
    conversation = data.get("conversation", data)
    project = f"locomo-{path.stem}" + ("-plain" if stored == "plain" else "")
    items = []
    for key, turns in conversation.items():
        match = re.fullmatch(r"session_(\d+)", key)
        if not match or not isinstance(turns, list):
            continue
        when = conversation.get(f"{key}_date_time", "")
        for turn in turns:
            if not turn.get("dia_id") or not str(turn.get("text", "")).strip():
                continue
            items.append(
                {
                    "content": turn_text(turn),
                    "project": project,
                    "metadata": {"dia_id": turn["dia_id"]}
                    if stored == "plain"
                    else {"dia_id": turn["dia_id"], "session": int(match.group(1)), "date": when},
                }
            )
    questions = []
    for qa in data.get("qa", []):
        if qa.get("category") not in CATEGORIES:
            continue
        evidence = {e for item in qa.get("evidence", []) for e in DIA_ID.findall(str(item))}
        questions.append({"question": qa["question"], "evidence": evidence, "category": qa["category"]})
    return items, questions


def score(ranked: list[str], evidence: set[str]) -> dict[str, float]:
    out = {f"R@{k}": len(evidence & set(ranked[:k])) / len(evidence) for k in CUTOFFS}
    out.update({f"hit@{k}": float(bool(evidence & set(ranked[:k]))) for k in CUTOFFS})
    first = next((i for i, d in enumerate(ranked[:10], 1) if d in evidence), None)
    out["MRR"] = 1.0 / first if first else 0.0
    return out


class Command(BaseCommand):
    help = "Recall@1/5/10 and MRR of keyword, semantic and hybrid search on LoCoMo (in a scratch database)."

    def add_arguments(self, parser):
        parser.add_argument("path", help="a folder of LoCoMo conversation .json files")
        parser.add_argument("--db", help="scratch database file to use and keep (default: a temporary file)")
        parser.add_argument("--modes", default=",".join(MODES), help="comma-separated: hybrid,keyword,semantic")
        parser.add_argument("--dump", help="write every question's ranked dia_ids per mode to this JSON file")
        parser.add_argument("--baseline", action="store_true", help="plain RRF (k=60, equal weights), not tuned")
        parser.add_argument(
            "--stored", choices=(*STORED, "both"), default="both",
            help="turns stored with session and date metadata, plain (text and id), or both side by side; "
            "--cv takes one (default there: session)",
        )  # fmt: skip
        parser.add_argument(
            "--conversation-ranking", choices=("on", "off"),
            help="switch MEMORYHUB_CONVERSATION_RANKING on or off for this run (default: the setting)",
        )  # fmt: skip
        parser.add_argument(
            "--cv", action="store_true",
            help="tune fusion leaving one conversation out; print held-out figures beside in-sample ones",
        )  # fmt: skip

    def handle(self, *args, path: str, db: str | None, modes: str, dump: str | None, baseline: bool, cv: bool,
               stored: str, conversation_ranking: str | None, **options):  # fmt: skip
        folder = Path(path)
        files = sorted(folder.glob("*.json")) if folder.is_dir() else []
        if not files:
            raise CommandError(f"no LoCoMo .json files in {folder}")
        wanted = [m.strip() for m in modes.split(",") if m.strip()]
        if not wanted or any(m not in MODES for m in wanted):
            raise CommandError(f"--modes must name some of {', '.join(MODES)}")
        switched = (
            {} if conversation_ranking is None else {"MEMORYHUB_CONVERSATION_RANKING": conversation_ranking == "on"}
        )
        if cv:
            with scratch_database(db) as db_path, override_settings(**switched):
                self._cross_validate(files, "session" if stored == "both" else stored)
            return
        plain = (PLAIN_FUSION, {"MEMORYHUB_SEARCH_MIN_SCORE": 0.0}) if baseline else ({}, {})
        with (
            scratch_database(db) as db_path,
            tuning.tuned(**plain[0]),
            override_settings(**switched, **plain[1]),
        ):
            self.stdout.write(f"scratch database: {db_path}")
            self.stdout.write(f"conversation ranking: {'on' if conversations.enabled() else 'off'}")
            if baseline:
                self.stdout.write("BASELINE: plain fusion, " + ", ".join(f"{k}={v}" for k, v in PLAIN_FUSION.items()))
            styles = STORED if stored == "both" else (stored,)
            dumped = []
            side_by_side = {}
            for style in styles:
                results, rows = self._run(files, wanted, style)
                self._print(results, wanted, style)
                side_by_side[style] = results
                dumped += rows
            if len(styles) > 1:
                self._print_side_by_side(side_by_side, wanted)
        if dump:
            Path(dump).write_text(json.dumps(dumped))

    def _run(self, files: list[Path], modes: list[str], stored: str):

        totals: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
        by_category: dict[tuple[str, int], list[dict[str, float]]] = {}
        dumped: list[dict] = []
        latencies: dict[str, list[float]] = {m: [] for m in modes}
        for path in files:
            items, questions = load_conversation(path, stored)
            project = items[0]["project"] if items else f"locomo-{path.stem}"
            if not Memory.objects.filter(project=project).exists():
                started = time.perf_counter()
                import_memories(items=items, source="locomo")
                self.stdout.write(f"{path.name}: {len(items)} turns stored in {time.perf_counter() - started:.1f} s")
            dia = {m.pk: m.metadata.get("dia_id") for m in Memory.objects.filter(project=project)}
            known = set(dia.values())
            for q in questions:
                evidence = q["evidence"] & known
                if not evidence:
                    continue
                row = {"question": q["question"], "evidence": sorted(evidence), "category": q["category"],
                       "stored": stored}  # fmt: skip
                for mode in modes:
                    started = time.perf_counter()
                    hits = search_memories(
                        query=q["question"], within=MemoryFilter(visible_from=project), k=10, mode=mode
                    )
                    latencies[mode].append((time.perf_counter() - started) * 1000)
                    ranked = [dia[h.memory.pk] for h in hits]
                    figures = score(ranked, evidence)
                    totals[mode].append(figures)
                    by_category.setdefault((mode, q["category"]), []).append(figures)
                    row[mode] = ranked
                dumped.append(row)
        self.latencies = latencies
        self.by_category = by_category
        return totals, dumped

    def _gather(self, files: list[Path], stored: str) -> list[locomo_cv.Conversation]:
        """Store each conversation once, retrieve each question once, and keep what fusion needs in memory."""

        embedder = get_embedder()
        convs = []
        for path in files:
            items, questions = load_conversation(path, stored)
            project = items[0]["project"] if items else f"locomo-{path.stem}"
            if not Memory.objects.filter(project=project).exists():
                import_memories(items=items, source="locomo")
            dia = {m.pk: m.metadata.get("dia_id") for m in Memory.objects.filter(project=project)}
            conv = locomo_cv.Conversation(name=path.stem, dia=dia)
            vectors = sql.read_vectors(list(dia), embedder.dimensions)
            conv.ids = np.array(list(vectors), dtype=np.int64)
            matrix = np.array([vectors[i] for i in conv.ids.tolist()], dtype=np.float32)
            conv.vectors = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
            conv.rows = _rows(list(dia))
            conv.context = conversations.implicit_context(list(dia))
            known = set(dia.values())
            asked = [q for q in questions if q["evidence"] & known]
            query_vectors = embed_queries(embedder, [q["question"] for q in asked]) if asked else []
            for q, vector in zip(asked, query_vectors, strict=True):
                found = project_candidates(q["question"], visible_from=project, k=10)
                unit = np.asarray(vector, dtype=np.float32)
                unit = unit / (np.linalg.norm(unit) or 1.0)
                conv.questions.append(locomo_cv.Asked(path.stem, q["evidence"] & known, found.rows, found.signals,
                                                      found.query, unit, found.answers, found.following))  # fmt: skip
            convs.append(conv)
            self.stdout.write(f"{path.name}: {len(dia)} turns, {len(conv.questions)} questions retrieved")
        return convs

    def _cross_validate(self, files: list[Path], stored: str) -> None:

        started = time.perf_counter()
        convs = self._gather(files, stored)
        floor = settings.MEMORYHUB_SEARCH_MIN_SCORE
        now = fusion.Params.from_defaults()
        count = sum(len(c.questions) for c in convs)
        self.stdout.write(f"\nLoCoMo leave-one-conversation-out, turns stored {stored}, categories 1-4: "
                          f"{count} questions, {len(convs)} conversations, relevance floor {floor}, "
                          f"conversation ranking {'on' if conversations.enabled() else 'off'}")  # fmt: skip
        keys = [*(f"hit@{k}" for k in locomo_cv.CUTOFFS), "MRR"]
        head = "".join(f"{k:>8}" for k in keys)
        self.stdout.write(f"{'':<31}{'in-sample':^32}  {'held-out (cross-validated)':^32}")
        self.stdout.write(f"{'':<31}{head}  {head}")

        def line(label: str, inside: dict, outside: dict | None) -> None:
            a, b = locomo_cv.means(inside), locomo_cv.means(outside) if outside else None
            text = f"{label:<31}" + "".join(f"{a[k]:>8.3f}" for k in keys)
            text += "  " + ("".join(f"{b[k]:>8.3f}" for k in keys) if b else "  (not tuned: same as in-sample)")
            self.stdout.write(text)

        for mode in ("keyword", "hybrid"):
            current = locomo_cv.add_up([locomo_cv.measure(c, now, mode, floor) for c in convs])
            line(f"{mode}, current settings", current, None)
        plain = locomo_cv.add_up([locomo_cv.measure(c, now, "hybrid", 0.0) for c in convs])
        line("hybrid, current, no floor", plain, None)
        chosen = {}
        for mode in ("keyword", "hybrid"):
            grid = [(p, None) for p in locomo_cv.grid(mode)]
            (inside, best), outside, picks = locomo_cv.cross_validate(convs, grid, mode, floor)
            line(f"{mode}, tuned ({len(grid)} settings)", inside, outside)
            chosen[mode] = (best, picks)
        best = chosen["hybrid"][0][0]
        prf = [(best, (beta, most)) for beta in (0.3, 0.7) for most in (3, 6)]
        (inside, _), outside, picks = locomo_cv.cross_validate(convs, [(best, None), *prf], "hybrid", floor)
        line("hybrid best + PRF choice", inside, outside)
        self.stdout.write(f"PRF chosen per held-out conversation: {[p[1] for p in picks]}")
        for mode, (best, picks) in chosen.items():
            self.stdout.write(f"\n{mode}, best in-sample: {best[0].described()}")
            for conv, pick in zip(convs, picks, strict=True):
                changed = {f: getattr(pick[0], f) for f in ("rrf_k", "semantic_weight", "coverage_weight",
                                                            "score_absolute", "rare_words",
                                                            "answer_share", "answer_top")}  # fmt: skip
                self.stdout.write(f"  held out {conv.name}: {changed}")
        self.stdout.write(f"({time.perf_counter() - started:.0f} s)")

    def _print_side_by_side(self, by_style: dict[str, dict[str, list[dict[str, float]]]], modes: list[str]) -> None:
        """One line per mode, the way turns were stored side by side: is hybrid at least keyword alone on both?"""
        keys = ("hit@1", "hit@10", "MRR")
        self.stdout.write("\nside by side (hit@1 / hit@10 / MRR):")
        self.stdout.write(f"{'mode':<10}" + "".join(f"{style:>24}" for style in by_style))
        for mode in modes:
            cells = []
            for totals in by_style.values():
                rows = totals[mode]
                values = [sum(r[k] for r in rows) / len(rows) if rows else 0.0 for k in keys]
                cells.append(" / ".join(f"{v:.3f}" for v in values))
            self.stdout.write(f"{mode:<10}" + "".join(f"{cell:>24}" for cell in cells))

    def _print(self, totals: dict[str, list[dict[str, float]]], modes: list[str], stored: str) -> None:
        def mean(rows: list[dict[str, float]], key: str) -> float:
            return sum(r[key] for r in rows) / len(rows) if rows else 0.0

        keys = [*(f"R@{k}" for k in CUTOFFS), "MRR", *(f"hit@{k}" for k in CUTOFFS)]
        count = len(next(iter(totals.values()), []))
        self.stdout.write(
            f"\nLoCoMo categories {','.join(map(str, CATEGORIES))}, turns stored {stored}: {count} questions"
        )
        self.stdout.write(f"{'mode':<10}" + "".join(f"{k:>8}" for k in keys) + f"{'p50 ms':>9}")
        for mode in modes:
            lat = sorted(self.latencies[mode])
            p50 = lat[len(lat) // 2] if lat else 0.0
            self.stdout.write(f"{mode:<10}" + "".join(f"{mean(totals[mode], k):>8.3f}" for k in keys) + f"{p50:>9.1f}")
        self.stdout.write(
            "R@k: share of a question's evidence turns in the first k; hit@k: questions with any evidence turn in\n"
            "the first k (the issue's R@10: its plain baseline 0.65/0.40 is what --baseline measures as hit@10/MRR)"
        )
        self.stdout.write("\nby category (R@10 / MRR):")
        for mode in modes:
            parts = []
            for category in CATEGORIES:
                rows = self.by_category.get((mode, category), [])
                parts.append(f"c{category} n={len(rows)} {mean(rows, 'R@10'):.3f}/{mean(rows, 'MRR'):.3f}")
            self.stdout.write(f"{mode:<10}" + "  ".join(parts))
