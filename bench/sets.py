"""The evaluation sets' data: one JSON file a set under bench/data/, read by the set's module, which keeps the
set's names, types and split (bench/crowded_set.py, bench/crowded_round3.py, bench/updates_set.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"


def load(name: str) -> Any:
    """The data of the set `name` (bench/data/<name>.json), as written: items in the order of the file."""
    with (DATA / f"{name}.json").open(encoding="utf-8") as file:
        return json.load(file)
