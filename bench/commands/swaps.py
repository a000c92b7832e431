"""Writes that put one word of a stored memory in place of another value ("Backups run before the deploy" /
"... after the deploy"): how many the write gate folds into the stored one as a duplicate, each a fact lost. Each
pair is written in a project of its own on a scratch database, through the gate (`gate_write`).

    python -m bench swaps                                  # bench/data/swaps/dev.json (the rules were shaped on it)
    python -m bench swaps --file bench/data/swaps/blind.json   # written blind: counts only

`--verbose` lists the folded pairs of a development file; a blind file's are never printed.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand

from bench.scratch import scratch_database

DATA = Path(__file__).resolve().parents[1] / "data" / "swaps"


class Command(BaseCommand):
    help = "Count the value swaps (one word in place of another value) the write gate folds as duplicates."

    def add_arguments(self, parser):
        parser.add_argument("--file", default=str(DATA / "dev.json"), help="a JSON list of [stored, newer] pairs")
        parser.add_argument("--verbose", action="store_true", help="list the folded pairs (development files only)")

    def handle(self, *args, file: str, verbose: bool, **options):
        from memoryhub.writes.gate import gate_write

        pairs = json.loads(Path(file).read_text())
        folded = []
        with scratch_database():
            for index, (stored, newer) in enumerate(pairs):
                gate_write(content=stored, project=f"swap-{index}")
                if gate_write(content=newer, project=f"swap-{index}").outcome in ("duplicate", "merged"):
                    folded.append((stored, newer))
        self.stdout.write(
            f"{Path(file).name}: value swaps folded as duplicates (a fact lost): {len(folded)}/{len(pairs)}"
        )
        if verbose and "blind" not in Path(file).name:
            for stored, newer in folded:
                self.stdout.write(f"  {stored!r} -> {newer!r}")
