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


# --- Coding-agent memories with the questions they answer (`python -m bench recall`, the relevance floor) ---------

AGENT_PROJECT = "acme-web"
# (memory an agent stored, a question a later turn asks that it answers). Questions are phrased as a person asks
# them, mostly not in the memory's words.
AGENT_CASES: list[tuple[str, str]] = [
    ("The API uses cursor pagination", "how do we paginate?"),
    ("Run the test suite with `make test`; it needs Docker for the Postgres fixture", "how do I run the tests"),
    ("Deploys go out with `fly deploy` from the main branch after CI is green", "how do we ship to production"),
    ("The frontend is a Next.js 14 app using the app router", "which framework does the web client use"),
    ("Database migrations are written with Alembic; never edit an applied migration", "how are schema changes made"),
    ("Feature flags live in LaunchDarkly; the SDK key is in the FLAGS_SDK_KEY variable", "where are feature flags"),
    ("Background jobs run on Celery with Redis as the broker", "what runs the background jobs"),
    ("Logging goes through structlog and ships to Datadog", "where do the logs end up"),
    ("Auth uses short-lived JWTs (15 minutes) with refresh tokens in an httpOnly cookie", "how long do tokens last"),
    ("Money is stored as integer cents, never floats", "how do we represent prices"),
    ("All timestamps are stored in UTC and converted in the browser", "what timezone are dates saved in"),
    ("The staging environment resets its database every night at 02:00", "why did my staging data disappear"),
    ("Emails are sent through Postmark; templates are in templates/email", "which service sends emails"),
    ("Images are uploaded to S3 with presigned URLs, never through our servers", "how do file uploads work"),
    ("Use pnpm, not npm or yarn, in the frontend repo", "which package manager for javascript"),
    ("Python code is formatted with ruff format and linted with ruff check in pre-commit", "what formatter do we use"),
    ("The search endpoint is rate limited to 30 requests per minute per user", "how many searches can a user do"),
    ("Errors are reported to Sentry; the DSN comes from SENTRY_DSN", "where do exceptions get tracked"),
    ("The mobile app talks to the API through the /v2 prefix; /v1 is frozen", "which API version does mobile call"),
    ("Secrets are managed with Doppler and injected at runtime", "where do we keep secrets"),
    ("Tenant isolation is enforced with Postgres row level security policies", "how are customers' data separated"),
    ("The cache is Redis with a 10 minute TTL for product pages", "how long are product pages cached"),
    ("Stripe webhooks are verified with the signing secret before processing", "how are payment callbacks checked"),
    ("Translations are managed in Crowdin and pulled weekly", "how do we handle i18n"),
    ("The CI pipeline runs on GitHub Actions and takes about 12 minutes", "how long does CI take"),
    ("Code review needs two approvals for anything touching billing", "how many reviewers for billing changes"),
    ("The design system components live in packages/ui and use Tailwind", "where are the shared UI components"),
    ("Search is powered by Meilisearch, reindexed on every product update", "what search engine do we use"),
    ("Dependency updates come from Renovate every Monday", "who bumps our dependencies"),
    ("Load tests use k6 scripts in perf/; run them against staging only", "how do we load test"),
    ("The monorepo is managed with Turborepo", "what tool runs builds across the monorepo"),
    ("Sessions expire after 30 days of inactivity", "when does a login session end"),
    ("The on-call rotation is in PagerDuty; incidents get a Slack channel", "who gets paged at night"),
    ("Admin pages require the staff role and two-factor authentication", "who can open the admin area"),
    ("Backups of the production database are taken every 6 hours and kept 30 days", "how often is prod backed up"),
    ("We vendor no dependencies; lock files are committed", "do we commit lockfiles"),
]
ALWAYS_ON = [
    ("The user prefers concise answers with code first", None),
    ("The user works on macOS with zsh and VS Code", None),
    ("Always write tests before changing behaviour", None),
    (f"{AGENT_PROJECT} is a Django and Next.js e-commerce site for a furniture shop", AGENT_PROJECT),
    (f"{AGENT_PROJECT} main branch is protected; open a pull request for every change", AGENT_PROJECT),
    (f"{AGENT_PROJECT} production runs on Fly.io in the Amsterdam region", AGENT_PROJECT),
]
# Made-up queries: real English words that no memory is about. Some (quota, cache, session, token) are words the
# corpus uses, as a person's unrelated words sometimes are.
_MADE_UP_WORDS = ("purple elephant trampoline quota banana violin glacier pillow tornado saxophone cathedral "
                  "pancake meadow lighthouse walrus origami tangerine volcano harmonica cactus umbrella jellyfish "
                  "marathon sunflower penguin carousel avalanche lullaby porcupine meringue kayak chandelier "
                  "dinosaur lemonade hammock zeppelin orchestra waffle telescope pumpkin blizzard flamingo "
                  "cache session token balloon castle poetry knitting bakery wizard").split()  # fmt: skip


def made_up_queries(count: int, seed: int = 5) -> list[str]:
    """Queries of two to five real English words about nothing in the corpus ("purple elephant trampoline quota")."""
    rng = random.Random(seed)
    return [" ".join(rng.sample(_MADE_UP_WORDS, rng.randrange(2, 6))) for _ in range(count)]


def agent_store(others: int = 3000, seed: int = 7) -> tuple[list[dict], list[tuple[int, str]]]:
    """A store of coding-agent memories among `others` generated ones: (items for import_memories, (index of the
    answering item, question) pairs). The always-on facts are confirmed and important, so they compete for the
    recall block; about an eighth of the others share the agent's project."""
    items = []
    for content, project in ALWAYS_ON:
        category = "preference" if project is None else "fact"
        items.append({"content": content, "project": project, "category": category, "confirmed": True,
                      "importance": 0.9})  # fmt: skip
    questions = []
    for content, question in AGENT_CASES:
        questions.append((len(items), question))
        items.append({"content": content, "project": AGENT_PROJECT, "category": "fact", "importance": 0.6})
    rng = random.Random(seed)
    for item in memories(others, seed=seed):
        if item["project"] is not None and rng.random() < 0.125:
            item = item | {"project": AGENT_PROJECT}
        items.append(item)
    return items, questions
