"""Round three, measured as a user meets the product: a real server (`manage.py serve`) on a scratch SQLite
store, reached over HTTP with a token, the figures read right after the writes.

For one half (`dev` or `held_out`) of bench/crowded_round3.py and bench/fold_round3.py:

- the crowded store: every fact written with `POST memories`, then the half's changes and additions interleaved
  (bench/crowded_eval.py writes and reads it back through the API), then: supersessions made, wrong ones (per 100
  supersessions and per 100 changes), true facts hidden, additions that superseded something, changes handled
  with and without a cue, writes refused at the gate (and why), additions folded into a stored fact;
- the fold pairs, each pair in a project of its own: the stored sentence, then the second write, then the
  project's active memories listed: writes that add a detail folded away with the detail missing from the store,
  paraphrases folded as duplicates.

Misses (sentence pairs and what happened) are printed for the dev half only; in the dev run a held-out fact that
a dev write touched is named by its key, never its text.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bench import crowded_eval, crowded_round3, fold_round3, processes
from bench.crowded_set import Addition, Change, Fact
from bench.fold_round3 import FoldPair
from bench.processes import ServerDidNotStart, free_port, serve_command, wait_for_health

REPO = Path(__file__).resolve().parents[1]
START_TIMEOUT = 180.0  # seconds for `serve` to answer health (it loads the embedding model first)


# ---------------------------------------------------------------------------------------------------------------
# The server


@dataclass
class Server:
    url: str
    token: str
    directory: Path
    process: subprocess.Popen

    def stop(self) -> None:
        processes.stop(self.process, timeout=20)


def _env(db: Path) -> dict[str, str]:
    """The environment of a fresh install on `db`: none of the caller's MEMORYHUB_* settings but the model cache."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYHUB_") or k == "MEMORYHUB_MODEL_CACHE"}
    return env | {
        "MEMORYHUB_DB": str(db),
        "MEMORYHUB_BACKUP_DIR": str(db.parent / "backups"),
        "DJANGO_SETTINGS_MODULE": "memoryhub.settings",
        "PYTHONUNBUFFERED": "1",
    }


def _manage(db: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=_env(db), capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def start_server(directory: Path) -> Server:
    """A new store in `directory` (migrate, one unscoped token), served by `manage.py serve` on a free port."""
    db = directory / "store.sqlite3"
    _manage(db, "migrate", "--no-input", "-v", "0")
    token = _manage(db, "create_token", "round3").strip().splitlines()[-1].strip()
    port = free_port()
    log = open(directory / "server.log", "a")  # noqa: SIM115 - the server writes to it until it stops
    process = subprocess.Popen(
        [sys.executable, "manage.py", *serve_command(port, threads=4)],
        cwd=REPO, env=_env(db), stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    log.close()
    server = Server(f"http://127.0.0.1:{port}", token, directory, process)
    try:
        wait_for_health(server.url + "/api/v1/health", process, timeout=START_TIMEOUT, pause=0.3)
    except ServerDidNotStart as exc:
        server.stop()
        raise RuntimeError(f"{exc}: see {directory / 'server.log'}") from exc
    return server


class RecordingApi:
    """An `Api` (bench/crowded_eval.py) that keeps every `POST memories` answer, for the gate's reasons."""

    def __init__(self, api: crowded_eval.Api) -> None:
        self.api = api
        self.answers: dict[tuple[str | None, str], tuple[int, Any]] = {}

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        status, answer = self.api.post(path, body)
        if path.rstrip("/").endswith("/memories"):
            self.answers[(body.get("project"), body["content"])] = (status, answer)
        return status, answer

    def get(self, path: str, params: dict[str, Any] | None = None) -> tuple[int, Any]:
        return self.api.get(path, params)

    def reason(self, project: str | None, content: str) -> str:
        _, answer = self.answers.get((project, content), (0, {}))
        if not isinstance(answer, dict):
            return ""
        reason = answer.get("reason")
        if not reason and isinstance(answer.get("error"), dict):
            reason = answer["error"].get("message", "")
        return str(reason or "")


# ---------------------------------------------------------------------------------------------------------------
# The crowded store


@dataclass
class CrowdedResult:
    report: crowded_eval.HalfReport
    half: Any  # CrowdedHalf
    reasons: dict[str, str]  # item key -> the gate's reason, for writes not answered `created`


def measure_crowded(api: RecordingApi, name: str, *, progress: Callable[[str], None] | None = None) -> CrowdedResult:
    part = crowded_round3.half(name)
    report = crowded_eval.measure_half(api, part, scopes=crowded_eval.Scopes(), progress=progress)
    reasons = {w.item.key: api.reason(w.item.project, w.item.text) for w in report.written if w.outcome != "created"}
    return CrowdedResult(report, part, reasons)


def _kind(item: Fact | Change | Addition) -> str:
    return {Fact: "fact", Change: "change", Addition: "addition"}[type(item)]


def _short(reason: str) -> str:
    """The gate's reason cut to its first clause ("it narrates the session in the first person"), to count
    refusals by why."""
    text = reason.removeprefix("refused: ").removeprefix("rejected: ")
    for stop in (";", ". ", "(", ":"):
        text = text.split(stop)[0]
    return text.strip()[:100] or "(no reason given)"


def crowded_lines(result: CrowdedResult) -> list[str]:
    report, part = result.report, result.half
    total, wrong = len(report.links), len(report.wrong)
    lines = [f"\n=== round3 crowded store, {part.name}"]
    lines += crowded_eval.report_lines(report, part)
    lines.append(
        f"wrong supersessions per 100 changes: {100 * wrong / max(1, len(part.changes)):.1f} "
        f"({wrong} wrong, {total} made, {len(part.changes)} changes)"
    )
    refused = [w for w in report.written if w.outcome == "rejected" or w.outcome == "error"]
    lines.append(f"writes refused at the gate: {len(refused)} of {len(report.written)}")
    why = Counter((_kind(w.item), _short(result.reasons.get(w.item.key, ""))) for w in refused)
    lines += [f"  {n} x {kind}: {reason}" for (kind, reason), n in why.most_common()]
    folded = [w for w in report.written if isinstance(w.item, Addition) and w.outcome in ("duplicate", "merged")]
    lines.append(f"additions folded into a stored memory (their fact not stored apart): {len(folded)}")
    folded_changes = [w for w in report.written if isinstance(w.item, Change) and w.outcome in ("duplicate", "merged")]
    lines.append(f"changes folded into a stored memory: {len(folded_changes)}")
    return lines


def crowded_miss_lines(result: CrowdedResult) -> list[str]:
    """The dev misses with both texts; a held-out fact is named by its key only."""
    report = result.report
    masked = dict(report.texts)
    for w in report.written:
        if isinstance(w.item, Fact) and crowded_round3.FACT_HALF[w.item.key] != "dev" and w.memory_id is not None:
            masked[w.memory_id] = f"<held-out fact {w.item.key}>"
    lines = crowded_eval.miss_lines(replace(report, texts=masked))
    by_id = {w.memory_id: w for w in report.written if w.memory_id is not None and w.outcome == "created"}

    def text(memory_id: int | None) -> str:
        return repr(masked.get(memory_id, f"#{memory_id}"))

    lines.append("changes with a cue queued for a person rather than superseded (handled, but not automatically):")
    for r in report.changes:
        if r.change.cue and r.handled and not r.superseded:
            lines.append(f"  [{r.change.key}] {text(r.old_id)} -> {r.change.text!r}")
    lines.append("writes refused at the gate:")
    for w in report.written:
        if w.outcome in ("rejected", "error"):
            shown = repr(w.item.text)
            if isinstance(w.item, Fact) and crowded_round3.FACT_HALF[w.item.key] != "dev":
                shown = f"<held-out fact {w.item.key}>"
            lines.append(f"  [{w.item.key}] {shown}: {result.reasons.get(w.item.key, '')}")
    lines.append("changes and additions folded into a stored memory:")
    for w in report.written:
        if not isinstance(w.item, Fact) and w.outcome in ("duplicate", "merged"):
            into = by_id.get(w.memory_id)
            target = text(w.memory_id) if into else f"#{w.memory_id}"
            lines.append(f"  [{w.item.key}] {w.item.text!r} -> {w.outcome} into {target}")
            lines.append(f"      ({result.reasons.get(w.item.key, '')})")
    return lines


# ---------------------------------------------------------------------------------------------------------------
# The fold pairs


@dataclass
class FoldResult:
    pair: FoldPair
    stored_outcome: str
    outcome: str
    reason: str = ""
    stored_reason: str = ""
    detail_kept: bool = False
    linked: bool = False  # the write superseded the stored memory or was put to a person with it
    texts: list[str] = field(default_factory=list)  # the project's active memories afterwards

    @property
    def folded(self) -> bool:
        return self.outcome in ("duplicate", "merged")

    @property
    def lost_detail(self) -> bool:
        """A write that adds a detail, folded away with the detail nowhere in the store."""
        return self.pair.adds_detail and self.folded and not self.detail_kept


def run_fold_pair(api: crowded_eval.Api, project: str, pair: FoldPair) -> FoldResult:
    status, stored = api.post("/api/v1/memories", {"content": pair.stored, "project": project})
    status, write = api.post("/api/v1/memories", {"content": pair.write, "project": project})

    def reason(answer: Any) -> str:
        if not isinstance(answer, dict):
            return ""
        if isinstance(answer.get("error"), dict):
            return str(answer["error"].get("message", ""))
        return str(answer.get("reason") or "")

    result = FoldResult(
        pair,
        stored_outcome=stored.get("outcome", "error") if isinstance(stored, dict) else "error",
        outcome=write.get("outcome", "error") if isinstance(write, dict) else "error",
        reason=reason(write),
        stored_reason=reason(stored),
    )
    if isinstance(write, dict):
        result.linked = bool(write.get("supersedes")) or bool(write.get("conflicts"))
    _, listed = api.get("/api/v1/memories", {"project": project, "limit": 50})
    rows = listed.get("results", []) if isinstance(listed, dict) else []
    result.texts = [r["content"] for r in rows if r.get("status") == "active" and r.get("project") == project]
    result.detail_kept = bool(pair.detail) and any(pair.detail.lower() in t.lower() for t in result.texts)
    return result


def measure_folds(api: crowded_eval.Api, name: str) -> list[FoldResult]:
    """Each pair in a project of its own, named in words ("fold-infra-3-adds"): the gate holds a label that reads
    as random characters (a run id) to be a secret."""
    return [run_fold_pair(api, f"fold-{p.key.replace('.', '-')}", p) for p in fold_round3.half(name)]


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / max(1, total):.0f}%)"


def fold_lines(name: str, results: list[FoldResult]) -> list[str]:
    adds = [r for r in results if r.pair.adds_detail]
    same = [r for r in results if not r.pair.adds_detail]
    refused_stored = [r for r in results if r.stored_outcome != "created"]

    def outcomes(rows: list[FoldResult]) -> str:
        seen = Counter(r.outcome for r in rows)
        return ", ".join(f"{n} {o}" for o, n in seen.most_common())

    lost = sum(r.lost_detail for r in adds)
    said_duplicate = sum(r.outcome == "duplicate" for r in adds)
    lines = [
        f"\n=== round3 fold pairs, {name}: {len(adds)} add a detail, {len(same)} say the same",
        f"stored sentence not stored as a new memory: {len(refused_stored)} of {len(results)}",
        f"writes that add a detail ({len(adds)}): {outcomes(adds)}",
        f"  details lost (folded away, the detail nowhere in the store): {_rate(lost, len(adds))}",
        f"  answered duplicate (whatever the store holds): {_rate(said_duplicate, len(adds))}",
        f"  detail in an active memory afterwards: {_rate(sum(r.detail_kept for r in adds), len(adds))}",
        f"  superseded the stored memory or put to a person with it: {_rate(sum(r.linked for r in adds), len(adds))}",
        f"paraphrases and repeats ({len(same)}): {outcomes(same)}",
        f"  folded as a duplicate: {_rate(sum(r.outcome == 'duplicate' for r in same), len(same))}",
        f"  folded (duplicate or merged): {_rate(sum(r.folded for r in same), len(same))}",
        f"  superseded the stored memory or put to a person with it: {_rate(sum(r.linked for r in same), len(same))}",
    ]
    refused = [r for r in results if r.outcome in ("rejected", "error") or r.stored_outcome in ("rejected", "error")]
    lines.append(f"refused at the gate (stored sentence or write): {len(refused)}")
    why = Counter(_short(r.stored_reason if r.stored_outcome in ("rejected", "error") else r.reason) for r in refused)
    lines += [f"  {n} x {reason}" for reason, n in why.most_common()]
    return lines


def fold_miss_lines(results: list[FoldResult]) -> list[str]:
    lines = ["\nfold misses (dev):"]
    for r in results:
        p = r.pair
        wrong_add = p.adds_detail and (not r.detail_kept or r.outcome == "duplicate")
        wrong_same = not p.adds_detail and r.outcome != "duplicate"
        if not (wrong_add or wrong_same or r.linked or r.stored_outcome != "created"):
            continue
        lines.append(f"  [{p.key}] {p.stored!r} -> {p.write!r}")
        lines.append(
            f"      stored: {r.stored_outcome}; write: {r.outcome}; detail kept: {r.detail_kept}; linked: {r.linked}"
        )
        lines.append(f"      ({r.reason or r.stored_reason})")
    return lines


# ---------------------------------------------------------------------------------------------------------------
# One run


def run(name: str, *, write: Callable[[str], None], misses: bool, keep: str | None = None) -> None:
    """Start a server on a new store, measure the half's crowded store and fold pairs through it, stop it."""
    if name not in crowded_round3.HALVES:
        raise ValueError(f"no half named {name!r}; the halves are {crowded_round3.HALVES}")
    directory = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="memoryhub-round3-"))
    directory.mkdir(parents=True, exist_ok=True)
    server = start_server(directory)
    write(f"server: {server.url} (manage.py serve), store {directory / 'store.sqlite3'}")
    api = RecordingApi(crowded_eval.HttpApi(server.url, server.token, timeout=120))
    try:
        started = time.monotonic()
        crowded = measure_crowded(api, name, progress=lambda line: write(line))
        write("\n".join(crowded_lines(crowded)))
        if misses and name == "dev":
            write("\n".join(crowded_miss_lines(crowded)))
        folds = measure_folds(api, name)
        write("\n".join(fold_lines(name, folds)))
        if misses and name == "dev":
            write("\n".join(fold_miss_lines(folds)))
        write(f"\ntotal {time.monotonic() - started:.0f} s")
    finally:
        api.api.close()  # type: ignore[attr-defined]
        server.stop()
