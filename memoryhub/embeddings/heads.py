"""The weights file of a head over the bundled model's vectors (the gate's chatter head, the planted head): a small
logistic regression shipped as a numpy `.npz` beside the code that reads it, trained by `python -m bench heads` and
`python -m bench planted_head`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def read_head(path: Path) -> dict[str, Any] | None:
    """The file's arrays as a head's fields: `weights` (float32), `model_id` (the model whose vectors it reads), and
    every other entry (the bias and the thresholds) as a number. None when the file is missing."""
    if not path.exists():
        return None
    with np.load(path) as data:
        numbers = {name: float(data[name]) for name in data.files if name not in ("weights", "model_id")}
        return {"weights": data["weights"].astype(np.float32), "model_id": str(data["model_id"]), **numbers}
