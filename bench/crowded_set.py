"""The crowded-store set: a store an agent team would build up over months, then the writes that change it.

Six projects of about fifty facts each, each with a product name that its facts use ("Ledger's staging DB ...")
and that is not always its slug, plus about forty global facts (the person's own machine, accounts, habits and
preferences). Many facts have a true look-alike (staging and production, iOS and Android, EU and US, two owners
of two things; `LOOK_ALIKES`). Then two kinds of later writes:

- `CHANGES` replace exactly one stored fact (`replaces`): some say they changed (`cue`: "now", "moved to",
  "switched from", "no longer", "as of March"), some only give the new value;
- `ADDITIONS` add a new fact and replace nothing, though many use the same words ("also", "now", "started",
  "switched on", "moved") and the same product and environment names as stored facts, and some sit close in
  meaning to a stored fact without any such word.

Each item carries the question a person would ask to find it (for a change: the question the new value answers).
The data was written first; the split into a dev half and a held-out half (three projects each, and half of the
globals) was drawn afterwards with a fixed seed (`half("dev")`, `half("held out")`). `python -m bench updates
--store` measures both.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Fact:
    key: str
    project: str | None
    text: str
    question: str


@dataclass(frozen=True)
class Change:
    key: str
    project: str | None
    text: str
    replaces: str  # the key of the fact it replaces
    cue: bool  # whether the text says that something changed
    question: str  # answered by the new value


@dataclass(frozen=True)
class Addition:
    key: str
    project: str | None
    text: str
    question: str


@dataclass(frozen=True)
class CrowdedHalf:
    name: str
    projects: tuple[str, ...]
    facts: tuple[Fact, ...]
    changes: tuple[Change, ...]
    additions: tuple[Addition, ...]


GLOBAL = "me"  # the key prefix of the globals (project None)

# project slug -> the product name its facts use
PRODUCTS = {
    "ledger": "Ledger",
    "gateway": "Tollgate",
    "mobile": "FieldKit",
    "atlas": "Atlas Search",
    "pipes": "Riverbed",
    "web": "Storefront",
}


def scope_of(prefix: str) -> str | None:
    return None if prefix == GLOBAL else prefix


def facts_in(prefix: str, rows: list[tuple[str, str, str]]) -> list[Fact]:
    return [Fact(f"{prefix}.{name}", scope_of(prefix), text, question) for name, text, question in rows]


def changes_in(prefix: str, rows: list[tuple[str, str, bool, str, str]]) -> list[Change]:
    return [
        Change(f"{prefix}.{name}", scope_of(prefix), text, f"{prefix}.{replaces}", cue, question)
        for name, replaces, cue, text, question in rows
    ]


def additions_in(prefix: str, rows: list[tuple[str, str, str]]) -> list[Addition]:
    return [Addition(f"{prefix}.{name}", scope_of(prefix), text, question) for name, text, question in rows]


# ---------------------------------------------------------------------------------------------------------------
# Ledger: the invoicing and billing API (Django).

_LEDGER = facts_in("ledger", [
    ("stack", "The Ledger API is a Django 4.2 project on Python 3.11.",
     "What framework and Python version does the Ledger API use?"),
    ("db-prod", "Ledger's production database is PostgreSQL 15 on RDS, cluster ledger-prod-db in eu-west-1.",
     "Where does Ledger's production database run?"),
    ("db-staging", "Ledger's staging DB is a single db.t3.medium Postgres 15 instance called ledger-staging-db.",
     "What is Ledger's staging database instance?"),
    ("port", "The Ledger API listens on port 8080 inside its container.",
     "Which port does the Ledger API listen on?"),
    ("admin-port", "Ledger's admin dashboard is served separately, on port 8081.",
     "Which port does the Ledger admin dashboard use?"),
    ("local-dev", "For local development Ledger runs with `docker compose up` and the API answers on localhost:8000.",
     "How do I run Ledger locally and where does the API answer?"),
    ("jobs", "Background jobs in Ledger run on Celery 5.3 with Redis as the broker.",
     "What runs Ledger's background jobs?"),
    ("redis-prod", "Production Redis for ledger is ElastiCache, endpoint ledger-cache.prod.internal:6379.",
     "What is the production Redis endpoint for Ledger?"),
    ("redis-staging", "On staging, Ledger uses a Redis container at ledger-cache.staging.internal:6379.",
     "What is Ledger's staging Redis endpoint?"),
    ("ci", "Ledger's CI runs on GitHub Actions; the main workflow is .github/workflows/ci.yml.",
     "Where does Ledger's CI run?"),
    ("ci-runner", "The Ledger test suite runs on the self-hosted runner group 'linux-large'.",
     "Which runner group runs the Ledger test suite?"),
    ("tests", "Run the Ledger tests with `make test`, which wraps pytest with --reuse-db.",
     "How do I run the Ledger tests?"),
    ("coverage", "Ledger's CI fails when line coverage drops below 85%.",
     "What coverage threshold does Ledger's CI enforce?"),
    ("owner-invoicing", "Priya Raman owns the Ledger invoicing module.",
     "Who owns Ledger's invoicing module?"),
    ("owner-reconciliation", "Tomasz Nowak owns the payments reconciliation code in Ledger.",
     "Who owns Ledger's payment reconciliation?"),
    ("deploy", "Ledger deploys to ECS Fargate through the deploy-ledger workflow, triggered by pushing a vX.Y.Z tag.",
     "How is Ledger deployed?"),
    ("region-eu", "EU customers of Ledger are served from eu-west-1 (Ireland).",
     "Which AWS region serves Ledger's EU customers?"),
    ("region-us", "Ledger serves its US customers from us-east-1.",
     "Which AWS region serves Ledger's US customers?"),
    ("money", "Ledger stores money as integer minor units (cents), never as floats.",
     "How does Ledger store money amounts?"),
    ("fx", "Exchange rates in Ledger are Decimals with 6 places, pulled daily from the ECB feed at 16:00 CET.",
     "Where does Ledger get its exchange rates from?"),
    ("migrations", "Ledger migrations must stay backwards compatible for one release, because ECS replaces tasks "
     "gradually and old code keeps running against the new schema for a while.",
     "What rule applies to Ledger database migrations?"),
    ("lint", "Ledger uses ruff for linting and black for formatting, line length 100.",
     "What linter and formatter does Ledger use?"),
    ("mypy", "mypy runs in strict mode on ledger/billing but not on the legacy ledger/reports package.",
     "Where does mypy run in strict mode in Ledger?"),
    ("pdf", "Invoice PDFs in Ledger are rendered with WeasyPrint 60.",
     "What renders Ledger's invoice PDFs?"),
    ("bucket-prod", "Generated invoices are stored in the S3 bucket ledger-invoices-prod.",
     "Which S3 bucket holds Ledger's production invoices?"),
    ("bucket-staging", "Staging invoices go to the ledger-invoices-staging bucket, which is wiped every Sunday.",
     "Where do Ledger's staging invoices go?"),
    ("auth", "The Ledger API authenticates clients with OAuth2 client credentials issued by Keycloak at "
     "auth.acme-internal.net.",
     "How do clients authenticate to the Ledger API?"),
    ("rate-limit", "Ledger's public API allows 600 requests per minute per client.",
     "What is the Ledger API rate limit?"),
    ("sentry", "Ledger errors go to the Sentry project 'ledger-backend'.",
     "Which Sentry project gets Ledger's errors?"),
    ("logs", "Ledger logs ship to Datadog with the service tag ledger-api.",
     "Where do Ledger's logs go?"),
    ("oncall", "Ledger on-call rotates weekly on Mondays at 10:00 Europe/Warsaw, managed in PagerDuty.",
     "When does the Ledger on-call rotation hand over?"),
    ("gotcha-tz", "Gotcha: Ledger computes billing periods in the customer's timezone, so tests must freeze time "
     "with an explicit tz or they fail around midnight.",
     "Why do Ledger billing tests need an explicit timezone?"),
    ("gotcha-celery", "Celery tasks in Ledger must be idempotent: the broker can deliver a task twice after a worker "
     "restart.",
     "Why must Ledger's Celery tasks be idempotent?"),
    ("api-versions", "The Ledger API is versioned in the URL path (/v1/, /v2/); v1 is deprecated but the mobile app "
     "still calls it.",
     "Which Ledger API versions are served?"),
    ("flags", "Ledger feature flags live in LaunchDarkly under the project key 'ledger'.",
     "Where are Ledger's feature flags managed?"),
    ("docs", "Ledger's API reference is generated with drf-spectacular and published to "
     "docs.acme-internal.net/ledger.",
     "Where is the Ledger API reference published?"),
    ("branching", "Ledger uses trunk-based development; feature branches should live less than two days.",
     "What branching model does Ledger use?"),
    ("review", "Ledger PRs need one approval from the billing team before merge.",
     "How many approvals does a Ledger PR need?"),
    ("deps", "Ledger pins dependencies with pip-tools: requirements.in is the source, requirements.txt is compiled.",
     "How are Ledger's Python dependencies pinned?"),
    ("image", "Ledger's Docker image is based on python:3.11-slim-bookworm.",
     "What base image does Ledger's Docker image use?"),
    ("tax", "Tax rates for Ledger come from the Avalara API, the sandbox account on staging and the production "
     "account in prod.",
     "Where does Ledger get tax rates?"),
    ("webhooks", "Ledger sends invoice.paid webhooks signed with HMAC-SHA256; failed deliveries are retried with "
     "backoff for up to 24 hours.",
     "How does Ledger sign and retry its webhooks?"),
    ("dunning", "The nightly dunning job in Ledger runs at 02:30 UTC.",
     "When does Ledger's dunning job run?"),
    ("invoice-run", "Ledger's monthly invoice run starts at 00:15 UTC on the 1st.",
     "When does Ledger's monthly invoice run start?"),
    ("numbering", "We chose Postgres row locks over advisory locks for Ledger's invoice numbering, because invoice "
     "numbers must have no gaps.",
     "How does Ledger keep invoice numbers gapless?"),
    ("services", "In Ledger code, anything that writes goes in a service function in billing/services.py, not in a "
     "model method.",
     "Where should write logic go in Ledger's code?"),
    ("pagination", "Ledger list endpoints use cursor pagination with a default page size of 50.",
     "How do Ledger list endpoints paginate?"),
    ("stripe", "Ledger charges cards through Stripe, on the 'Acme Billing' account, not the marketing one.",
     "Which Stripe account does Ledger charge cards through?"),
    ("email", "Invoice emails from Ledger go out via Postmark from billing@acme.example.",
     "How does Ledger send invoice emails?"),
    ("admin-ui", "The Ledger admin frontend is a small Vue 3 app built with Vite, in ledger/admin-ui.",
     "What is Ledger's admin frontend built with?"),
])  # fmt: skip

_LEDGER_CHANGES = changes_in("ledger", [
    ("port-8443", "port", False, "The Ledger API listens on port 8443 inside its container.",
     "Which port does the Ledger API listen on?"),
    ("django-5", "stack", True, "Ledger was upgraded to Django 5.0; it still runs on Python 3.11.",
     "What framework and Python version does the Ledger API use?"),
    ("ci-xl", "ci-runner", True, "Ledger's test suite moved off linux-large to the new 'ci-xl' runner group.",
     "Which runner group runs the Ledger test suite?"),
    ("coverage-90", "coverage", False, "Ledger CI enforces a minimum of 90% line coverage.",
     "What coverage threshold does Ledger's CI enforce?"),
    ("owner-marcus", "owner-invoicing", True, "Priya handed the Ledger invoicing module over to Marcus Feld, who "
     "owns it now.",
     "Who owns Ledger's invoicing module?"),
    ("redis-staging-6380", "redis-staging", False, "Ledger's staging Redis is at ledger-cache.staging.internal:6380.",
     "What is Ledger's staging Redis endpoint?"),
    ("gotenberg", "pdf", True, "We replaced WeasyPrint with Gotenberg for rendering Ledger's invoice PDFs.",
     "What renders Ledger's invoice PDFs?"),
    ("ruff-format", "lint", True, "Ledger switched from black to ruff format; ruff still lints, line length stays 100.",
     "What linter and formatter does Ledger use?"),
    ("oncall-tuesday", "oncall", False, "The Ledger on-call rotation hands over every Tuesday at 09:00 "
     "Europe/Warsaw in PagerDuty.",
     "When does the Ledger on-call rotation hand over?"),
    ("rate-1200", "rate-limit", False, "Each client may make 1200 requests per minute against the Ledger public API.",
     "What is the Ledger API rate limit?"),
    ("ses", "email", True, "As of March, Ledger sends invoice emails through Amazon SES instead of Postmark, still "
     "from billing@acme.example.",
     "How does Ledger send invoice emails?"),
    ("dunning-0345", "dunning", False, "Ledger's dunning job runs nightly at 03:45 UTC.",
     "When does Ledger's dunning job run?"),
    ("chainguard", "image", True, "The Ledger image is now built on Chainguard's python image instead of "
     "python:3.11-slim-bookworm.",
     "What base image does Ledger's Docker image use?"),
    ("v1-off", "api-versions", True, "Ledger's v1 API has been switched off; only /v2/ is served.",
     "Which Ledger API versions are served?"),
])  # fmt: skip

_LEDGER_ADDITIONS = additions_in("ledger", [
    ("csv-export", "Ledger now also exports invoices as CSV from the admin dashboard.",
     "Can Ledger export invoices as CSV?"),
    ("refund-audit", "Since the SOC 2 audit, Ledger also writes an audit log entry for every refund.",
     "Does Ledger audit refunds?"),
    ("contract-tests", "We started running contract tests against the Stripe sandbox in Ledger's nightly CI.",
     "Does Ledger's CI test against the Stripe sandbox?"),
    ("dependabot", "The team switched on Dependabot for the Ledger admin UI's npm packages.",
     "What keeps the Ledger admin UI's npm packages up to date?"),
    ("replica", "Ledger's staging environment now also has a read replica for the reporting queries.",
     "Does Ledger staging have a read replica?"),
    ("credit-notes", "Credit notes in Ledger are numbered in their own gapless series, CN-YYYY-NNNN.",
     "How are Ledger credit notes numbered?"),
    ("refund-approval", "Refunds over 10,000 EUR in Ledger need a second approver from finance.",
     "Which Ledger refunds need a second approver?"),
    ("tax-fixture", "Ledger's unit tests no longer call the Avalara sandbox; they use a recorded fixture of tax "
     "responses instead.",
     "Do Ledger's unit tests call Avalara?"),
    ("stripe-reviewer", "Tomasz also became the reviewer of record for anything touching Ledger's Stripe webhooks.",
     "Who reviews changes to Ledger's Stripe webhooks?"),
    ("worker-autoscaling", "Ledger's Celery workers were given their own autoscaling policy, which scales on queue "
     "depth.",
     "How do Ledger's Celery workers autoscale?"),
    ("dark-mode", "The Ledger admin dashboard got a dark mode in release v3.14.",
     "Does the Ledger admin dashboard have a dark mode?"),
    ("spectral", "Ledger moved OpenAPI linting into pre-commit, using spectral.",
     "How is Ledger's OpenAPI schema linted?"),
])  # fmt: skip

# ---------------------------------------------------------------------------------------------------------------
# Tollgate: the API gateway (Go); its slug is "gateway".

_GATEWAY = facts_in("gateway", [
    ("lang", "Tollgate is written in Go 1.22 and built with a plain Makefile.",
     "Which Go version is Tollgate written in?"),
    ("router", "Tollgate's HTTP routing uses chi v5.",
     "What does Tollgate use for HTTP routing?"),
    ("port", "Tollgate listens on 8000 in the pod; the NLB takes public traffic on 443.",
     "Which port does Tollgate listen on in the pod?"),
    ("admin-port", "Tollgate's admin API listens on port 9000 and is only reachable over the VPN.",
     "Which port does Tollgate's admin API use?"),
    ("limitd-port", "limitd, Tollgate's rate-limit sidecar service, also listens on 9000, in its own pod.",
     "Which port does Tollgate's limitd service listen on?"),
    ("metrics", "Tollgate exposes Prometheus metrics on :9090/metrics.",
     "Where does Tollgate expose its metrics?"),
    ("cluster-prod", "Tollgate runs on the EKS cluster edge-prod-1, in the 'tollgate' namespace.",
     "Which cluster and namespace does production Tollgate run in?"),
    ("cluster-staging", "Staging Tollgate runs on edge-staging in the 'tollgate-stg' namespace.",
     "Which cluster and namespace does staging Tollgate run in?"),
    ("replicas-prod", "Production Tollgate runs 6 replicas with an HPA ceiling of 20.",
     "How many replicas does production Tollgate run?"),
    ("replicas-staging", "Staging Tollgate runs 2 replicas and has no autoscaler.",
     "How many replicas does staging Tollgate run?"),
    ("counters", "Tollgate keeps rate-limit counters in a 3-shard Redis Cluster, using a sliding window.",
     "Where does Tollgate keep its rate-limit counters?"),
    ("default-limit", "The default rate limit in Tollgate is 100 requests per second per API key, burst 200.",
     "What is Tollgate's default rate limit?"),
    ("gold-limit", "Partners on the 'gold' plan get 1000 requests per second in Tollgate.",
     "What rate limit do gold partners get in Tollgate?"),
    ("routes", "Tollgate routes are declared in routes.yaml and hot-reloaded on SIGHUP.",
     "Where are Tollgate's routes declared?"),
    ("certs", "TLS certificates for Tollgate come from cert-manager with Let's Encrypt, DNS-01 through Route 53.",
     "Where do Tollgate's TLS certificates come from?"),
    ("tls-min", "Tollgate refuses anything below TLS 1.2.",
     "Which TLS versions does Tollgate accept?"),
    ("logging", "Tollgate logs JSON with zerolog; the request id header is X-Request-Id.",
     "What does Tollgate log with?"),
    ("log-redaction", "Tollgate strips the Authorization header from its access logs.",
     "What does Tollgate strip from its access logs?"),
    ("tracing", "Tollgate sends OpenTelemetry traces to the collector at otel-collector.observability:4317.",
     "Where does Tollgate send its traces?"),
    ("ci", "Tollgate CI is on Buildkite, pipeline 'tollgate-main'.",
     "Where does Tollgate's CI run?"),
    ("lint", "golangci-lint runs in Tollgate CI with the config in .golangci.yml, errcheck and gosec enabled.",
     "How is Tollgate linted?"),
    ("integration-tests", "Tollgate's integration tests need Docker, because they start Redis with "
     "testcontainers-go.",
     "What do Tollgate's integration tests need?"),
    ("lead", "Amara Okafor is the tech lead for Tollgate.",
     "Who is Tollgate's tech lead?"),
    ("owner-limiter", "Jonas Berg maintains Tollgate's rate limiter.",
     "Who maintains Tollgate's rate limiter?"),
    ("releases", "Tollgate releases are cut from main every Wednesday and promoted to production on Thursday after "
     "a day in staging.",
     "How often is Tollgate released to production?"),
    ("registry", "Tollgate images go to the ECR repository edge/tollgate, tagged with the git SHA.",
     "Where are Tollgate's container images pushed?"),
    ("helm", "Tollgate is deployed with the Helm chart in deploy/helm/tollgate, through Argo CD.",
     "How is Tollgate deployed?"),
    ("argo-prod", "The Argo CD app for production Tollgate is tollgate-prod, and it auto-syncs.",
     "Does the production Tollgate Argo CD app auto-sync?"),
    ("argo-staging", "tollgate-staging, the staging Argo CD app, is synced by hand.",
     "How is the staging Tollgate Argo CD app synced?"),
    ("timeout", "Tollgate's default upstream timeout is 30 seconds.",
     "What is Tollgate's default upstream timeout?"),
    ("timeout-ledger", "Requests routed to the Ledger API get a 60-second timeout in Tollgate, because invoice "
     "generation is slow.",
     "What timeout does Tollgate give requests to Ledger?"),
    ("cors", "Tollgate handles CORS itself; upstream services must not add CORS headers.",
     "Who handles CORS for services behind Tollgate?"),
    ("jwt", "Tollgate validates JWTs against Keycloak's JWKS and caches the keys for 10 minutes.",
     "How does Tollgate validate JWTs?"),
    ("waf", "AWS WAF in front of Tollgate blocks requests with more than 8 KB of headers.",
     "What header size does the WAF in front of Tollgate allow?"),
    ("gotcha-sighup", "Gotcha: a SIGHUP reload in Tollgate does not pick up new TLS certificates; those need a "
     "rolling restart.",
     "Does a SIGHUP reload pick up TLS changes in Tollgate?"),
    ("fail-open", "If Redis Cluster is unreachable, Tollgate fails open, lets traffic through and logs "
     "ratelimit_degraded.",
     "What does Tollgate do when Redis is unreachable?"),
    ("dashboard", "Tollgate's Grafana dashboard is 'Edge / Tollgate overview'.",
     "Which Grafana dashboard shows Tollgate?"),
    ("slo", "Tollgate's SLO is 99.95% availability over 30 days, with under 50 ms of added p99 latency.",
     "What is Tollgate's SLO?"),
    ("errors", "In Tollgate, wrap errors with fmt.Errorf and %w; pkg/errors is not used.",
     "How are errors wrapped in Tollgate?"),
    ("bench", "Tollgate benchmarks run with `make bench`, and results are compared with benchstat.",
     "How are Tollgate benchmarks run and compared?"),
    ("region-eu", "Tollgate's EU edge is in eu-central-1 (Frankfurt).",
     "Which region hosts Tollgate's EU edge?"),
    ("region-us", "Tollgate's US edge runs in us-west-2 (Oregon).",
     "Which region hosts Tollgate's US edge?"),
    ("dns", "api.acme.example resolves to Tollgate through Route 53 latency-based records.",
     "How does api.acme.example reach Tollgate?"),
    ("maintenance", "Tollgate's maintenance window is Sundays 04:00-06:00 UTC.",
     "When is Tollgate's maintenance window?"),
    ("grpc", "Tollgate talks gRPC to the auth service; the protos are in the shared acme/protos repo.",
     "How does Tollgate talk to the auth service?"),
    ("no-envoy", "We decided against Envoy for Tollgate: the team knows Go and needs custom rate-limit logic.",
     "Why doesn't Tollgate use Envoy?"),
    ("client-header", "Tollgate adds X-Acme-Client-Id to every upstream request.",
     "Which header does Tollgate add to upstream requests?"),
    ("changelog", "Tollgate's changelog is CHANGELOG.md, in Keep a Changelog format.",
     "Where is Tollgate's changelog kept?"),
    ("goproxy", "Tollgate vendors nothing; Go modules come through the Athens proxy at goproxy.acme-internal.net.",
     "Where do Tollgate's Go modules come from?"),
    ("health", "Tollgate's liveness check is GET /healthz on the pod port; readiness is /readyz.",
     "What are Tollgate's health check endpoints?"),
])  # fmt: skip

_GATEWAY_CHANGES = changes_in("gateway", [
    ("go-123", "lang", False, "Tollgate is written in Go 1.23 and built with a plain Makefile.",
     "Which Go version is Tollgate written in?"),
    ("servemux", "router", True, "Tollgate switched from chi to the standard library's http.ServeMux now that it "
     "has method patterns.",
     "What does Tollgate use for HTTP routing?"),
    ("replicas-8", "replicas-prod", False, "Production Tollgate runs 8 replicas, and the HPA can go up to 20.",
     "How many replicas does production Tollgate run?"),
    ("limit-150", "default-limit", True, "The default Tollgate rate limit was raised to 150 requests per second per "
     "API key, burst 300.",
     "What is Tollgate's default rate limit?"),
    ("owner-lea", "owner-limiter", True, "Jonas Berg moved to the data team; Lea Fischer maintains Tollgate's rate "
     "limiter now.",
     "Who maintains Tollgate's rate limiter?"),
    ("ci-actions", "ci", True, "Tollgate CI moved from Buildkite to GitHub Actions.",
     "Where does Tollgate's CI run?"),
    ("timeout-15", "timeout", False, "Tollgate gives upstreams 15 seconds by default before timing out.",
     "What is Tollgate's default upstream timeout?"),
    ("argo-staging-auto", "argo-staging", False, "The tollgate-staging Argo CD app auto-syncs from main.",
     "How is the staging Tollgate Argo CD app synced?"),
    ("releases-daily", "releases", True, "Tollgate releases are no longer weekly: every merge to main goes to "
     "staging, and production is promoted daily at 11:00.",
     "How often is Tollgate released to production?"),
    ("tracing-http", "tracing", False, "Tollgate exports its OpenTelemetry traces over HTTP to "
     "otel-gateway.observability:4318.",
     "Where does Tollgate send its traces?"),
    ("maintenance-tuesday", "maintenance", True, "The Tollgate maintenance window has moved to Tuesdays "
     "03:00-05:00 UTC.",
     "When is Tollgate's maintenance window?"),
    ("tls13", "tls-min", False, "Tollgate only accepts TLS 1.3.",
     "Which TLS versions does Tollgate accept?"),
    ("slog", "logging", True, "Tollgate replaced zerolog with log/slog; the request id header is still X-Request-Id.",
     "What does Tollgate log with?"),
])  # fmt: skip

_GATEWAY_ADDITIONS = additions_in("gateway", [
    ("redact-email", "Since the PCI review, Tollgate also redacts email addresses from its access logs.",
     "Does Tollgate redact email addresses from its logs?"),
    ("api-key-header", "Tollgate now also accepts API keys in the X-Api-Key header, next to bearer JWTs.",
     "Which header can carry an API key to Tollgate?"),
    ("k6", "We started load-testing Tollgate with k6 before each production promotion.",
     "How is Tollgate load-tested?"),
    ("renovate", "The team switched on Renovate for Tollgate's Go modules.",
     "What updates Tollgate's Go dependencies?"),
    ("chaos", "Tollgate's staging cluster now also runs a chaos-mesh experiment every Friday afternoon.",
     "Does Tollgate run chaos experiments?"),
    ("partner-v2", "Tollgate gained a /v2 routing table for the partner API.",
     "Does Tollgate have a routing table for the partner API v2?"),
    ("timeout-search", "Requests to the search service get a 10-second timeout in Tollgate.",
     "What timeout does Tollgate give requests to the search service?"),
    ("silver-limit", "Partners on the 'silver' plan get 300 requests per second in Tollgate.",
     "What rate limit do silver partners get in Tollgate?"),
    ("hsts", "Tollgate now sets Strict-Transport-Security with a one-year max-age.",
     "Does Tollgate send an HSTS header?"),
    ("helm-approver", "Lea Fischer is the second approver for changes to Tollgate's production Helm values.",
     "Who approves changes to Tollgate's production Helm values?"),
    ("status-page", "Tollgate was added to the company status page as 'API gateway'.",
     "Is Tollgate on the status page?"),
])  # fmt: skip

# ---------------------------------------------------------------------------------------------------------------
# FieldKit: the field technicians' mobile app (React Native); its slug is "mobile".

_MOBILE = facts_in("mobile", [
    ("stack", "FieldKit is a React Native 0.73 app in TypeScript, shipped on iOS and Android.",
     "Which React Native version is FieldKit on?"),
    ("ios-min", "FieldKit supports iOS 15 and later.",
     "What is the minimum iOS version for FieldKit?"),
    ("android-sdk", "FieldKit's Android build targets API 34 with minSdk 26.",
     "Which Android API level does FieldKit target?"),
    ("ios-bundle", "The iOS bundle id for FieldKit is com.acme.fieldkit.",
     "What is FieldKit's iOS bundle id?"),
    ("android-package", "FieldKit's Android package name is com.acme.fieldkit.android.",
     "What is FieldKit's Android package name?"),
    ("state", "FieldKit uses Redux Toolkit, with RTK Query for server state.",
     "What does FieldKit use for state management?"),
    ("offline", "FieldKit stores work orders offline in WatermelonDB and syncs them when the device is back "
     "online.",
     "How does FieldKit store work orders offline?"),
    ("sync-interval", "FieldKit's background sync runs every 15 minutes while the app is in the background.",
     "How often does FieldKit sync in the background?"),
    ("api-prod", "FieldKit talks to the field-ops API at https://fieldops.acme.example/api/v2.",
     "Which API does the production FieldKit app call?"),
    ("api-staging", "Staging builds of FieldKit point at https://fieldops.staging.acme.example/api/v2.",
     "Which API do FieldKit staging builds call?"),
    ("ci-ios", "FieldKit iOS builds run on Bitrise with the 'ios-release' workflow.",
     "Where do FieldKit's iOS builds run?"),
    ("ci-android", "Android builds of FieldKit run on GitHub Actions with the Gradle cache enabled.",
     "Where do FieldKit's Android builds run?"),
    ("signing", "iOS code signing for FieldKit is handled by fastlane match, backed by the acme/ios-signing repo.",
     "How is FieldKit's iOS code signing managed?"),
    ("release-ios", "FieldKit goes to TestFlight on every merge to a release/* branch.",
     "When does FieldKit go to TestFlight?"),
    ("release-android", "Android releases of FieldKit are uploaded to the Play Console internal track by fastlane "
     "supply.",
     "How are FieldKit Android releases uploaded?"),
    ("owner-ios", "Kenji Watanabe owns the iOS side of FieldKit.",
     "Who owns FieldKit on iOS?"),
    ("owner-android", "Sofia Marquez owns FieldKit's Android build and its Play Store listing.",
     "Who owns FieldKit's Android build?"),
    ("crashes", "FieldKit crashes are reported to Firebase Crashlytics.",
     "Where are FieldKit crashes reported?"),
    ("analytics", "FieldKit analytics go to Amplitude, project 'FieldKit Prod'.",
     "Where do FieldKit analytics go?"),
    ("push", "Push notifications in FieldKit use Firebase Cloud Messaging on Android and APNs directly on iOS.",
     "How does FieldKit send push notifications?"),
    ("maps", "FieldKit shows job sites on Mapbox maps with the 'acme-field-v3' style.",
     "Which map style does FieldKit use?"),
    ("toolchain", "Building FieldKit needs Node 20 and Yarn 4 (Berry).",
     "Which Node and Yarn versions does FieldKit need?"),
    ("tests", "FieldKit's unit tests are Jest; the end-to-end tests use Detox on an iPhone 15 simulator.",
     "Which device runs FieldKit's iOS end-to-end tests?"),
    ("e2e-android", "Detox runs FieldKit's Android end-to-end tests on a Pixel 7 API 34 emulator.",
     "Which device runs FieldKit's Android end-to-end tests?"),
    ("hermes", "Hermes is enabled on both platforms in FieldKit.",
     "Does FieldKit use Hermes?"),
    ("navigation", "FieldKit uses React Navigation 6 with a bottom tab navigator.",
     "What does FieldKit use for navigation?"),
    ("i18n", "FieldKit ships in English, Spanish and Portuguese; the strings live in src/i18n/*.json and are "
     "managed in Lokalise.",
     "Where are FieldKit's translations managed?"),
    ("hotfixes", "JS-only hotfixes for FieldKit go out with CodePush on the 'Production' deployment.",
     "How are FieldKit JS hotfixes shipped?"),
    ("gotcha-pods", "After changing native dependencies in FieldKit, run `bundle exec pod install` in ios/, not a "
     "plain pod install.",
     "How should I install pods in FieldKit?"),
    ("gotcha-gradle", "FieldKit's Android build sometimes needs `./gradlew clean` after switching branches, because "
     "of stale codegen.",
     "What to do when FieldKit's Android build fails after switching branches?"),
    ("version", "FieldKit's current store version is 4.8.2.",
     "What is FieldKit's current store version?"),
    ("camera", "Photos in FieldKit are taken with react-native-vision-camera and compressed to 1600 px on the long "
     "edge.",
     "How large are FieldKit photos after compression?"),
    ("uploads", "FieldKit uploads photos straight to S3 with presigned URLs from the field-ops API.",
     "How does FieldKit upload photos?"),
    ("sign-in", "FieldKit signs users in with Azure AD B2C.",
     "How do users sign in to FieldKit?"),
    ("figma", "FieldKit's designs are in the Figma file 'FieldKit UI 2024'.",
     "Where are FieldKit's designs?"),
    ("a11y", "FieldKit screens must have 44 pt touch targets and support Dynamic Type.",
     "What accessibility rules apply to FieldKit screens?"),
    ("remote-config", "FieldKit reads its feature flags from Firebase Remote Config, fetched at launch.",
     "Where does FieldKit get its feature flags?"),
    ("force-update", "FieldKit forces an update when the API answers 426 for app versions below the minimum.",
     "How does FieldKit force users to update?"),
    ("watermelon", "We picked WatermelonDB over Realm for FieldKit because of its lazy loading and sync primitives.",
     "Why does FieldKit use WatermelonDB?"),
    ("components", "FieldKit components are function components with hooks; don't add class components.",
     "Should FieldKit components be classes or functions?"),
    ("lint", "FieldKit uses ESLint with the @react-native config plus Prettier, with 2-space indentation.",
     "How is FieldKit linted and formatted?"),
    ("repo", "FieldKit lives in the acme/fieldkit repo, a Yarn workspace with apps/mobile and packages/ui.",
     "How is the FieldKit repository laid out?"),
    ("storybook", "FieldKit's UI components have Storybook stories in packages/ui.",
     "Where are FieldKit's Storybook stories?"),
    ("beta", "About 40 field technicians in the Lisbon office are FieldKit beta testers.",
     "Who beta-tests FieldKit?"),
    ("support", "FieldKit support tickets come in through Zendesk with the tag 'fieldkit'.",
     "How do FieldKit support tickets arrive?"),
    ("review-times", "App Store review for FieldKit usually takes one to two days; Play review takes a few hours.",
     "How long does app store review take for FieldKit?"),
    ("location", "Location tracking in FieldKit only runs while a job is open, to save battery.",
     "When does FieldKit track location?"),
    ("deep-links", "FieldKit handles deep links of the form fieldkit://job/<id>.",
     "What deep link scheme does FieldKit handle?"),
    ("universal-links", "Universal links for FieldKit use https://go.acme.example/job/<id>.",
     "What do FieldKit's universal links look like?"),
    ("kotlin", "FieldKit's native Android modules are written in Kotlin 1.9.",
     "Which Kotlin version are FieldKit's native modules written in?"),
])  # fmt: skip

_MOBILE_CHANGES = changes_in("mobile", [
    ("rn-074", "stack", True, "FieldKit was upgraded to React Native 0.74.",
     "Which React Native version is FieldKit on?"),
    ("ios-16", "ios-min", False, "FieldKit supports iOS 16 and later.",
     "What is the minimum iOS version for FieldKit?"),
    ("api-35", "android-sdk", False, "FieldKit's Android build targets API 35, minSdk 26.",
     "Which Android API level does FieldKit target?"),
    ("xcode-cloud", "ci-ios", True, "FieldKit's iOS builds moved from Bitrise to Xcode Cloud.",
     "Where do FieldKit's iOS builds run?"),
    ("owner-daniel", "owner-android", True, "Sofia handed FieldKit's Android build to Daniel Kim, who also runs the "
     "Play Store listing now.",
     "Who owns FieldKit's Android build?"),
    ("posthog", "analytics", True, "FieldKit switched from Amplitude to PostHog for analytics.",
     "Where do FieldKit analytics go?"),
    ("node-22", "toolchain", False, "FieldKit needs Node 22 and Yarn 4 to build.",
     "Which Node and Yarn versions does FieldKit need?"),
    ("sync-30", "sync-interval", False, "In the background, FieldKit syncs every 30 minutes.",
     "How often does FieldKit sync in the background?"),
    ("expo-updates", "hotfixes", True, "CodePush is no longer used for FieldKit hotfixes: App Center was retired, "
     "so JS-only fixes go out with Expo Updates.",
     "How are FieldKit JS hotfixes shipped?"),
    ("version-490", "version", False, "FieldKit's current store version is 4.9.0.",
     "What is FieldKit's current store version?"),
    ("maps-v4", "maps", False, "Job sites in FieldKit are shown on Mapbox with the 'acme-field-v4' style.",
     "Which map style does FieldKit use?"),
    ("crowdin", "i18n", True, "FieldKit's translations were moved from Lokalise to Crowdin; the strings are still in "
     "src/i18n/*.json.",
     "Where are FieldKit's translations managed?"),
    ("photos-2048", "camera", False, "FieldKit compresses photos to 2048 px on the long edge.",
     "How large are FieldKit photos after compression?"),
])  # fmt: skip

_MOBILE_ADDITIONS = additions_in("mobile", [
    ("dependabot", "The team switched on Dependabot for the FieldKit mobile app.",
     "What keeps FieldKit's dependencies up to date?"),
    ("voice-notes", "Since 4.8, FieldKit also lets technicians attach voice notes to a job.",
     "Can FieldKit attach voice notes to a job?"),
    ("maestro", "We started running Maestro smoke tests on FieldKit release candidates.",
     "Are FieldKit release candidates smoke-tested?"),
    ("tablets", "FieldKit's Android app now also supports tablets in landscape.",
     "Does FieldKit support Android tablets?"),
    ("ipad", "iPad support for FieldKit was added behind the 'ipad_layout' flag.",
     "Does FieldKit support the iPad?"),
    ("digest", "FieldKit began sending a weekly digest push notification on Monday mornings.",
     "Does FieldKit send a weekly digest?"),
    ("knox", "Daniel Kim is the contact for FieldKit's Samsung Knox enrollment.",
     "Who handles FieldKit's Samsung Knox enrollment?"),
    ("camera-permission", "FieldKit asks for the camera permission only when a technician first opens a job's "
     "photo tab.",
     "When does FieldKit ask for the camera permission?"),
    ("crash-free", "Crash-free sessions for FieldKit must stay above 99.5% before a release is promoted past the "
     "beta group.",
     "What crash-free rate must a FieldKit release reach?"),
    ("dsyms", "The FieldKit iOS build now also uploads dSYMs to Crashlytics automatically.",
     "Are FieldKit dSYMs uploaded to Crashlytics?"),
    ("bootsplash", "We moved FieldKit's splash screen to react-native-bootsplash.",
     "What does FieldKit use for its splash screen?"),
])  # fmt: skip

# ---------------------------------------------------------------------------------------------------------------
# Atlas Search: the product search service (FastAPI, OpenSearch).

_ATLAS = facts_in("atlas", [
    ("stack", "Atlas Search is a FastAPI service on Python 3.12, served by uvicorn.",
     "What is Atlas Search built with?"),
    ("engine", "Atlas Search indexes into OpenSearch 2.11.",
     "Which OpenSearch version does Atlas use?"),
    ("cluster-eu", "The EU OpenSearch cluster for Atlas is atlas-eu: 3 data nodes, r6g.xlarge, in eu-west-1.",
     "How big is Atlas's EU OpenSearch cluster?"),
    ("cluster-us", "Atlas's US cluster, atlas-us, has 5 data nodes (r6g.2xlarge) in us-east-2.",
     "How big is Atlas's US OpenSearch cluster?"),
    ("port", "Atlas Search listens on port 8080.",
     "Which port does Atlas Search listen on?"),
    ("topic", "The Atlas indexer consumes product events from the Kafka topic catalog.products.v2.",
     "Which Kafka topic does the Atlas indexer consume?"),
    ("kafka-prod", "In production the Atlas indexer reads from the MSK cluster msk-data-prod as consumer group "
     "atlas-indexer.",
     "Which consumer group does the production Atlas indexer use?"),
    ("kafka-staging", "On staging, the Atlas indexer's consumer group is atlas-indexer-stg on msk-data-staging.",
     "Which consumer group does the staging Atlas indexer use?"),
    ("shards", "Atlas product indices have 6 primary shards and 1 replica.",
     "How many shards do Atlas product indices have?"),
    ("alias", "Atlas always queries through the alias 'products-live'; a reindex swaps the alias atomically.",
     "Which alias does Atlas query?"),
    ("reindex", "A full Atlas reindex takes about 40 minutes for the 12 million products.",
     "How long does a full Atlas reindex take?"),
    ("analyzer", "Atlas uses the ICU analyzer for every language, plus a custom synonym filter.",
     "Which analyzer does Atlas use?"),
    ("synonyms", "Atlas synonyms live in config/synonyms.txt and are reloaded with the _reload_search_analyzers "
     "API.",
     "Where are Atlas synonyms kept?"),
    ("ranking", "Atlas ranks with BM25 plus a popularity boost from the last 7 days of clicks.",
     "How does Atlas rank results?"),
    ("vectors", "Atlas has a k-NN field 'embedding' with 384 dimensions, from all-MiniLM-L6-v2.",
     "Which embedding model fills Atlas's k-NN field?"),
    ("cache", "Atlas caches query results in Redis for 5 minutes.",
     "How long does Atlas cache query results?"),
    ("autocomplete", "Autocomplete in Atlas uses a separate completion-suggester index, products-suggest.",
     "Which index does Atlas autocomplete use?"),
    ("latency", "Atlas's p95 search latency target is 150 ms.",
     "What is Atlas's p95 search latency target?"),
    ("latency-autocomplete", "The p95 target for Atlas autocomplete is 40 ms.",
     "What is the p95 latency target for Atlas autocomplete?"),
    ("ci", "Atlas CI runs on GitLab CI at gitlab.acme-internal.net/search/atlas.",
     "Where does Atlas CI run?"),
    ("integration-tests", "Atlas integration tests start OpenSearch with docker compose -f compose.test.yml.",
     "How do Atlas integration tests start OpenSearch?"),
    ("deps", "Atlas manages dependencies with uv; the lockfile is uv.lock.",
     "How does Atlas manage dependencies?"),
    ("lint", "Atlas lints with ruff and type-checks with pyright in basic mode.",
     "How is Atlas linted and type-checked?"),
    ("lead", "Nadia Haddad leads Atlas Search.",
     "Who leads Atlas Search?"),
    ("owner-relevance", "Ravi Iyer owns relevance tuning in Atlas.",
     "Who owns relevance tuning in Atlas?"),
    ("owner-clusters", "Chris Olsen looks after the Atlas OpenSearch clusters.",
     "Who looks after Atlas's OpenSearch clusters?"),
    ("deploy", "Atlas deploys to the data-prod EKS cluster with Helm, from GitLab CI.",
     "How is Atlas deployed?"),
    ("config", "Atlas reads its configuration from ATLAS_-prefixed environment variables through "
     "pydantic-settings.",
     "How is Atlas configured?"),
    ("gotcha-refresh", "Gotcha: Atlas integration tests must call the refresh API after writes, or searches miss "
     "the new documents.",
     "Why do Atlas integration tests miss newly written documents?"),
    ("deep-paging", "Atlas caps paging at 10,000 results; deeper pages need search_after.",
     "How deep can Atlas page?"),
    ("golden-queries", "Atlas relevance changes are judged on the 'golden-queries' set of 500 queries with nDCG@10.",
     "How are Atlas relevance changes evaluated?"),
    ("experiments", "Atlas ranking experiments run as A/B tests through GrowthBook.",
     "How are Atlas ranking experiments run?"),
    ("query-logs", "Atlas query logs go to the BigQuery dataset search_logs and are kept 90 days.",
     "How long are Atlas query logs kept?"),
    ("pii", "Atlas strips customer emails from query logs before they are exported.",
     "Does Atlas remove emails from query logs?"),
    ("languages", "Atlas supports 9 storefront languages; German gets a decompounder.",
     "How many languages does Atlas support?"),
    ("snapshots", "OpenSearch snapshots for Atlas go to the S3 bucket atlas-snapshots every 6 hours.",
     "How often is Atlas snapshotted?"),
    ("snapshot-retention", "Atlas keeps 14 days of snapshots.",
     "How long does Atlas keep its snapshots?"),
    ("api-version", "The Atlas API is served at /search/v3; v2 was removed in 2023.",
     "Which Atlas API version is served?"),
    ("client", "Storefront calls Atlas through the generated TypeScript client @acme/atlas-client.",
     "How does Storefront call Atlas?"),
    ("timeouts", "Atlas gives OpenSearch queries a 2-second timeout and returns partial results after it.",
     "What timeout does Atlas give OpenSearch queries?"),
    ("why-opensearch", "We chose OpenSearch over Algolia for Atlas because of the cost at 12 million documents.",
     "Why does Atlas use OpenSearch rather than Algolia?"),
    ("flags", "Nadia wants Atlas ranking changes shipped behind a flag, never straight to 100% of traffic.",
     "How should Atlas ranking changes be rolled out?"),
    ("alerts", "Atlas alerts page the search on-call in Opsgenie.",
     "Where do Atlas alerts go?"),
    ("staging-data", "Atlas staging indexes a 5% sample of the catalog.",
     "What does Atlas staging index?"),
    ("local-data", "Locally, Atlas loads fixtures/products-1k.json into a single-node OpenSearch.",
     "What data does Atlas load locally?"),
    ("spelling", "Atlas does spelling correction with a phrase suggester on the title field.",
     "How does Atlas correct spelling?"),
    ("facets", "Atlas facets are terms aggregations capped at 50 buckets.",
     "How are Atlas facets computed?"),
    ("async", "Atlas request handlers are async; blocking calls go through anyio.to_thread.",
     "How should Atlas handlers deal with blocking calls?"),
    ("notebooks", "Relevance notebooks for Atlas live in the atlas-lab repo, not in the service repo.",
     "Where are the Atlas relevance notebooks?"),
    ("bulk", "The Atlas indexer writes to OpenSearch in bulk batches of 500 documents.",
     "What batch size does the Atlas indexer use?"),
])  # fmt: skip

_ATLAS_CHANGES = changes_in("atlas", [
    ("opensearch-213", "engine", True, "Atlas Search was upgraded to OpenSearch 2.13.",
     "Which OpenSearch version does Atlas use?"),
    ("us-7-nodes", "cluster-us", False, "atlas-us, Atlas's US OpenSearch cluster, has 7 data nodes (r6g.2xlarge) in "
     "us-east-2.",
     "How big is Atlas's US OpenSearch cluster?"),
    ("cache-2min", "cache", False, "Atlas keeps query results in Redis for 2 minutes.",
     "How long does Atlas cache query results?"),
    ("bge", "vectors", True, "Atlas switched its k-NN embeddings from all-MiniLM-L6-v2 to bge-small-en-v1.5, still "
     "384 dimensions.",
     "Which embedding model fills Atlas's k-NN field?"),
    ("owner-mei", "owner-relevance", True, "Ravi Iyer left; relevance tuning in Atlas is now owned by Mei Lin.",
     "Who owns relevance tuning in Atlas?"),
    ("ci-github", "ci", False, "Atlas CI runs on GitHub Actions in the acme/atlas repository.",
     "Where does Atlas CI run?"),
    ("shards-12", "shards", False, "Atlas product indices have 12 primary shards and 1 replica.",
     "How many shards do Atlas product indices have?"),
    ("latency-120", "latency", True, "The Atlas p95 search latency target was tightened to 120 ms.",
     "What is Atlas's p95 search latency target?"),
    ("reindex-25", "reindex", False, "Reindexing all 12 million products in Atlas takes about 25 minutes.",
     "How long does a full Atlas reindex take?"),
    ("retention-30", "snapshot-retention", True, "Atlas snapshot retention went from 14 to 30 days.",
     "How long does Atlas keep its snapshots?"),
    ("staging-group", "kafka-staging", True, "The staging Atlas indexer moved to the consumer group "
     "atlas-indexer-staging.",
     "Which consumer group does the staging Atlas indexer use?"),
    ("logs-180", "query-logs", False, "Atlas query logs are kept 180 days in the BigQuery dataset search_logs.",
     "How long are Atlas query logs kept?"),
    ("timeout-1500", "timeouts", False, "OpenSearch queries from Atlas time out after 1.5 seconds, returning "
     "partial results.",
     "What timeout does Atlas give OpenSearch queries?"),
])  # fmt: skip

_ATLAS_ADDITIONS = additions_in("atlas", [
    ("reviews-index", "Atlas now also indexes product reviews, behind a separate reviews-live alias.",
     "Does Atlas index product reviews?"),
    ("shadow", "We started shadowing 1% of Atlas production queries to the staging cluster.",
     "Are Atlas production queries shadowed to staging?"),
    ("tracing", "The team switched on OpenTelemetry tracing for Atlas queries.",
     "Does Atlas have query tracing?"),
    ("lag-alert", "Since the March outage, Atlas also alerts when the indexer's Kafka lag passes 100,000 messages.",
     "When does Atlas alert on indexer lag?"),
    ("jobs-index", "Atlas's EU cluster now also hosts the jobs index for the careers site.",
     "Where is the careers site's jobs index hosted?"),
    ("did-you-mean", "Atlas gained a 'did you mean' banner in the storefront results page.",
     "Does Atlas show a 'did you mean' suggestion?"),
    ("synonym-signoff", "Synonym changes to Atlas need sign-off from the merchandising team.",
     "Who signs off on Atlas synonym changes?"),
    ("relevance-review", "Mei Lin also runs the weekly Atlas relevance review on Thursdays.",
     "Who runs the weekly Atlas relevance review?"),
    ("browser-cache", "Atlas autocomplete responses are cached in the browser for 60 seconds.",
     "How long are Atlas autocomplete responses cached in the browser?"),
    ("masters", "The US Atlas cluster has 3 dedicated master nodes, m6g.large.",
     "Does Atlas's US cluster have dedicated master nodes?"),
    ("locust", "Atlas moved its load tests to Locust, running in the data-staging cluster.",
     "What runs Atlas load tests?"),
])  # fmt: skip

# ---------------------------------------------------------------------------------------------------------------
# Riverbed: the data platform (Airflow, dbt, Snowflake); its slug is "pipes".

_PIPES = facts_in("pipes", [
    ("airflow", "Riverbed's pipelines are orchestrated by Airflow 2.8 on MWAA.",
     "Which Airflow version orchestrates Riverbed?"),
    ("dbt", "Riverbed transforms data with dbt Core 1.7; the models live in the riverbed-dbt repo.",
     "Which dbt version does Riverbed use?"),
    ("warehouse", "The Riverbed warehouse is Snowflake, account acme-data in AWS eu-central-1.",
     "Which Snowflake account is Riverbed's warehouse?"),
    ("dev-db", "Developers run Riverbed's dbt against the RIVERBED_DEV database in Snowflake, one schema per "
     "person.",
     "Which Snowflake database do Riverbed developers build into?"),
    ("prod-db", "Production Riverbed models build into the ANALYTICS database.",
     "Which Snowflake database do production Riverbed models build into?"),
    ("fivetran", "Riverbed ingests Salesforce, HubSpot and Zendesk with Fivetran.",
     "How does Riverbed ingest SaaS sources?"),
    ("custom-ingest", "Custom Riverbed connectors are Python Airflow tasks in dags/ingest/.",
     "Where are Riverbed's custom connectors?"),
    ("daily-run", "The main Riverbed dbt run starts at 05:00 UTC daily.",
     "When does the main Riverbed dbt run start?"),
    ("hourly-run", "Riverbed's 'orders' models also run hourly, at :20 past.",
     "When do Riverbed's orders models run?"),
    ("transform-wh", "Riverbed's dbt runs use the TRANSFORM_WH warehouse, size Medium.",
     "What size is Riverbed's TRANSFORM_WH?"),
    ("reporting-wh", "Looker queries hit the REPORTING_WH warehouse, size Small, auto-suspend after 60 s.",
     "What size is the REPORTING_WH warehouse?"),
    ("looker", "Riverbed's BI layer is Looker; the LookML project is riverbed-looker.",
     "What is Riverbed's BI tool?"),
    ("owner", "Elena Petrova owns the Riverbed platform.",
     "Who owns the Riverbed platform?"),
    ("dbt-reviewer", "Marco Bianchi reviews every dbt model change in Riverbed.",
     "Who reviews Riverbed dbt changes?"),
    ("pk-tests", "Every Riverbed dbt model needs unique and not_null tests on its primary key.",
     "What tests must every Riverbed model have?"),
    ("ci", "Riverbed's dbt CI runs slim CI on GitHub Actions with state:modified+.",
     "How does Riverbed's dbt CI run?"),
    ("sqlfluff", "Riverbed SQL is linted with sqlfluff, dialect snowflake, lowercase keywords.",
     "How is Riverbed SQL linted?"),
    ("naming", "Riverbed model names use the stg_, int_ and fct_/dim_ prefixes.",
     "How are Riverbed models named?"),
    ("freshness", "Riverbed source freshness warns after 12 hours and errors after 24 hours.",
     "What are Riverbed's source freshness thresholds?"),
    ("alerts", "Failed Riverbed DAGs alert the #data-alerts Slack channel.",
     "Where do failed Riverbed DAGs alert?"),
    ("pii", "PII columns in Riverbed are tagged 'pii' in dbt and masked by a Snowflake masking policy for non-admin "
     "roles.",
     "How are PII columns handled in Riverbed?"),
    ("raw-retention", "Raw Riverbed data is kept 400 days in the RAW database.",
     "How long is raw Riverbed data kept?"),
    ("mwaa-prod", "Riverbed's production MWAA environment is riverbed-prod-mwaa, with mw1.medium workers.",
     "What is Riverbed's production MWAA environment?"),
    ("mwaa-staging", "The staging MWAA environment for Riverbed is riverbed-stg-mwaa, with mw1.small workers.",
     "What is Riverbed's staging MWAA environment?"),
    ("python", "Riverbed DAG code targets Python 3.11, the version MWAA runs.",
     "Which Python version does Riverbed DAG code target?"),
    ("landing", "Riverbed lands raw files in s3://acme-riverbed-landing/, partitioned by date.",
     "Where does Riverbed land raw files?"),
    ("parquet", "Riverbed converts landed JSON to Parquet before loading it into Snowflake.",
     "What format does Riverbed load into Snowflake?"),
    ("budget", "Riverbed's Snowflake budget is 3,000 credits a month; a resource monitor suspends at 100%.",
     "What is Riverbed's Snowflake budget?"),
    ("gotcha-tz", "Gotcha: in Riverbed's raw tables, Salesforce timestamps are UTC but HubSpot's are in the "
     "portal's timezone (Europe/Berlin).",
     "Which timezone are HubSpot timestamps in Riverbed's raw tables?"),
    ("gotcha-incremental", "Riverbed incremental models need a full refresh after a column is added, or the new "
     "column stays null.",
     "What happens when a column is added to a Riverbed incremental model?"),
    ("docs", "Riverbed's dbt docs are published to docs.riverbed.acme-internal.net on every merge.",
     "Where are Riverbed's dbt docs published?"),
    ("metrics", "Riverbed metrics are defined in the dbt semantic layer, in models/metrics/.",
     "Where are Riverbed metrics defined?"),
    ("reverse-etl", "Riverbed pushes customer scores to Salesforce with Hightouch.",
     "How does Riverbed push customer scores to Salesforce?"),
    ("quality", "Riverbed uses Elementary for data-quality monitoring.",
     "What monitors Riverbed's data quality?"),
    ("why-dbt", "We chose dbt over stored procedures for Riverbed so every transform is versioned and tested.",
     "Why does Riverbed use dbt rather than stored procedures?"),
    ("ctes", "Elena prefers CTEs over subqueries in Riverbed models, with one import CTE per source at the top.",
     "How should Riverbed models be structured?"),
    ("oncall", "Riverbed's data on-call is a weekly Opsgenie rotation starting Mondays at 09:00 CET.",
     "When does Riverbed's data on-call rotation start?"),
    ("backfills", "Riverbed backfills are run with `airflow dags backfill` from the bastion, never from the UI.",
     "How are Riverbed backfills run?"),
    ("snowpipe", "Riverbed streams the catalog.products.v2 Kafka topic into Snowflake with Snowpipe Streaming.",
     "How does Riverbed load the catalog products topic?"),
    ("roles", "Riverbed's dbt service user has the TRANSFORMER role; analysts get REPORTER.",
     "Which Snowflake role do Riverbed analysts get?"),
    ("sla-finance", "Riverbed's finance dashboards must be fresh by 07:00 CET.",
     "By when must Riverbed's finance dashboards be fresh?"),
    ("sla-marketing", "Marketing dashboards in Riverbed must be fresh by 09:00 CET.",
     "By when must Riverbed's marketing dashboards be fresh?"),
    ("packages", "Riverbed uses the dbt_utils and dbt_expectations packages.",
     "Which dbt packages does Riverbed use?"),
    ("dev-setup", "New Riverbed developers set up with `make dev`, which creates their personal Snowflake schema.",
     "How does a new developer set up Riverbed?"),
    ("pr-titles", "Riverbed PR titles follow '[area] short description', e.g. '[finance] add refunds fact'.",
     "How should Riverbed PR titles look?"),
    ("exposures", "Every Looker dashboard that reads a Riverbed model is declared as a dbt exposure.",
     "How are Looker dashboards tracked in Riverbed's dbt project?"),
    ("clustering", "fct_orders in Riverbed is clustered by order_date.",
     "How is Riverbed's fct_orders clustered?"),
    ("orders-size", "Riverbed's fct_orders has about 900 million rows.",
     "How many rows does fct_orders have?"),
    ("mwaa-requirements", "Riverbed's MWAA Python requirements are pinned in requirements/mwaa.txt against the "
     "Airflow constraints file.",
     "Where are Riverbed's MWAA requirements pinned?"),
    ("hubspot-sync", "The HubSpot connector in Riverbed syncs every 6 hours.",
     "How often does Riverbed's HubSpot connector sync?"),
])  # fmt: skip

_PIPES_CHANGES = changes_in("pipes", [
    ("airflow-29", "airflow", True, "Riverbed was upgraded to Airflow 2.9; it still runs on MWAA.",
     "Which Airflow version orchestrates Riverbed?"),
    ("dbt-18", "dbt", False, "Riverbed transforms data with dbt Core 1.8; the models live in the riverbed-dbt repo.",
     "Which dbt version does Riverbed use?"),
    ("daily-0400", "daily-run", False, "The main Riverbed dbt run starts daily at 04:00 UTC.",
     "When does the main Riverbed dbt run start?"),
    ("transform-large", "transform-wh", True, "Riverbed's TRANSFORM_WH was resized from Medium to Large.",
     "What size is Riverbed's TRANSFORM_WH?"),
    ("reviewer-aisha", "dbt-reviewer", True, "Marco no longer reviews Riverbed dbt changes; Aisha Bello does.",
     "Who reviews Riverbed dbt changes?"),
    ("freshness-6-12", "freshness", False, "Riverbed source freshness warns after 6 hours and errors after 12.",
     "What are Riverbed's source freshness thresholds?"),
    ("alerts-incidents", "alerts", True, "Failed Riverbed DAGs now alert #data-incidents instead of #data-alerts.",
     "Where do failed Riverbed DAGs alert?"),
    ("raw-730", "raw-retention", False, "Raw Riverbed data is kept for 730 days in the RAW database.",
     "How long is raw Riverbed data kept?"),
    ("census", "reverse-etl", True, "Riverbed replaced Hightouch with Census for pushing customer scores to "
     "Salesforce.",
     "How does Riverbed push customer scores to Salesforce?"),
    ("budget-4500", "budget", False, "Riverbed's Snowflake budget is 4,500 credits a month, with a resource monitor "
     "that suspends at 100%.",
     "What is Riverbed's Snowflake budget?"),
    ("finance-0630", "sla-finance", True, "As of Q3, finance dashboards in Riverbed must be fresh by 06:30 CET.",
     "By when must Riverbed's finance dashboards be fresh?"),
    ("hubspot-hourly", "hubspot-sync", False, "Riverbed's HubSpot connector syncs hourly.",
     "How often does Riverbed's HubSpot connector sync?"),
    ("monte-carlo", "quality", True, "Riverbed dropped Elementary and uses Monte Carlo for data-quality monitoring.",
     "What monitors Riverbed's data quality?"),
])  # fmt: skip

_PIPES_ADDITIONS = additions_in("pipes", [
    ("stripe-payouts", "Riverbed now also loads Stripe payouts through Fivetran.",
     "Does Riverbed load Stripe payouts?"),
    ("owner-meta", "We started tagging every Riverbed model with an owner in its meta block.",
     "Do Riverbed models record an owner?"),
    ("contracts", "The team switched on dbt model contracts for Riverbed's public marts.",
     "Do Riverbed's public marts have model contracts?"),
    ("finance-archive", "Since the audit, Riverbed also keeps a copy of the finance marts in a separate "
     "FINANCE_ARCHIVE database.",
     "Where is the archived copy of Riverbed's finance marts?"),
    ("staging-build", "Riverbed's staging MWAA now also runs a nightly dbt build against a zero-copy clone of "
     "ANALYTICS.",
     "Does Riverbed staging run a nightly dbt build?"),
    ("refunds-clustering", "fct_refunds in Riverbed is clustered by refund_date.",
     "How is Riverbed's fct_refunds clustered?"),
    ("sla-product", "Product dashboards in Riverbed must be fresh by 10:00 CET.",
     "By when must Riverbed's product dashboards be fresh?"),
    ("zendesk-sync", "The Zendesk connector in Riverbed syncs every 12 hours.",
     "How often does Riverbed's Zendesk connector sync?"),
    ("dim-regions", "Riverbed added a dim_regions model for the EU/US split.",
     "Which Riverbed model holds the EU/US region split?"),
    ("semantic-owner", "Aisha Bello also owns the Riverbed semantic layer.",
     "Who owns Riverbed's semantic layer?"),
    ("looker-sso", "Riverbed's Looker instance moved to SSO through Okta.",
     "How do people sign in to Riverbed's Looker?"),
])  # fmt: skip

# ---------------------------------------------------------------------------------------------------------------
# Storefront: the shop front end (Next.js); its slug is "web".

_WEB = facts_in("web", [
    ("stack", "Storefront is a Next.js 14 app using the App Router and TypeScript.",
     "Which Next.js version is Storefront on?"),
    ("hosting", "Storefront is hosted on Vercel, under the team 'acme-commerce'.",
     "Where is Storefront hosted?"),
    ("toolchain", "Storefront builds with Node 20 and pnpm 8.",
     "Which Node and pnpm versions does Storefront build with?"),
    ("styling", "Storefront is styled with Tailwind CSS 3.",
     "What is Storefront styled with?"),
    ("cms", "Storefront content comes from Contentful, space 'storefront-prod'.",
     "Where does Storefront's content come from?"),
    ("cms-staging", "Storefront's staging deployment reads the Contentful environment 'staging' of the same space.",
     "Which Contentful environment does Storefront staging read?"),
    ("search", "Storefront's search box calls Atlas through @acme/atlas-client.",
     "What does Storefront's search box call?"),
    ("checkout", "Storefront checkout takes cards with the Stripe Payment Element.",
     "How does Storefront checkout take cards?"),
    ("paypal", "PayPal in Storefront goes through Braintree, not Stripe.",
     "How does Storefront take PayPal payments?"),
    ("domain-prod", "Production Storefront is served at shop.acme.example.",
     "What is Storefront's production domain?"),
    ("domain-staging", "Staging Storefront is at staging.shop.acme.example, behind Vercel's SSO deployment "
     "protection.",
     "Where is Storefront's staging site?"),
    ("prices-eu", "Storefront shows EUR prices to EU visitors, based on the x-vercel-ip-country header.",
     "Which currency do EU visitors see in Storefront?"),
    ("prices-us", "US visitors to Storefront see USD prices, with sales tax added at checkout.",
     "Which currency do US visitors see in Storefront?"),
    ("images", "Storefront serves product images through next/image with Cloudinary as the loader.",
     "How does Storefront serve product images?"),
    ("analytics", "Storefront sends analytics events to Segment, which forwards them to GA4.",
     "Where does Storefront send analytics?"),
    ("unit-tests", "Storefront unit tests use Vitest.",
     "What runs Storefront's unit tests?"),
    ("e2e", "Storefront's end-to-end tests use Playwright against each PR's preview deployment.",
     "How are Storefront's end-to-end tests run?"),
    ("lint", "Storefront uses ESLint with next/core-web-vitals, and Prettier.",
     "How is Storefront linted?"),
    ("lead", "Lucas Moreau is the frontend lead for Storefront.",
     "Who is Storefront's frontend lead?"),
    ("owner-checkout", "Hana Sato owns Storefront checkout.",
     "Who owns Storefront checkout?"),
    ("i18n", "Storefront uses next-intl; the locales are en, de, fr and nl.",
     "Which locales does Storefront support?"),
    ("lighthouse", "Storefront's Lighthouse performance budget is 90 on mobile for the home and product pages.",
     "What is Storefront's Lighthouse budget?"),
    ("lcp", "Storefront's LCP target is under 2.5 s at p75.",
     "What is Storefront's LCP target?"),
    ("isr-product", "Product pages in Storefront use ISR with revalidate set to 300 seconds.",
     "How often do Storefront product pages revalidate?"),
    ("isr-home", "The Storefront home page revalidates every 60 seconds.",
     "How often does the Storefront home page revalidate?"),
    ("cart", "Storefront keeps the cart in a server-side session through the Commerce API; client state uses "
     "Zustand.",
     "Where does Storefront keep the cart?"),
    ("commerce-api", "Storefront's commerce backend is the Commerce API at commerce.acme.example/graphql.",
     "What is Storefront's commerce backend?"),
    ("codegen", "GraphQL types in Storefront are generated with graphql-codegen: run `pnpm codegen` after schema "
     "changes.",
     "How are Storefront's GraphQL types generated?"),
    ("ci", "Storefront CI runs on GitHub Actions: typecheck, lint, Vitest, then Playwright.",
     "What does Storefront CI run?"),
    ("previews", "Every Storefront PR gets a Vercel preview URL posted as a comment.",
     "Do Storefront PRs get preview deployments?"),
    ("release", "Merges to main deploy Storefront to production automatically.",
     "How is Storefront released?"),
    ("flags", "Storefront feature flags come from Vercel Edge Config.",
     "Where do Storefront's feature flags come from?"),
    ("sitemap", "Storefront's sitemap is generated at build time by next-sitemap.",
     "How is Storefront's sitemap generated?"),
    ("wcag", "Storefront must meet WCAG 2.1 AA; axe runs inside the Playwright suite.",
     "What accessibility standard must Storefront meet?"),
    ("gotcha-env", "Gotcha: in Storefront, env vars read in the browser need the NEXT_PUBLIC_ prefix, and changing "
     "them needs a redeploy.",
     "Why isn't a Storefront env var visible in the browser?"),
    ("gotcha-edge", "Storefront's middleware runs on the Edge runtime, so Node APIs such as fs are not available "
     "there.",
     "Can Storefront middleware use Node APIs?"),
    ("reviews", "Product reviews in Storefront come from the Trustpilot widget.",
     "Where do Storefront product reviews come from?"),
    ("figma", "Storefront components follow the 'Acme Commerce' Figma library.",
     "Which Figma library does Storefront follow?"),
    ("components", "Shared Storefront components live in src/components/ui and are built on Radix primitives.",
     "Where are Storefront's shared components?"),
    ("fonts", "Storefront self-hosts the Inter font with next/font.",
     "How does Storefront load its font?"),
    ("app-router", "We chose the App Router over the Pages Router for Storefront, to render product pages as React "
     "Server Components.",
     "Why does Storefront use the App Router?"),
    ("server-components", "Lucas wants server components by default in Storefront, with 'use client' only on "
     "interactive leaves.",
     "When should Storefront components use 'use client'?"),
    ("sentry", "Storefront frontend errors go to the Sentry project 'storefront-web'.",
     "Which Sentry project gets Storefront errors?"),
    ("checkly", "Checkly runs a check of Storefront's checkout flow every 5 minutes.",
     "How often does Checkly check Storefront checkout?"),
    ("cookies", "Storefront's cookie banner is Cookiebot; analytics only load after consent.",
     "Which cookie banner does Storefront use?"),
    ("redirects", "Storefront redirects are managed in next.config.js, not in Vercel's dashboard.",
     "Where are Storefront redirects managed?"),
    ("debounce", "The Storefront search box debounces input by 250 ms before calling Atlas.",
     "How long does the Storefront search box debounce input?"),
    ("build-time", "A clean Storefront production build takes about 6 minutes on Vercel.",
     "How long does a Storefront production build take?"),
    ("functions-region", "Storefront's serverless functions run in Vercel's fra1 region.",
     "Which Vercel region runs Storefront's functions?"),
    ("order-status-region", "Storefront's order-status API route is pinned to iad1, close to the US Commerce API "
     "replica.",
     "Which region is Storefront's order-status route pinned to?"),
])  # fmt: skip

_WEB_CHANGES = changes_in("web", [
    ("next-15", "stack", True, "Storefront was upgraded to Next.js 15.",
     "Which Next.js version is Storefront on?"),
    ("node-22", "toolchain", False, "Storefront builds with Node 22 and pnpm 9.",
     "Which Node and pnpm versions does Storefront build with?"),
    ("sanity", "cms", True, "Storefront moved its content from Contentful to Sanity.",
     "Where does Storefront's content come from?"),
    ("gtm", "analytics", True, "Storefront no longer uses Segment; analytics go straight to GA4 through Google Tag "
     "Manager.",
     "Where does Storefront send analytics?"),
    ("jest", "unit-tests", False, "Unit tests in Storefront are written with Jest and Testing Library.",
     "What runs Storefront's unit tests?"),
    ("owner-omar", "owner-checkout", True, "Hana moved to the platform team; Omar Said owns Storefront checkout now.",
     "Who owns Storefront checkout?"),
    ("isr-120", "isr-product", False, "Storefront product pages use ISR and revalidate every 120 seconds.",
     "How often do Storefront product pages revalidate?"),
    ("locales-es", "i18n", False, "Storefront uses next-intl with the locales en, de, fr, nl and es.",
     "Which locales does Storefront support?"),
    ("lighthouse-95", "lighthouse", True, "The Lighthouse mobile budget for Storefront's home and product pages has "
     "been raised to 95.",
     "What is Storefront's Lighthouse budget?"),
    ("checkly-2", "checkly", False, "Checkly checks Storefront's checkout flow every 2 minutes.",
     "How often does Checkly check Storefront checkout?"),
    ("tailwind-4", "styling", True, "Storefront was migrated to Tailwind CSS 4.",
     "What is Storefront styled with?"),
    ("cdg1", "functions-region", False, "Storefront's serverless functions run in Vercel's cdg1 region.",
     "Which Vercel region runs Storefront's functions?"),
    ("debounce-150", "debounce", False, "The search box on Storefront waits 150 ms after typing before it calls "
     "Atlas.",
     "How long does the Storefront search box debounce input?"),
])  # fmt: skip

_WEB_ADDITIONS = additions_in("web", [
    ("apple-pay", "Storefront now also offers Apple Pay through the Stripe Payment Element.",
     "Does Storefront support Apple Pay?"),
    ("chromatic", "We started running visual regression tests on Storefront with Chromatic.",
     "Does Storefront have visual regression tests?"),
    ("speed-insights", "The team switched on Vercel Speed Insights for Storefront.",
     "Does Storefront use Vercel Speed Insights?"),
    ("lazy-reviews", "Since the redesign, Storefront also lazy-loads the reviews widget below the fold.",
     "Does Storefront lazy-load the reviews widget?"),
    ("test-catalog", "Storefront's staging now also has a seeded test catalog of 200 products.",
     "Does Storefront staging have test products?"),
    ("klarna", "Storefront offers Klarna as a payment method through Stripe.",
     "Does Storefront offer Klarna?"),
    ("isr-category", "Category pages in Storefront revalidate every 600 seconds.",
     "How often do Storefront category pages revalidate?"),
    ("owner-account", "Ines Duarte owns the Storefront account pages.",
     "Who owns Storefront's account pages?"),
    ("not-found", "Storefront got a new 404 page with search suggestions from Atlas.",
     "What does Storefront's 404 page show?"),
    ("og-images", "Storefront moved its Open Graph images to @vercel/og, generated per product.",
     "How are Storefront's Open Graph images made?"),
    ("delivery-date", "The Storefront checkout now also shows the estimated delivery date from the Commerce API.",
     "Does Storefront checkout show a delivery estimate?"),
])  # fmt: skip

# ---------------------------------------------------------------------------------------------------------------
# The person's own facts (project None).

_ME = facts_in(GLOBAL, [
    ("editor", "My main editor is Neovim with LazyVim.",
     "Which editor do I use?"),
    ("notebook-editor", "For Jupyter notebooks I use VS Code.",
     "What do I use for Jupyter notebooks?"),
    ("shell", "My shell is zsh with the starship prompt.",
     "Which shell do I use?"),
    ("laptop", "My work machine is a MacBook Pro M3 Max with 64 GB of RAM, running macOS Sonoma.",
     "What is my work machine?"),
    ("desktop", "At home I use a Linux desktop (Fedora 40, Ryzen 9 7950X) for long builds.",
     "What machine do I use at home?"),
    ("timezone", "The user works from Lisbon, timezone Europe/Lisbon.",
     "Which timezone do I work in?"),
    ("hours", "My working hours are 09:30-18:00, and I don't take meetings on Friday afternoons.",
     "What are my working hours?"),
    ("github", "My GitHub username is jmarques-acme.",
     "What is my GitHub username?"),
    ("gitlab", "On the internal GitLab I'm jmarques.",
     "What is my username on the internal GitLab?"),
    ("commits", "Write my commit messages in Conventional Commits style.",
     "What commit message style do I use?"),
    ("pr-size", "Keep pull requests under about 400 changed lines; split bigger work into several.",
     "How big should my pull requests be?"),
    ("pyenv", "Python versions on my machine are managed with pyenv.",
     "How do I manage Python versions?"),
    ("fnm", "Node versions on my machine are managed with fnm.",
     "How do I manage Node versions?"),
    ("containers", "I run containers with OrbStack rather than Docker Desktop.",
     "What do I run containers with?"),
    ("terminal", "My terminal emulator is WezTerm.",
     "Which terminal emulator do I use?"),
    ("pull-rebase", "Git pulls rebase by default on my machine (pull.rebase=true).",
     "Do my git pulls merge or rebase?"),
    ("tests-first", "Run the relevant tests before proposing a commit; I don't want untested patches.",
     "Should tests run before proposing a commit?"),
    ("comments", "Keep code comments short and about why, not what.",
     "How should code comments be written for me?"),
    ("reply-language", "Reply to me in English, even though I'm Portuguese.",
     "Which language should replies to me be in?"),
    ("answer-style", "I prefer short answers with the command first and the explanation after.",
     "How do I like answers formatted?"),
    ("uv", "Prefer uv over pip for new Python projects.",
     "Which Python package tool do I prefer for new projects?"),
    ("python-format", "Format Python with ruff format; I don't use black.",
     "What do I format Python with?"),
    ("email", "My work email is joao.marques@acme.example.",
     "What is my work email address?"),
    ("manager", "My manager is Elena Petrova.",
     "Who is my manager?"),
    ("team", "The user is on the platform team at Acme and mostly works on Ledger and Tollgate.",
     "Which team am I on?"),
    ("aws-default", "My default AWS CLI profile is acme-dev.",
     "What is my default AWS CLI profile?"),
    ("aws-prod", "For production AWS access I use the acme-prod SSO profile.",
     "Which AWS profile do I use for production?"),
    ("kube", "Kubernetes contexts are switched with kubectx on my machine, and kubectl is aliased to k.",
     "How do I switch Kubernetes contexts?"),
    ("vpn", "The company VPN is Tailscale; I'm on the acme tailnet.",
     "Which VPN do I use?"),
    ("keyboard", "My keyboard layout is US-international.",
     "Which keyboard layout do I use?"),
    ("dotfiles", "My dotfiles are in github.com/jmarques-acme/dotfiles, managed with chezmoi.",
     "Where are my dotfiles?"),
    ("browser", "The user develops in Firefox and opens Chrome only for Lighthouse runs.",
     "Which browser do I develop in?"),
    ("notes", "Work notes go in Obsidian, in the user's vault 'acme'.",
     "Where do I keep my work notes?"),
    ("standup", "The platform team's standup is at 09:45 Lisbon time, Monday to Thursday.",
     "When is the platform team's standup?"),
    ("new-deps", "Ask me before adding a new dependency to any project.",
     "Can a new dependency be added without asking me?"),
    ("sql-case", "I like SQL keywords in lowercase.",
     "How do I like SQL keywords written?"),
    ("names", "I prefer descriptive variable names over abbreviations, except i and j in short loops.",
     "How do I like variables named?"),
    ("exceptions", "Don't swallow exceptions: log and re-raise, or handle them explicitly.",
     "How should exceptions be handled in my code?"),
    ("signing", "My git commits are signed with my SSH key (gpg.format=ssh).",
     "How are my git commits signed?"),
    ("debugger", "For debugging Python the user prefers pdbpp and breakpoint().",
     "How do I debug Python?"),
    ("homebrew", "CLI tools on my Mac are installed with Homebrew, listed in a Brewfile in my dotfiles.",
     "How are CLI tools installed on my Mac?"),
    ("font", "My editor font is JetBrains Mono at 14 pt.",
     "Which font do I use in my editor?"),
])  # fmt: skip

_ME_CHANGES = changes_in(GLOBAL, [
    ("laptop-m4", "laptop", True, "My work machine is now a MacBook Pro M4 Pro with 48 GB of RAM, on macOS Sequoia.",
     "What is my work machine?"),
    ("ghostty", "terminal", True, "The user switched terminals from WezTerm to Ghostty.",
     "Which terminal emulator do I use?"),
    ("hours-10", "hours", False, "My working hours are 10:00-18:30, and I keep Friday afternoons free of meetings.",
     "What are my working hours?"),
    ("colima", "containers", False, "Containers on my Mac run under Colima.",
     "What do I run containers with?"),
    ("standup-1015", "standup", True, "The platform team's standup moved to 10:15 Lisbon time.",
     "When is the platform team's standup?"),
])  # fmt: skip

_ME_ADDITIONS = additions_in(GLOBAL, [
    ("zed", "For quick edits on the Mac the user also keeps Zed around.",
     "What do I use for quick edits?"),
    ("dag-reviews", "Since the reorg, I also review Riverbed's Airflow DAGs.",
     "Do I review Riverbed's Airflow DAGs?"),
    ("mise", "Go and Terraform versions are now managed with mise on my machine.",
     "How do I manage Go and Terraform versions?"),
    ("oss-account", "My open-source GitHub account is jm-oss.",
     "Which GitHub account do I use for open source?"),
    ("bash-strict", "For shell scripts, I want set -euo pipefail at the top.",
     "How should my shell scripts start?"),
])  # fmt: skip

FACTS: tuple[Fact, ...] = (*_LEDGER, *_GATEWAY, *_MOBILE, *_ATLAS, *_PIPES, *_WEB, *_ME)
CHANGES: tuple[Change, ...] = (
    *_LEDGER_CHANGES, *_GATEWAY_CHANGES, *_MOBILE_CHANGES, *_ATLAS_CHANGES, *_PIPES_CHANGES, *_WEB_CHANGES,
    *_ME_CHANGES,
)  # fmt: skip
ADDITIONS: tuple[Addition, ...] = (
    *_LEDGER_ADDITIONS, *_GATEWAY_ADDITIONS, *_MOBILE_ADDITIONS, *_ATLAS_ADDITIONS, *_PIPES_ADDITIONS,
    *_WEB_ADDITIONS, *_ME_ADDITIONS,
)  # fmt: skip

# Pairs of stored facts that are both true and differ in a qualifier (environment, platform, region, owner of what).
LOOK_ALIKES: tuple[tuple[str, str], ...] = (
    ("ledger.db-prod", "ledger.db-staging"),
    ("ledger.port", "ledger.admin-port"),
    ("ledger.port", "ledger.local-dev"),
    ("ledger.redis-prod", "ledger.redis-staging"),
    ("ledger.owner-invoicing", "ledger.owner-reconciliation"),
    ("ledger.region-eu", "ledger.region-us"),
    ("ledger.bucket-prod", "ledger.bucket-staging"),
    ("ledger.dunning", "ledger.invoice-run"),
    ("gateway.admin-port", "gateway.limitd-port"),
    ("gateway.cluster-prod", "gateway.cluster-staging"),
    ("gateway.replicas-prod", "gateway.replicas-staging"),
    ("gateway.default-limit", "gateway.gold-limit"),
    ("gateway.lead", "gateway.owner-limiter"),
    ("gateway.argo-prod", "gateway.argo-staging"),
    ("gateway.timeout", "gateway.timeout-ledger"),
    ("gateway.region-eu", "gateway.region-us"),
    ("mobile.ios-min", "mobile.android-sdk"),
    ("mobile.ios-bundle", "mobile.android-package"),
    ("mobile.api-prod", "mobile.api-staging"),
    ("mobile.ci-ios", "mobile.ci-android"),
    ("mobile.release-ios", "mobile.release-android"),
    ("mobile.owner-ios", "mobile.owner-android"),
    ("mobile.tests", "mobile.e2e-android"),
    ("mobile.deep-links", "mobile.universal-links"),
    ("atlas.cluster-eu", "atlas.cluster-us"),
    ("atlas.kafka-prod", "atlas.kafka-staging"),
    ("atlas.latency", "atlas.latency-autocomplete"),
    ("atlas.owner-relevance", "atlas.owner-clusters"),
    ("atlas.staging-data", "atlas.local-data"),
    ("pipes.dev-db", "pipes.prod-db"),
    ("pipes.daily-run", "pipes.hourly-run"),
    ("pipes.transform-wh", "pipes.reporting-wh"),
    ("pipes.owner", "pipes.dbt-reviewer"),
    ("pipes.mwaa-prod", "pipes.mwaa-staging"),
    ("pipes.sla-finance", "pipes.sla-marketing"),
    ("web.cms", "web.cms-staging"),
    ("web.checkout", "web.paypal"),
    ("web.domain-prod", "web.domain-staging"),
    ("web.prices-eu", "web.prices-us"),
    ("web.lead", "web.owner-checkout"),
    ("web.isr-product", "web.isr-home"),
    ("web.functions-region", "web.order-status-region"),
    ("me.editor", "me.notebook-editor"),
    ("me.laptop", "me.desktop"),
    ("me.github", "me.gitlab"),
    ("me.aws-default", "me.aws-prod"),
)

# ---------------------------------------------------------------------------------------------------------------
# The split, drawn after the data above was written.

SPLIT_SEED = 20240917
_draw = random.Random(SPLIT_SEED)
HELD_OUT_PROJECTS: tuple[str, ...] = tuple(sorted(_draw.sample(sorted(PRODUCTS), 3)))
DEV_PROJECTS: tuple[str, ...] = tuple(sorted(p for p in PRODUCTS if p not in HELD_OUT_PROJECTS))
_global_facts = sorted(f.key for f in FACTS if f.project is None)
_global_additions = sorted(a.key for a in ADDITIONS if a.project is None)
_draw.shuffle(_global_facts)
_draw.shuffle(_global_additions)
# The held-out globals: half of the global facts (with the changes that replace them) and half of the global
# additions (which replace nothing, so they are drawn by their own keys).
HELD_OUT_GLOBAL_KEYS: frozenset[str] = frozenset(
    _global_facts[: len(_global_facts) // 2] + _global_additions[: len(_global_additions) // 2]
)
del _draw, _global_facts, _global_additions

HALVES = ("dev", "held out")


def _held_out(project: str | None, key: str) -> bool:
    """Whether a fact (or a global addition, by its own key) belongs to the held-out half."""
    return key in HELD_OUT_GLOBAL_KEYS if project is None else project in HELD_OUT_PROJECTS


def half(name: str) -> CrowdedHalf:
    """The facts, changes and additions of "dev" or "held out"; a change goes with the fact it replaces."""
    if name not in HALVES:
        raise ValueError(f"no half named {name!r}; the halves are {HALVES}")
    held = name == "held out"
    return CrowdedHalf(
        name=name,
        projects=HELD_OUT_PROJECTS if held else DEV_PROJECTS,
        facts=tuple(f for f in FACTS if _held_out(f.project, f.key) == held),
        changes=tuple(c for c in CHANGES if _held_out(c.project, c.replaces) == held),
        additions=tuple(a for a in ADDITIONS if _held_out(a.project, a.key) == held),
    )
