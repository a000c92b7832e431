"""Demo data: a small, realistic set of coding-agent memories so a new user sees something on first start, kept
apart from the user's own and removable in one step.

Every demo memory lives in a demo project (`DEMO_PROJECTS`, never global, so nothing of it reaches a real project's
recall), carries the tag `demo` and the source `demo`. `seed_demo` writes them into an empty store only;
`remove_demo` deletes everything in the demo projects, and the demo memories an older version seeded as global ones.
"""

from __future__ import annotations

from django.db.models import Q

from memoryhub.memories.store import delete_memory, import_memories
from memoryhub.models import Memory

SHOPFRONT = "demo-shopfront"
INGEST_CLI = "demo-ingest-cli"
DEMO_PROJECTS = (SHOPFRONT, INGEST_CLI)
DEMO_TAG = "demo"
DEMO_SOURCE = "demo"

_DATA: list[dict] = [
    # The demo person and their environment: kept in a demo project too, so they never reach a real one's recall.
    {
        "project": SHOPFRONT,
        "content": "The user prefers concise answers with code first and explanation after.",
        "category": "preference",
        "tier": "semantic",
        "importance": 0.8,
        "confirmed": True,
        "tags": ["style"],
    },
    {
        "project": SHOPFRONT,
        "content": "The user works on Debian 12 with Python 3.11 managed by pyenv.",
        "category": "environment",
        "tier": "semantic",
        "importance": 0.7,
        "tags": ["os", "python"],
    },
    {
        "project": SHOPFRONT,
        "content": "Always use ruff for linting and formatting Python; the user dislikes black's line wrapping.",
        "category": "preference",
        "tier": "procedural",
        "importance": 0.75,
        "tags": ["python", "tooling"],
    },
    {
        "project": SHOPFRONT,
        "content": "The user's editor is Neovim with the LazyVim distribution.",
        "category": "environment",
        "tier": "semantic",
        "importance": 0.5,
        "tags": ["editor"],
    },
    {
        "project": SHOPFRONT,
        "content": "Write commit messages in the imperative mood, under 72 characters in the subject line.",
        "category": "preference",
        "tier": "procedural",
        "importance": 0.6,
        "tags": ["git"],
    },
    # Project: demo-shopfront (a Django web shop).
    {
        "project": SHOPFRONT,
        "content": "shopfront uses Django 5.2 with PostgreSQL 16 in production and SQLite in tests.",
        "category": "project",
        "tier": "semantic",
        "importance": 0.8,
        "confirmed": True,
        "tags": ["django", "database"],
    },
    {
        "project": SHOPFRONT,
        "content": "We chose Stripe Checkout over Payment Intents to keep PCI scope minimal.",
        "category": "decision",
        "tier": "semantic",
        "importance": 0.85,
        "tags": ["payments", "stripe"],
    },
    {
        "project": SHOPFRONT,
        "content": "Run the test suite with `pytest -n auto --reuse-db`; the full run takes about four minutes.",
        "category": "skill",
        "tier": "procedural",
        "importance": 0.7,
        "tags": ["testing"],
    },
    {
        "project": SHOPFRONT,
        "content": "OrderService.calculate_total() rounds VAT per line, not per order; changing it breaks invoices.",
        "category": "gotcha",
        "tier": "semantic",
        "importance": 0.9,
        "tags": ["billing", "vat"],
    },
    {
        "project": SHOPFRONT,
        "content": "Celery workers must be restarted after changing settings.CELERY_BEAT_SCHEDULE.",
        "category": "gotcha",
        "tier": "procedural",
        "importance": 0.65,
        "tags": ["celery"],
    },
    {
        "project": SHOPFRONT,
        "content": "Product images are stored in S3 bucket shopfront-media behind CloudFront.",
        "category": "reference",
        "tier": "semantic",
        "importance": 0.5,
        "tags": ["storage", "aws"],
    },
    {
        "project": SHOPFRONT,
        "content": "Maria Lopez owns the checkout flow and reviews every change to payments code.",
        "category": "person",
        "tier": "semantic",
        "importance": 0.6,
        "tags": ["team"],
    },
    {
        "project": SHOPFRONT,
        "content": "Deploys go through GitHub Actions to Fly.io; the workflow file is .github/workflows/deploy.yml.",
        "category": "fact",
        "tier": "semantic",
        "importance": 0.6,
        "tags": ["deploy", "ci"],
    },
    {
        "project": SHOPFRONT,
        "content": "Migration 0042_add_sku_index locked the orders table for 3 minutes in production; add indexes concurrently.",
        "category": "gotcha",
        "tier": "episodic",
        "importance": 0.7,
        "tags": ["postgres", "migrations"],
    },
    # Project: demo-ingest-cli (a Rust command-line tool).
    {
        "project": INGEST_CLI,
        "content": "ingest-cli is a Rust 2021 command-line tool built with clap 4 and tokio.",
        "category": "project",
        "tier": "semantic",
        "importance": 0.8,
        "confirmed": True,
        "tags": ["rust"],
    },
    {
        "project": INGEST_CLI,
        "content": "Use `cargo nextest run` instead of `cargo test`; integration tests need the fixtures in tests/data.",
        "category": "skill",
        "tier": "procedural",
        "importance": 0.7,
        "tags": ["testing", "rust"],
    },
    {
        "project": INGEST_CLI,
        "content": "We parse CSV with the csv crate and never with split(','), because quoted fields contain commas.",
        "category": "decision",
        "tier": "semantic",
        "importance": 0.75,
        "tags": ["csv", "parsing"],
    },
    {
        "project": INGEST_CLI,
        "content": "parse_record_batch() panics on empty input before version 0.9; guard with is_empty() first.",
        "category": "gotcha",
        "tier": "semantic",
        "importance": 0.8,
        "tags": ["bug"],
    },
    {
        "project": INGEST_CLI,
        "content": "Release builds use `cargo build --release --locked` and are published by cargo-dist.",
        "category": "skill",
        "tier": "procedural",
        "importance": 0.55,
        "tags": ["release"],
    },
    {
        "project": INGEST_CLI,
        "content": "The --batch-size flag defaults to 10000 rows; larger values exhaust memory on 2 GB runners.",
        "category": "fact",
        "tier": "semantic",
        "importance": 0.6,
        "tags": ["performance"],
    },
]


DEMO_MEMORIES: list[dict] = [item | {"tags": [DEMO_TAG, *item["tags"]]} for item in _DATA]
# Before the demo had projects of its own, these were seeded as global memories (source "demo"): removed as well.
_LEGACY_GLOBAL_TEXTS = [item["content"] for item in _DATA[:5]]


def demo_memories():
    """Every demo memory in the store, whatever its status."""
    return Memory.objects.filter(
        Q(project__in=DEMO_PROJECTS) | Q(project__isnull=True, source=DEMO_SOURCE, content__in=_LEGACY_GLOBAL_TEXTS)
    )


def demo_present() -> bool:
    return demo_memories().exists()


def seed_demo(*, force: bool = False, actor: str = "seed_demo") -> list[int] | None:
    """Write the demo memories; into an empty store only unless `force`. None when the store was not empty."""
    if Memory.objects.exists() and not force:
        return None
    return import_memories(items=DEMO_MEMORIES, source=DEMO_SOURCE, actor=actor)


def remove_demo(*, actor: str) -> int:
    """Delete every demo memory (each with its history event, as any delete). Returns how many."""
    removed = 0
    for memory in demo_memories().order_by("pk"):
        delete_memory(memory=memory, actor=actor)
        removed += 1
    return removed
