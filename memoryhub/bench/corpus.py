"""A synthetic but realistic memory corpus for search benchmarks: what coding agents store, across projects.

Text comes from templates filled with a large vocabulary (services, tools, files, identifiers, error messages,
people), so every memory reads like a fact an agent would keep and the corpus has the long tail of rare words
real stores have. Deterministic for a seed. Queries are drawn the same way: natural questions, identifiers and
error messages typed verbatim, and stopword-heavy questions.
"""

from __future__ import annotations

import random
from datetime import timedelta

from django.utils import timezone

PROJECTS = ["atlas-api", "billing-service", "mobile-app", "data-pipeline", "infra", "docs-site", "ml-platform",
            "auth-gateway"]  # fmt: skip
SERVICES = ["checkout", "inventory", "search", "notifications", "payments", "reporting", "ingest", "scheduler",
            "gateway", "profile", "catalog", "shipping", "ledger", "webhooks", "analytics", "exports", "media",
            "sessions", "billing", "onboarding"]  # fmt: skip
TOOLS = ["pytest", "ruff", "mypy", "poetry", "uv", "docker compose", "terraform", "helm", "kubectl",
         "celery",
         "redis", "postgres", "nginx", "gunicorn", "uvicorn", "webpack", "vite", "jest", "playwright", "cargo",
         "go test", "sentry", "grafana", "prometheus", "airflow", "dbt", "kafka", "rabbitmq", "elasticsearch",
         "minio", "github actions", "pre-commit", "black", "isort", "tox", "nox", "sqlite", "duckdb",
         "pandas"]  # fmt: skip
VERBS = ["get", "set", "load", "save", "parse", "build", "fetch", "sync", "render", "validate", "resolve", "merge",
         "encode", "decode", "refresh", "compute", "reset", "publish", "archive", "import"]  # fmt: skip
NOUNS = ["User", "Order", "Invoice", "Token", "Session", "Config", "Report", "Payment", "Account", "Cart",
         "Shipment", "Ledger", "Webhook", "Tenant", "Schema", "Cache", "Profile", "Event", "Batch",
         "Quota"]  # fmt: skip
DIRS = ["src", "app", "lib", "services", "core", "api", "workers", "scripts", "config", "tests"]
EXTS = ["py", "ts", "go", "rs", "yaml", "toml", "sql", "json"]
ERRORS = [
    "ConnectionRefusedError: [Errno 111] Connection refused",
    "ModuleNotFoundError: No module named '{lib}'",
    "psycopg2.errors.UniqueViolation: duplicate key value violates unique constraint",
    "TimeoutError: operation timed out after {n} seconds",
    "KeyError: '{field}'",
    "PermissionError: [Errno 13] Permission denied: '/var/run/{svc}.sock'",
    "sqlite3.OperationalError: database is locked",
    "TypeError: Cannot read properties of undefined (reading '{field}')",
    "OOMKilled: container {svc} exceeded memory limit",
    "ERR_CONNECTION_RESET while calling the {svc} service",
    "django.db.utils.IntegrityError: NOT NULL constraint failed: {svc}_{field}.id",
    "ssl.SSLCertVerificationError: certificate verify failed",
]
LIBS = ["pysqlite3", "numpy", "httpx", "boto3", "pydantic", "orjson", "structlog", "tenacity", "arrow", "stripe"]
FIELDS = ["user_id", "tenant", "amount", "currency", "email", "created_at", "status", "sku", "locale", "region"]
PEOPLE = ["Alice", "Bob", "Chen", "Dana", "Emeka", "Fatima", "Giulia", "Hiro", "Ines", "Jonas", "Kwame", "Lena"]
ENVS = ["staging", "production", "dev", "preview", "the CI runner", "the load-test cluster"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "the weekend", "month end", "release day"]
TAGS = ["backend", "frontend", "ops", "db", "ci", "security", "perf"]
CLOUDS = ["AWS", "GCP", "Hetzner", "Fly.io", "Azure", "the on-prem rack"]

TEMPLATES = {
    "fact": [
        "The {svc} service listens on port {port} in {env}",
        "{func} in {file} returns None when the {field} is missing",
        "{svc} stores its state in {tool} and keeps {n} days of history",
        "The {svc} team is led by {person}; ask them before changing the {field} format",
        "Requests to {svc} are rate limited to {n} per minute per tenant",
        "{svc} runs on {cloud} in {env} with {n} replicas",
    ],
    "decision": [
        "We decided to use {tool} instead of {tool2} for {svc} because it is simpler to operate",
        "Decision: {svc} keeps {field} as a string, not an enum, to stay backward compatible",
        "We chose cursor pagination for the {svc} API after offset pagination timed out",
        "{person} decided that {svc} writes go through {func} only",
    ],
    "gotcha": [
        "{error} appears when {svc} starts before {tool} is ready; add a health check",
        "Running {tool} on {env} needs the {envvar} variable, otherwise {error}",
        "Do not call {func} inside a transaction: it deadlocks with the {svc} worker",
        "{tool} caches the {field} column, so restart it after a migration of {svc}",
        "On {day} the {svc} job overlaps with backups and fails with {error}",
    ],
    "skill": [
        "To release {svc}: run {tool}, tag the commit, then deploy with {tool2}",
        "Reproduce the {svc} bug with `{tool} {file}` and the fixture in {file2}",
        "Rotate the {svc} secrets by running scripts/rotate_{field}.sh on {env}",
        "Profile {func} with py-spy when {svc} latency goes above {n} ms",
    ],
    "environment": [
        "{env} uses {tool} {version} and Python 3.{minor}",
        "The {svc} database in {env} is {tool} {version} on {cloud}",
        "Local development of {svc} needs {tool} and {tool2} running in docker compose",
    ],
    "preference": [
        "{person} prefers small pull requests with tests first",
        "The user wants answers with code first and short explanations",
        "Prefer {tool} over {tool2} in new code for {svc}",
    ],
    "reference": [
        "The runbook for {svc} incidents is in docs/runbooks/{svc}.md",
        "Architecture notes for {svc} live in {file}",
        "Ticket {ticket} tracks the {svc} migration to {tool}",
    ],
}

QUERY_TEMPLATES = [
    "how do we deploy {svc}",
    "which port does {svc} listen on in {env}",
    "why does {svc} fail on {day}",
    "what did we decide about {field} in {svc}",
    "how to release {svc}",
    "where are the {svc} runbooks",
    "who leads the {svc} team",
    "what database does {svc} use in {env}",
    "rate limit of {svc}",
    "what is the best way to rotate the secrets of the {svc} service in {env}",
    "{tool} version on {env}",
    "{svc} {tool} cache restart after migration",
]


def _slots(rng: random.Random) -> dict[str, str]:
    svc = rng.choice(SERVICES)
    noun = rng.choice(NOUNS)
    tool, tool2 = rng.sample(TOOLS, 2)
    return {
        "svc": svc,
        "tool": tool,
        "tool2": tool2,
        "env": rng.choice(ENVS),
        "port": str(rng.choice([5432, 6379, 8000, 8080, 8443, 9000, 9092, 3000, 5000, 7000 + rng.randrange(900)])),
        "func": rng.choice(VERBS) + noun + rng.choice(["", "Id", "s", "ById", "Async", "V2"]),
        "file": f"{rng.choice(DIRS)}/{svc}/{rng.choice(VERBS)}_{noun.lower()}.{rng.choice(EXTS)}",
        "file2": f"tests/fixtures/{svc}_{rng.choice(FIELDS)}.json",
        "field": rng.choice(FIELDS),
        "person": rng.choice(PEOPLE),
        "n": str(rng.choice([3, 5, 10, 30, 60, 100, 250, 500, 1000])),
        "day": rng.choice(DAYS),
        "cloud": rng.choice(CLOUDS),
        "version": f"{rng.randrange(1, 17)}.{rng.randrange(0, 12)}",
        "minor": str(rng.randrange(9, 14)),
        "envvar": f"{svc.upper()}_{rng.choice(FIELDS).upper()}",
        "ticket": f"{svc[:3].upper()}-{rng.randrange(100, 9999)}",
        "lib": rng.choice(LIBS),
    }


def _fill(template: str, slots: dict[str, str], rng: random.Random) -> str:
    if "{error}" in template:
        slots = slots | {"error": ERRORS[rng.randrange(len(ERRORS))].format(
            lib=slots["lib"], n=slots["n"], field=slots["field"], svc=slots["svc"])}  # fmt: skip
    return template.format(**slots)


def memories(count: int, seed: int = 7) -> list[dict]:
    """`count` memory dicts for `store.import_memories`, spread over projects (about 6% global)."""
    rng = random.Random(seed)
    now = timezone.now()
    categories = list(TEMPLATES)
    out = []
    for index in range(count):
        category = rng.choice(categories)
        slots = _slots(rng)
        content = _fill(rng.choice(TEMPLATES[category]), slots, rng)
        if rng.random() < 0.3:  # a second clause, as real notes often carry a reason or a detail
            extra = _fill(rng.choice(TEMPLATES[rng.choice(categories)]), _slots(rng), rng)
            content = f"{content}; {extra[0].lower()}{extra[1:]}"
        created = now - timedelta(days=rng.uniform(0, 365))
        accessed = created + timedelta(days=rng.uniform(0, (now - created).days or 1)) if rng.random() < 0.6 else None
        out.append(
            {
                "content": f"{content} (note {index})" if rng.random() < 0.02 else content,
                "project": None if category == "preference" or rng.random() < 0.03 else rng.choice(PROJECTS),
                "category": category,
                "tags": rng.sample(TAGS, rng.randrange(0, 3)),
                "importance": round(rng.uniform(0.3, 1.0), 2),
                "confirmed": rng.random() < 0.1,
                "status": "archived" if rng.random() < 0.05 else "active",
                "created_at": created.isoformat(),
                "updated_at": created.isoformat(),
                "last_accessed_at": accessed.isoformat() if accessed else None,
            }
        )
    return out


def queries(count: int, corpus: list[dict], seed: int = 11) -> list[tuple[str, str | None]]:
    """(query, project) pairs: natural questions, then identifiers and error messages copied from the corpus."""
    rng = random.Random(seed)
    out: list[tuple[str, str | None]] = []
    while len(out) < count:
        kind = rng.random()
        project = rng.choice(PROJECTS)
        if kind < 0.6:
            out.append((_fill(rng.choice(QUERY_TEMPLATES), _slots(rng), rng), project))
            continue
        memory = corpus[rng.randrange(len(corpus))]
        words = memory["content"].split()
        identifiers = [w.strip("`;,.()'") for w in words if any(c in w for c in "_/.") or w[:1].islower() and
                       any(c.isupper() for c in w[1:])]  # fmt: skip
        if kind < 0.8 and identifiers:
            out.append((rng.choice(identifiers), memory["project"]))
        elif ":" in memory["content"]:
            start = memory["content"].index(":")
            head = memory["content"][:start].split()[-1:]
            out.append((" ".join(head) + memory["content"][start : start + 40], memory["project"]))
        else:
            out.append((" ".join(words[: rng.randrange(3, 7)]), memory["project"]))
    return out
