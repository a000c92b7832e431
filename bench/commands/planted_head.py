"""Train the planted-instruction head (memoryhub/memories/planted_head.py) on labelled planted instructions and what
must stay active: bench/data/planted_train.json (written for the head: planted instructions and ordinary team rules,
forceful ones and ones that name agents, security or installs included), bench/data/planted_train9.json (two more
such batches, each written blind, in other voices and disguises and a few other languages), the development batches
of the planted set (bench/planted_set.py: the dev half, the fourth, fifth and sixth batches) and of
bench/data/dev5.json, and, as more of what must stay active, the durable facts of the gate's labelled set, the chatter
set's dev half, dev5, train6 and train7. The held-out batches (the planted set's first held-out half, second and third
batches) and the sealed sets are not read.

A logistic regression (`heads.fit`) over what the head reads (`planted_head.features`: the bundled model's vector
and the text's hashed words and word pairs), with one threshold: the lowest of a grid at which, in 5-fold
cross-validation, the head holds at most `ALLOW` (none) of the ordinary rules and facts that the rules keep (`--allow N`
sets another count); and one `release`: the highest of a low grid below which, in the same cross-validation, no
planted text that the rules hold only for speaking to the model by name (`planted.ADDRESSED`) falls, so the head
lets in a team's rule for its agents there and no planted text. Writes memoryhub/memories/planted_head.npz and prints
the cross-validated figures.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand

from bench import chatter_set, gate_set, planted_set
from bench.commands import heads
from memoryhub.embeddings import get_embedder
from memoryhub.memories.planted import ADDRESSED, planted_instruction
from memoryhub.memories.planted_head import WEIGHTS, features

DATA = Path(__file__).resolve().parents[1] / "data"
# 0.5 .. 0.975, then finer near 1: with a light penalty the head is often very sure either way.
GRID = tuple(round(0.5 + 0.025 * i, 3) for i in range(20)) + (0.98, 0.99, 0.995, 0.998, 0.999)
RELEASE_GRID = (0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1)
# Ordinary rules or facts the head may hold in cross-validation (of about 1,500 the rules keep). Allowing 3 held more
# planted texts written in other hands in cross-validation, but on two later batches read only after (planted_c and
# the seventh, both beyond coding) it held 4 more ordinary texts for 6 more planted ones: none, with the stronger
# penalty below, held 10 of 330 ordinary texts there against 15, and 166 of 260 planted against 174.
ALLOW = 0
L2 = 1e-3  # with 760 more training texts, 1e-4 made the head sure of words it had seen in a few planted texts


def training_texts() -> tuple[list[str], list[str]]:
    """(planted, kept): what the head learns to hold and what it must leave active."""
    written = json.loads((DATA / "planted_train.json").read_text(encoding="utf-8"))
    more = json.loads((DATA / "planted_train9.json").read_text(encoding="utf-8"))
    dev5 = json.loads((DATA / "dev5.json").read_text(encoding="utf-8"))
    planted = written["planted"] + more["planted"] + planted_set.dev_half(planted_set.PLANTED) + dev5["planted"]
    planted += planted_set.PLANTED_FOURTH + planted_set.PLANTED_FIFTH + planted_set.PLANTED_SIXTH
    ordinary = written["ordinary"] + more["ordinary"] + planted_set.dev_half(planted_set.ORDINARY) + dev5["ordinary"]
    ordinary += planted_set.ORDINARY_FOURTH + planted_set.ORDINARY_FIFTH + planted_set.ORDINARY_SIXTH
    facts = gate_set.DURABLE + chatter_set.FACTS_DEV + dev5["facts"]
    facts += [t for name in ("train6", "train7") for t in json.loads((DATA / f"{name}.json").read_text())["facts"]]
    kept = list(dict.fromkeys(ordinary + facts))
    planted = [t for t in dict.fromkeys(planted) if t not in set(kept)]
    return planted, kept


def fit(x: np.ndarray, y: np.ndarray, *, l2: float = L2, steps: int = 50) -> tuple[np.ndarray, float]:
    """Logistic regression (weights, bias): the minimum of the mean log loss plus l2/2 |w|^2, by Newton's method as
    `heads.fit`, but with more features than texts, so each step solves a system as large as the texts (Woodbury's
    identity), not one as wide as the features. The bias gets a token penalty so the system stays invertible."""
    count, width = x.shape
    with_bias = np.c_[x, np.ones(count)]
    inverse_penalty = 1.0 / np.r_[np.full(width, l2), 1e-8]
    w = np.zeros(width + 1)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(with_bias @ w)))
        gradient = with_bias.T @ (p - y) / count + w / inverse_penalty
        a = with_bias * np.sqrt(p * (1.0 - p) / count)[:, None]  # hessian = a.T @ a + penalty
        scaled = inverse_penalty * gradient
        middle = np.eye(count) + (a * inverse_penalty) @ a.T
        step = scaled - inverse_penalty * (a.T @ np.linalg.solve(middle, a @ scaled))
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w[:-1], float(w[-1])


def cross_validated(x: np.ndarray, y: np.ndarray, folds: int = 5) -> np.ndarray:
    """Each text's probability of being planted from a head that did not see it (the folds of `python -m bench
    heads`, with this head's fit)."""
    return heads.cross_validated(x, y, folds, fitting=functools.partial(fit, l2=L2))


def highest_release(probability: np.ndarray, planted_only_addressed: np.ndarray) -> float:
    """The highest value of the low grid below which no planted text held only for speaking to the model falls."""
    safe = [r for r in RELEASE_GRID if not (probability[planted_only_addressed] < r).any()]
    return max(safe)


def lowest_safe(probability: np.ndarray, kept_by_rules: np.ndarray, *, allow: int = 0) -> float:
    """The lowest threshold of the grid above which the head holds at most `allow` of these texts."""
    for t in GRID:
        if int((probability[kept_by_rules] > t).sum()) <= allow:
            return t
    return 1.0  # the head stays silent


class Command(BaseCommand):
    help = "Train the planted-instruction head on labelled planted and ordinary writes; write its weights."

    def add_arguments(self, parser):
        parser.add_argument(
            "--allow", type=int, default=ALLOW, help="ordinary rules or facts the head may hold in cross-validation"
        )

    def handle(self, *args, allow: int = 0, **options):
        planted, kept = training_texts()
        texts = planted + kept
        embedder = get_embedder()
        vectors = embedder.embed(texts)
        x = np.array([features(t, v) for t, v in zip(texts, vectors, strict=True)], dtype=np.float64)
        y = np.r_[np.ones(len(planted)), np.zeros(len(kept))]
        verdicts = [planted_instruction(t) for t in texts]
        by_rules = np.array([v is not None for v in verdicts])
        addressed = np.array([v is not None and v.rule == ADDRESSED for v in verdicts])
        probability = cross_validated(x, y)
        kept_by_rules = (y == 0) & ~by_rules
        threshold = lowest_safe(probability, kept_by_rules, allow=allow)
        for t in GRID:
            held = by_rules | (probability > t)
            mark = " <-" if t == threshold else ""
            alone = int(((probability > t) & kept_by_rules).sum())
            self.stdout.write(
                f"  {t:.3f}: planted held {int((held & (y == 1)).sum())}/{len(planted)}, "
                f"kept held {int((held & (y == 0)).sum())} (by the head alone {alone}){mark}"
            )
        release = highest_release(probability, addressed & (y == 1))
        let_in = addressed & (probability < release)
        self.stdout.write(
            f"release {release:.3f}: lets in {int((let_in & (y == 0)).sum())} of {int((addressed & (y == 0)).sum())} "
            f"kept texts held only for speaking to the model, {int((let_in & (y == 1)).sum())} of "
            f"{int((addressed & (y == 1)).sum())} planted"
        )
        held = (by_rules & ~(addressed & (probability < release))) | (probability > threshold)
        self.stdout.write(
            f"threshold {threshold:.3f}, cross-validated: planted held {int((held & (y == 1)).sum())}/{len(planted)} "
            f"(rules alone {int((by_rules & (y == 1)).sum())}), kept {int((~held & (y == 0)).sum())}/{len(kept)} "
            f"(rules alone {int((~by_rules & (y == 0)).sum())})"
        )
        weights, bias = fit(x, y, l2=L2)
        np.savez(WEIGHTS, weights=weights.astype(np.float32), bias=bias, threshold=threshold,
                 release=release, model_id=embedder.model_id)  # fmt: skip
        self.stdout.write(f"wrote {WEIGHTS} ({embedder.model_id}, {len(y)} texts)")
