"""Measure the noise rules on agent chatter and durable facts nobody tuned them on (bench/chatter_set.py): how much
chatter is refused and how many facts are kept, for the dev half (the rules may be tuned on it) and the held-out
half (measured only). `--verbose` lists the dev half's misses; the held-out half's are never printed, so nobody
tunes on them by accident. `--file F` measures a JSON file {"chatter": [...], "facts": [...]} instead (a sealed set:
counts only, unless `--verbose` is given for a development file)."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand

from bench.chatter_set import (
    CHATTER_DEV,
    CHATTER_HELD_OUT,
    FACTS_DEV,
    FACTS_HELD_OUT,
    FIFTH_CHATTER,
    FIFTH_FACTS,
    FRESH_CHATTER,
    FRESH_FACTS,
)
from bench.commands.gate import judge


def rates(chatter: list[str], facts: list[str]) -> tuple[int, int, list[str], list[str]]:
    """(chatter refused, facts kept, chatter let through, facts refused)."""
    through = [t for t in chatter if judge(t) is None]
    refused = [t for t in facts if judge(t) is not None]
    return len(chatter) - len(through), len(facts) - len(refused), through, refused


class Command(BaseCommand):
    help = "Print the noise rules' refused and kept rates on unseen agent chatter and durable facts (dev, held out)"

    def add_arguments(self, parser):
        parser.add_argument("--verbose", action="store_true", help="list the dev half's misses")
        parser.add_argument("--file", type=Path, help='a JSON file {"chatter": [...], "facts": [...]} to measure')

    def handle(self, *args, verbose: bool, file: Path | None, **options):
        halves = (
            ("dev", CHATTER_DEV, FACTS_DEV),
            ("held out", CHATTER_HELD_OUT, FACTS_HELD_OUT),
            ("held out, second batch", FRESH_CHATTER, FRESH_FACTS),
            ("held out, fifth batch", FIFTH_CHATTER, FIFTH_FACTS),
        )
        if file is not None:
            data = json.loads(file.read_text())
            halves = (("dev" if verbose else file.name, list(data["chatter"]), list(data["facts"])),)
        for name, chatter, facts in halves:
            refused, kept, through, lost = rates(chatter, facts)
            self.stdout.write(f"{name}:")
            share = 100 * refused / len(chatter)
            self.stdout.write(f"  chatter refused {refused:4d} / {len(chatter):<4d} {share:5.1f}%")
            self.stdout.write(f"  facts kept      {kept:4d} / {len(facts):<4d} {100 * kept / len(facts):5.1f}%")
            if verbose and name == "dev":
                for text in through:
                    self.stdout.write(f"    chatter kept:   {text!r}")
                for text in lost:
                    self.stdout.write(f"    fact refused:   {text!r}")
