"""Synthetic memory stores with planted duplicate clusters, and how well consolidation finds them.

Used by `python -m bench consolidate` (10k memories) and by a small test. The distinct memories are made to be
hard to tell apart on purpose: one template per kind of fact, shared common values (many services listen on
8080, many keep data in PostgreSQL), several facts about the same service, and the very same fact stored in two
projects (which must never merge). A planted cluster is one fact written 2 to 4 ways: other phrasings, a remark
added, a prefix, different case.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

ADJECTIVES = (
    "amber azure bold brisk calm cedar coral crisp dawn deep dusk eager ember fern fleet frost gentle gold granite "
    "hazel iron ivory jade keen lunar maple mellow misty noble oak onyx opal pale pine quartz quick quiet rapid "
    "rose ruby rustic sage silver slate solar steady stone swift tidal umber velvet vivid willow"
).split()
NOUNS = (
    "anchor arrow atlas beacon birch bridge canyon comet compass crane delta dune echo falcon ferry forge garden "
    "gate harbor hawk heron island kernel lantern ledger lotus meadow mesa nebula orbit otter pilot prism quarry "
    "raven reef relay ridge river rocket saddle signal spark summit tiller tower vault vertex wharf"
).split()
PEOPLE = (
    "Alice Bruno Chen Dana Elif Farid Greta Hiro Ines Jonas Kemal Lena Mateo Nadia Oskar Priya Quentin Rosa Sven "
    "Tariq Uma Viktor Wen Ximena Yusuf Zoe"
).split()
PORTS = ["8080", "8000", "3000", "5000", "9000", "8443", "8081", "4000", "7000", "9090"]
DATABASES = ["PostgreSQL", "Redis", "SQLite", "MySQL", "MongoDB", "DynamoDB", "Elasticsearch", "Cassandra"]
THINGS = ["sessions", "invoices", "audit logs", "user profiles", "job results", "feature flags", "metrics", "uploads"]
TOOLS = [
    ("pnpm", "npm", "package installs"),
    ("ruff", "flake8", "linting"),
    ("uv", "pip", "dependency installs"),
    ("pytest", "unittest", "tests"),
    ("httpx", "requests", "HTTP calls"),
    ("structlog", "print statements", "logging"),
    ("alembic", "hand-written SQL", "schema migrations"),
    ("black", "autopep8", "formatting"),
    ("vitest", "jest", "frontend tests"),
    ("podman", "docker", "local containers"),
]
ENV_VARS = ["DATABASE_URL", "REDIS_URL", "LOG_LEVEL", "API_TOKEN_TTL", "FEATURE_FLAGS", "WORKERS", "TZ", "CACHE_DIR"]
ENV_VALUES = ["1", "0", "debug", "UTC", "4", "/tmp/cache", "strict", "3600"]
LIBS = ["numpy", "django", "pydantic", "sqlalchemy", "celery", "boto3", "grpcio", "protobuf", "react", "webpack"]
VERSIONS = ["1.26", "4.2", "1.10", "2.0", "5.3", "1.34", "1.62", "3.20", "18.2", "5.88"]
REASONS = [
    "the next release breaks the build on ARM",
    "newer versions change the default timezone handling",
    "the upgrade drops support for Python 3.10",
    "a regression in the next minor corrupts cached data",
    "the plugin API changed and our extension has not caught up",
    "the new release doubles memory use in the workers",
]
SYMPTOMS = ["HTTP 502", "HTTP 429", "empty responses", "stale data", "a deadlock", "timeouts", "HTTP 413"]
CAUSES = [
    "the cache is cold after a deploy",
    "two workers write the same row",
    "the upstream rate limit is hit",
    "the request body is larger than 5 MB",
    "the clock on the host drifts",
    "the connection pool is exhausted",
    "a migration is still running",
]
TARGETS = ["Kubernetes", "Fly.io", "a Hetzner VM", "AWS Lambda", "Cloud Run", "Heroku", "a bare-metal box"]
METHODS = ["GitHub Actions", "Argo CD", "a Makefile target", "Ansible", "GitLab CI", "Terraform", "a shell script"]
PROTOCOLS = ["gRPC", "REST", "a Kafka topic", "WebSockets", "GraphQL", "a Redis queue", "AMQP"]
INTERVALS = ["5 minutes", "hour", "night at 02:00", "15 minutes", "Monday morning", "6 hours"]
JOBS = ["cleanup", "backup", "reindex", "report", "sync", "billing", "digest"]
TIMEOUTS = ["5", "10", "15", "30", "45", "60", "90", "120"]
HABITS = [
    "small pull requests",
    "descriptive commit messages",
    "a test for every bug fix",
    "type hints on public functions",
    "no print statements left behind",
    "short functions",
    "comments that explain why",
    "screenshots for interface changes",
    "a changelog entry",
    "squashed commits",
    "a linked issue",
    "benchmarks for performance changes",
]
COMMANDS = ["make test", "pytest -x", "npm test", "cargo test", "go test ./...", "tox -e py311", "just check"]

# Each frame: the slots it needs (besides `svc`) and several ways of saying the same fact.
FRAMES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "port": (
        ("port",),
        (
            "{svc} listens on port {port}.",
            "Port {port} is where {svc} listens.",
            "The {svc} service binds to port {port} locally.",
            "Start {svc} and it serves on port {port}.",
        ),
    ),
    "store": (
        ("thing", "db"),
        (
            "{svc} stores its {thing} in {db}.",
            "The {thing} of {svc} are kept in {db}.",
            "{db} holds the {thing} for {svc}.",
            "{svc} persists {thing} to {db}.",
        ),
    ),
    "tool": (
        ("tool",),
        (
            "In {svc}, use {tool[0]} instead of {tool[1]} for {tool[2]}.",
            "{svc} prefers {tool[0]} over {tool[1]} for {tool[2]}.",
            "For {tool[2]} in {svc}, we use {tool[0]}, not {tool[1]}.",
            "Do not use {tool[1]} for {tool[2]} in {svc}; {tool[0]} is the standard.",
        ),
    ),
    "owner": (
        ("person",),
        (
            "{person} owns {svc} and reviews its pull requests.",
            "{svc} is owned by {person}, who reviews its pull requests.",
            "Ask {person} to review pull requests for {svc}; they own it.",
            "Pull requests on {svc} need a review from its owner {person}.",
        ),
    ),
    "env": (
        ("var", "value"),
        (
            "Set {var}={value} before starting {svc}.",
            "{svc} needs {var} set to {value} to start.",
            "Starting {svc} fails unless {var} is {value}.",
            "Export {var}={value} first, then start {svc}.",
        ),
    ),
    "pin": (
        ("lib", "version", "reason"),
        (
            "In {svc}, {lib} is pinned to {version} because {reason}.",
            "Keep {lib} at {version} in {svc}: {reason}.",
            "Do not upgrade {lib} past {version} in {svc}; {reason}.",
            "{svc} pins {lib} {version} since {reason}.",
        ),
    ),
    "config": (
        (),
        (
            "The configuration for {svc} lives in config/{svc}.toml.",
            "{svc} reads its settings from config/{svc}.toml.",
            "Edit config/{svc}.toml to change how {svc} is configured.",
            "config/{svc}.toml is the config file of {svc}.",
        ),
    ),
    "schedule": (
        ("job", "interval"),
        (
            "The {job} job of {svc} runs every {interval}.",
            "{svc} runs its {job} job every {interval}.",
            "Every {interval}, the {job} job for {svc} kicks off.",
            "{svc}'s {job} job is scheduled every {interval}.",
        ),
    ),
    "gotcha": (
        ("symptom", "cause"),
        (
            "{svc} returns {symptom} when {cause}.",
            "If {svc} gives {symptom}, the cause is that {cause}.",
            "{symptom} from {svc} means {cause}.",
            "Seen before: {svc} returns {symptom} because {cause}.",
        ),
    ),
    "deploy": (
        ("target", "method"),
        (
            "{svc} is deployed to {target} with {method}.",
            "Deploys of {svc} go to {target} through {method}.",
            "We ship {svc} to {target} using {method}.",
            "{method} deploys {svc} to {target}.",
        ),
    ),
    "calls": (
        ("other", "protocol"),
        (
            "{svc} calls {other} over {protocol}.",
            "{other} is reached from {svc} via {protocol}.",
            "{svc} talks to {other} using {protocol}.",
            "Requests from {svc} to {other} go over {protocol}.",
        ),
    ),
    "timeout": (
        ("seconds",),
        (
            "{svc} times out requests after {seconds} seconds.",
            "Requests to {svc} time out after {seconds} s.",
            "The request timeout of {svc} is {seconds} seconds.",
            "After {seconds} seconds {svc} gives up on a request.",
        ),
    ),
    "tests": (
        ("command",),
        (
            "Run `{command}` to test {svc}.",
            "The tests of {svc} run with `{command}`.",
            "To run the test suite of {svc}, use `{command}`.",
            "`{command}` runs the whole test suite for {svc}.",
        ),
    ),
    "staging": (
        (),
        (
            "The staging URL of {svc} is https://{svc}.staging.example.com.",
            "{svc} staging runs at https://{svc}.staging.example.com.",
            "Open https://{svc}.staging.example.com to reach {svc} on staging.",
            "Staging for {svc}: https://{svc}.staging.example.com.",
        ),
    ),
    # No identifier in these: only a person's name (often first in the sentence) and ordinary words tell them apart.
    "habit": (
        ("person", "habit"),
        (
            "{person} likes {habit} in code reviews.",
            "In code reviews, {person} wants {habit}.",
            "{person} asks for {habit} when reviewing.",
            "When {person} reviews code, they expect {habit}.",
        ),
    ),
}
REMARKS = [" (checked again today)", " Confirmed in the last review.", " This matters for deploys.", " Still true."]
PREFIXES = ["Note: ", "Reminder: ", "FYI: ", "Important: "]


@dataclass
class BenchData:
    items: list[dict] = field(default_factory=list)  # memories to import, in order
    planted: list[list[int]] = field(default_factory=list)  # clusters, as indexes into `items`
    cross_project_pairs: int = 0


def _slot_values(rng: random.Random, slots: tuple[str, ...], services: list[str]) -> dict:
    choices = {
        "port": PORTS,
        "thing": THINGS,
        "db": DATABASES,
        "tool": TOOLS,
        "person": PEOPLE,
        "var": ENV_VARS,
        "value": ENV_VALUES,
        "lib": LIBS,
        "version": VERSIONS,
        "reason": REASONS,
        "job": JOBS,
        "interval": INTERVALS,
        "symptom": SYMPTOMS,
        "cause": CAUSES,
        "target": TARGETS,
        "method": METHODS,
        "protocol": PROTOCOLS,
        "seconds": TIMEOUTS,
        "command": COMMANDS,
        "habit": HABITS,
        "other": services,
    }
    return {slot: rng.choice(choices[slot]) for slot in slots}


def _variant(rng: random.Random, text: str, style: int) -> str:
    if style == 1:
        return text.rstrip(".") + "." + rng.choice(REMARKS)
    if style == 2:
        return rng.choice(PREFIXES) + text[0].lower() + text[1:]
    if style == 3:
        return text.lower()
    return text


def generate(
    size: int = 10_000, *, clusters: int | None = None, projects: int = 6, seed: int = 7, cross_project: int = 100
) -> BenchData:
    """`size` memories; `clusters` planted duplicate clusters of 2-4 (default: one memory in nine is in one)."""
    rng = random.Random(seed)
    services = [f"{a}-{n}" for a in ADJECTIVES for n in NOUNS]
    rng.shuffle(services)
    scopes: list[str | None] = [f"project-{i}" for i in range(projects)] + [None]
    clusters = size // 30 if clusters is None else clusters
    # A fact is its frame, scope and subject: the service, or for frames without one, the person and the habit.
    used: set[tuple] = set()
    data = BenchData()
    others = services[:400]

    def subject(frame: str, values: dict) -> str:
        return values["svc"] if "{svc}" in FRAMES[frame][1][0] else f"{values['person']}/{values['habit']}"

    def fresh_fact() -> tuple[str, tuple[str, ...], dict]:
        while True:
            frame = rng.choice(list(FRAMES))
            slots, phrasings = FRAMES[frame]
            svc = rng.choice(services)
            values = _slot_values(rng, slots, [s for s in others if s != svc]) | {"svc": svc}
            values["scope"] = rng.choice(scopes)
            key = (frame, subject(frame, values), values["scope"])
            if key not in used:
                used.add(key)
                return frame, phrasings, values

    def add(text: str, scope: str | None, frame: str) -> int:
        data.items.append(
            {"content": text, "project": scope, "tags": [frame], "importance": round(rng.uniform(0.4, 0.9), 2)}
        )
        return len(data.items) - 1

    for _ in range(clusters):
        frame, phrasings, values = fresh_fact()
        count = rng.choice([2, 2, 2, 3, 3, 4])
        texts = rng.sample(phrasings, count)
        members = [add(_variant(rng, t.format(**values), rng.randrange(4)), values["scope"], frame) for t in texts]
        data.planted.append(members)
    for _ in range(cross_project):
        # The same fact in two projects: each project's copy is right there, and they must never merge.
        frame, phrasings, values = fresh_fact()
        other = rng.choice([s for s in scopes if s != values["scope"]])
        used.add((frame, subject(frame, values), other))
        text = rng.choice(phrasings).format(**values)
        add(text, values["scope"], frame)
        add(text, other, frame)
        data.cross_project_pairs += 1
    while len(data.items) < size:
        frame, phrasings, values = fresh_fact()
        add(rng.choice(phrasings).format(**values), values["scope"], frame)
    # Shuffle so planted duplicates are not neighbours by id.
    order = list(range(len(data.items)))
    rng.shuffle(order)
    position = {old: new for new, old in enumerate(order)}
    data.items = [data.items[old] for old in order]
    data.planted = [sorted(position[i] for i in cluster) for cluster in data.planted]
    return data


@dataclass
class BenchScore:
    planted: int
    proposals: int
    found_exactly: int
    found_partly: int
    false_proposals: int

    @property
    def recall(self) -> float:
        return self.found_exactly / self.planted if self.planted else 1.0

    @property
    def false_rate(self) -> float:
        return self.false_proposals / self.proposals if self.proposals else 0.0


def score(proposed: list[list[int]], planted: list[list[int]]) -> BenchScore:
    """A planted cluster is found when a proposal has exactly its members; a proposal is false when its
    members are not all from one planted cluster (it would merge two different facts)."""
    planted_sets = [frozenset(c) for c in planted]
    owner = {member: n for n, cluster in enumerate(planted_sets) for member in cluster}
    proposed_sets = [frozenset(p) for p in proposed]
    exact = set(proposed_sets) & set(planted_sets)
    false = sum(1 for p in proposed_sets if len({owner.get(m, -1 - m) for m in p}) != 1)
    partly = sum(1 for c in planted_sets if c not in exact and any(len(p) > 1 and p < c for p in proposed_sets))
    return BenchScore(len(planted_sets), len(proposed_sets), len(exact), partly, false)
