"""A small, realistic set of coding-agent memories so a new user sees something on first start."""

from __future__ import annotations

DEMO_MEMORIES: list[dict] = [
    # Global: the person and their environment, visible from every project.
    {"content": "The user prefers concise answers with code first and explanation after.", "category": "preference", "tier": "semantic", "importance": 0.8, "confirmed": True, "tags": ["style"]},
    {"content": "The user works on Debian 12 with Python 3.11 managed by pyenv.", "category": "environment", "tier": "semantic", "importance": 0.7, "tags": ["os", "python"]},
    {"content": "Always use ruff for linting and formatting Python; the user dislikes black's line wrapping.", "category": "preference", "tier": "procedural", "importance": 0.75, "tags": ["python", "tooling"]},
    {"content": "The user's editor is Neovim with the LazyVim distribution.", "category": "environment", "tier": "semantic", "importance": 0.5, "tags": ["editor"]},
    {"content": "Write commit messages in the imperative mood, under 72 characters in the subject line.", "category": "preference", "tier": "procedural", "importance": 0.6, "tags": ["git"]},
    # Project: shopfront (a Django web shop).
    {"project": "shopfront", "content": "shopfront uses Django 5.2 with PostgreSQL 16 in production and SQLite in tests.", "category": "project", "tier": "semantic", "importance": 0.8, "confirmed": True, "tags": ["django", "database"]},
    {"project": "shopfront", "content": "We chose Stripe Checkout over Payment Intents to keep PCI scope minimal.", "category": "decision", "tier": "semantic", "importance": 0.85, "tags": ["payments", "stripe"]},
    {"project": "shopfront", "content": "Run the test suite with `pytest -n auto --reuse-db`; the full run takes about four minutes.", "category": "skill", "tier": "procedural", "importance": 0.7, "tags": ["testing"]},
    {"project": "shopfront", "content": "OrderService.calculate_total() rounds VAT per line, not per order; changing it breaks invoices.", "category": "gotcha", "tier": "semantic", "importance": 0.9, "tags": ["billing", "vat"]},
    {"project": "shopfront", "content": "Celery workers must be restarted after changing settings.CELERY_BEAT_SCHEDULE.", "category": "gotcha", "tier": "procedural", "importance": 0.65, "tags": ["celery"]},
    {"project": "shopfront", "content": "Product images are stored in S3 bucket shopfront-media behind CloudFront.", "category": "reference", "tier": "semantic", "importance": 0.5, "tags": ["storage", "aws"]},
    {"project": "shopfront", "content": "Maria Lopez owns the checkout flow and reviews every change to payments code.", "category": "person", "tier": "semantic", "importance": 0.6, "tags": ["team"]},
    {"project": "shopfront", "content": "Deploys go through GitHub Actions to Fly.io; the workflow file is .github/workflows/deploy.yml.", "category": "fact", "tier": "semantic", "importance": 0.6, "tags": ["deploy", "ci"]},
    {"project": "shopfront", "content": "Migration 0042_add_sku_index locked the orders table for 3 minutes in production; add indexes concurrently.", "category": "gotcha", "tier": "episodic", "importance": 0.7, "tags": ["postgres", "migrations"]},
    # Project: ingest-cli (a Rust command-line tool).
    {"project": "ingest-cli", "content": "ingest-cli is a Rust 2021 command-line tool built with clap 4 and tokio.", "category": "project", "tier": "semantic", "importance": 0.8, "confirmed": True, "tags": ["rust"]},
    {"project": "ingest-cli", "content": "Use `cargo nextest run` instead of `cargo test`; integration tests need the fixtures in tests/data.", "category": "skill", "tier": "procedural", "importance": 0.7, "tags": ["testing", "rust"]},
    {"project": "ingest-cli", "content": "We parse CSV with the csv crate and never with split(','), because quoted fields contain commas.", "category": "decision", "tier": "semantic", "importance": 0.75, "tags": ["csv", "parsing"]},
    {"project": "ingest-cli", "content": "parse_record_batch() panics on empty input before version 0.9; guard with is_empty() first.", "category": "gotcha", "tier": "semantic", "importance": 0.8, "tags": ["bug"]},
    {"project": "ingest-cli", "content": "Release builds use `cargo build --release --locked` and are published by cargo-dist.", "category": "skill", "tier": "procedural", "importance": 0.55, "tags": ["release"]},
    {"project": "ingest-cli", "content": "The --batch-size flag defaults to 10000 rows; larger values exhaust memory on 2 GB runners.", "category": "fact", "tier": "semantic", "importance": 0.6, "tags": ["performance"]},
]
