"""Measure the write gate on the labelled set (memoryhub/bench/gate_set.py): keep, refuse and secret rates."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from memoryhub.bench import secret_holdout as held
from memoryhub.bench.gate_set import DURABLE, NOISE, secret_writes
from memoryhub.memories.noise import noise_reason
from memoryhub.memories.secrets import find_secrets, label_secret_kinds


def judge(text: str) -> str | None:
    """What the gate's rules refuse a write for ('secret', 'noise'), or None when they keep it. The same checks,
    in the same order, as `gate_write`, without storing anything (duplicates need a store, so they are left out)."""
    if find_secrets(text):
        return "secret"
    return "noise" if noise_reason(text) else None


class Command(BaseCommand):
    help = "Run the gate's rules over the labelled set and print how many durable writes are kept, how many noisy "
    help += "ones and secrets are refused, and (with --verbose) each miss."

    def add_arguments(self, parser):
        parser.add_argument("--verbose", action="store_true", help="list every write the gate judged wrong")
        parser.add_argument(
            "--holdout", type=int, default=0, metavar="N",
            help="also measure the held-out secret set (bench/secret_holdout.py) with N generated Django keys",
        )  # fmt: skip

    def handle(self, *args, verbose: bool, holdout: int = 0, **options):
        kept = [t for t in DURABLE if judge(t) is None]
        refused = [t for t in NOISE if judge(t) is not None]
        secrets = secret_writes()
        caught = [(k, t) for k, t in secrets if judge(t) == "secret"]
        rows = [
            ("durable kept", len(kept), len(DURABLE)),
            ("noise refused", len(refused), len(NOISE)),
            ("secrets refused", len(caught), len(secrets)),
        ]
        for label, hit, total in rows:
            self.stdout.write(f"{label:<16} {hit:>4} / {total:<4} {100 * hit / total:6.1f}%")
        kinds = sorted({k for k, _ in secrets})
        self.stdout.write(f"secret kinds in the set: {len(kinds)} ({', '.join(kinds)})")
        if holdout:
            self._holdout(holdout)
        if verbose:
            for text in DURABLE:
                if text not in kept:
                    self.stdout.write(f"  durable refused ({judge(text)}): {text[:100]}")
            for text in NOISE:
                if text not in refused:
                    self.stdout.write(f"  noise kept: {text[:100]}")
            for kind, _ in secrets:
                if kind not in {k for k, _ in caught}:
                    self.stdout.write(f"  secret missed: {kind}")

    def _holdout(self, n: int) -> None:
        """Rates on the held-out set, written before the secret detector was tuned."""

        rows = [
            ("Django keys in a SECRET_KEY line", [bool(find_secrets(x.text)) for x in held.django_key_lines(n)]),
            ("Django keys, bare", [bool(find_secrets(x.text)) for x in held.bare_django_keys(n)]),
            ("DigitalOcean tokens", [bool(find_secrets(x.text)) for x in held.digitalocean_tokens()]),
            ("secrets as labels", [bool(label_secret_kinds(x.text)) for x in held.labelled_secrets()]),
            *[
                (f"random label: {shape}", [bool(label_secret_kinds(v)) for v in values])
                for shape, values in held.random_labels(n).items()
            ],
            ("benign labels kept", [not label_secret_kinds(t) for t in held.BENIGN_TAGS + held.BENIGN_PROJECTS]),
        ]
        for label, hits in rows:
            self.stdout.write(f"{label:<44} {sum(hits):>4} / {len(hits):<4} {100 * sum(hits) / len(hits):6.1f}%")
