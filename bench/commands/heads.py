"""Train the chatter head (memoryhub/writes/chatter_head.py) on the labelled chatter and facts of the lab: the dev
half of bench/chatter_set.py, the development set bench/data/dev5.json, the gate's labelled set (bench/gate_set.py)
and the ordinary instructions of the planted set's development batches (bench/planted_set.py). A logistic
regression over the bundled model's vectors; the threshold is the lowest of a grid at which, in 5-fold
cross-validation, the head refuses no fact the rules keep. Writes memoryhub/writes/chatter_head.npz and prints the
cross-validated figures. Held-out batches are not read."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand

from bench import chatter_set, gate_set, planted_set
from memoryhub.embeddings import get_embedder
from memoryhub.writes.chatter_head import WEIGHTS
from memoryhub.writes.noise import noise_reason

DEV5 = Path(__file__).resolve().parents[1] / "data" / "dev5.json"
GRID = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)


def training_texts() -> tuple[list[str], list[str]]:
    """(chatter, facts) the head learns from."""
    dev5 = json.loads(DEV5.read_text())
    chatter = chatter_set.CHATTER_DEV + dev5["chatter"] + gate_set.NOISE
    # A person's standing instructions are facts to keep too ("I want error messages to say what to do next").
    instructions = planted_set.dev_half(planted_set.ORDINARY) + planted_set.ORDINARY_FOURTH + dev5["ordinary"]
    facts = chatter_set.FACTS_DEV + dev5["facts"] + gate_set.DURABLE + instructions
    return chatter, facts


def fit(x: np.ndarray, y: np.ndarray, *, l2: float = 1e-2, steps: int = 3000, rate: float = 0.5):
    """Logistic regression by gradient descent (weights, bias); deterministic."""
    weights, bias = np.zeros(x.shape[1]), 0.0
    for _ in range(steps):
        gradient = 1.0 / (1.0 + np.exp(-(x @ weights + bias))) - y
        weights -= rate * (x.T @ gradient / len(y) + l2 * weights)
        bias -= rate * float(gradient.mean())
    return weights, bias


def cross_validated(x: np.ndarray, y: np.ndarray, folds: int = 5) -> np.ndarray:
    """Each text's probability of chatter from a head that did not see it."""
    order = np.random.default_rng(0).permutation(len(y))
    out = np.zeros(len(y))
    for part in np.array_split(order, folds):
        rest = np.setdiff1d(order, part)
        weights, bias = fit(x[rest], y[rest])
        out[part] = 1.0 / (1.0 + np.exp(-(x[part] @ weights + bias)))
    return out


class Command(BaseCommand):
    help = "Train the chatter head on the lab's labelled chatter and facts; write its weights beside its module."

    def handle(self, *args, **options):
        chatter, facts = training_texts()
        embedder = get_embedder()
        x = embedder.embed(chatter + facts).astype(np.float64)
        y = np.r_[np.ones(len(chatter)), np.zeros(len(facts))]
        by_rules = np.array([noise_reason(text) is not None for text in chatter + facts])  # the rules alone
        probability = cross_validated(x, y)
        threshold = GRID[-1]
        for t in GRID:
            refused = by_rules | (probability > t)
            lost = int((refused & (y == 0) & ~by_rules).sum())
            self.stdout.write(
                f"threshold {t:.2f}: chatter refused {int((refused & (y == 1)).sum())}/{len(chatter)}, "
                f"facts kept {int((~refused & (y == 0)).sum())}/{len(facts)}, facts the head alone refuses {lost}"
            )
            if lost == 0 and threshold == GRID[-1]:
                threshold = t
        weights, bias = fit(x, y)
        np.savez(WEIGHTS, weights=weights.astype(np.float32), bias=bias, threshold=threshold,
                 model_id=embedder.model_id)  # fmt: skip
        self.stdout.write(f"threshold {threshold:.2f}; wrote {WEIGHTS} ({embedder.model_id}, {len(y)} texts)")
