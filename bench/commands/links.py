"""`manage.py review_supersessions --restore` on a store an earlier release left: its automatic links, some right
(the newer replaced the older's value) and many wrong (the older stayed true), written into a scratch store as that
release left them, then reviewed. Prints how many wrong links were restored and how many right ones kept.

`--set recorded` reads tests/samples/previous_release_links.json (halves `dev`, `held out`, `by hand`; `--misses`
lists the misses of the dev and by-hand entries only); `--set round4`, `--set round5` and `--set round16` read
bench/data/round4|5|16/links.json, sets written apart from the rules and never tuned on (counts only); `--set dev`
reads bench/data/links_dev.json, `--set dev2|dev3` bench/data/links_dev2|3.json, written the same way to shape the
rules on (dev2 and dev3 were each measured once before they were read).
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand

from bench.scratch import scratch_database
from memoryhub.memories.store import create_memory
from memoryhub.memories.supersession import supersede
from memoryhub.models import Memory, Status
from memoryhub.storage.resets import forget_store_caches

ROOT = Path(__file__).resolve().parents[2]
SETS = {
    "recorded": ROOT / "tests" / "samples" / "previous_release_links.json",
    "round4": ROOT / "bench" / "data" / "round4" / "links.json",
    "round5": ROOT / "bench" / "data" / "round5" / "links.json",
    "round16": ROOT / "bench" / "data" / "round16" / "links.json",
    "dev": ROOT / "bench" / "data" / "links_dev.json",
    "dev2": ROOT / "bench" / "data" / "links_dev2.json",
    "dev3": ROOT / "bench" / "data" / "links_dev3.json",
}
SHOWN = ("dev", "by hand")  # the halves whose misses may be listed: the rules were shaped on them


class Command(BaseCommand):
    help = "review_supersessions --restore on an earlier release's links: wrong links restored, right ones kept."

    def add_arguments(self, parser):
        parser.add_argument("--set", dest="which", choices=tuple(SETS), default="recorded")
        parser.add_argument("--misses", action="store_true", help="list the misses of the dev and by-hand entries")

    def handle(self, *args, which: str, misses: bool, **options):
        entries = json.loads(SETS[which].read_text())
        unsplit = "dev" if which.startswith("dev") else "held out"  # a file of one half says which by its name
        halves = sorted({e.get("half", unsplit) for e in entries})
        for name in halves:
            part = [e for e in entries if e.get("half", unsplit) == name]
            with scratch_database():
                forget_store_caches()
                self.report(name, part, show=misses and name in SHOWN)

    def report(self, name: str, entries: list[dict], *, show: bool) -> None:
        links = []
        for entry in entries:
            older = create_memory(content=entry["older"], project=entry["project"], source="claude")
            newer = create_memory(content=entry["newer"], project=entry["project"], source="agent-x")
            supersede(older=older, newer=newer, actor="agent-x", reason="says it changed: recorded link")
            links.append((older.pk, newer.pk, entry))
        call_command("review_supersessions", "--restore", stdout=StringIO())
        now = {m.pk: m for m in Memory.objects.filter(pk__in=[older for older, _, _ in links])}
        restored_wrong = kept_right = 0
        missed = []
        for older, newer, entry in links:
            linked = now[older].status == Status.SUPERSEDED and now[older].superseded_by_id == newer
            if entry["right"] and linked:
                kept_right += 1
            elif not entry["right"] and not linked:
                restored_wrong += 1
            else:
                missed.append(f"  {'right, restored' if entry['right'] else 'wrong, kept'}: "
                              f"{entry['older']} -> {entry['newer']}")  # fmt: skip
        right = sum(1 for _, _, e in links if e["right"])
        wrong = len(links) - right
        self.stdout.write(
            f"{name}: wrong links restored {restored_wrong}/{wrong} ({restored_wrong / max(wrong, 1):.1%}), "
            f"right links kept {kept_right}/{right} ({kept_right / max(right, 1):.1%})"
        )
        if show:
            self.stdout.write("\n".join(missed))
