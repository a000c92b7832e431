"""The fold labelled set: pairs of writes, a stored memory then a second write, as agents write them.

Two halves. Writes that add a detail the stored memory lacks (`ADDS`): a list item, an extra name, a number or
version, a qualifier (environment, region, platform), a negation, a second destination, a condition, a unit; each
names its `detail`, a piece of the write's text that must be in the store afterwards (kept as a memory of its own
or merged into the stored one). Writes that add nothing (`SAME`): an exact repeat, a change of case or
punctuation, a reorder, synonyms, another phrasing; each must be answered `duplicate`, naming the stored memory.

Written before the gate's fold rule was read or changed, then split once with a seeded generator: `DEV` to tune
on, `HELD_OUT` measured at the end only. `python -m bench gate` reports both.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class FoldPair:
    kind: str  # ADDS: list | name | number | qualifier | negation | destination | condition | unit;
    # SAME: repeat | case | punctuation | reorder | synonym | rephrase
    stored: str
    write: str
    detail: str = ""  # for ADDS: a piece of `write` that `stored` lacks; empty for SAME

    @property
    def adds_detail(self) -> bool:
        return bool(self.detail)


def _add(kind: str, stored: str, write: str, detail: str) -> FoldPair:
    return FoldPair(kind, stored, write, detail)


def _same(kind: str, stored: str, write: str | None = None) -> FoldPair:
    return FoldPair(kind, stored, stored if write is None else write)


# fmt: off
ADDS: tuple[FoldPair, ...] = (
    # --- a list item
    _add("list", "CI for atlas runs on ubuntu-22.04 and macos-14.",
         "CI for atlas runs on ubuntu-22.04, macos-14 and windows-latest.", "windows-latest"),
    _add("list", "The billing service supports card and SEPA payments.",
         "The billing service supports card, SEPA and iDEAL payments.", "iDEAL"),
    _add("list", "The mobile app is localized into English and German.",
         "The mobile app is localized into English, German and Japanese.", "Japanese"),
    _add("list", "Supported Python versions for the SDK are 3.10 and 3.11.",
         "Supported Python versions for the SDK are 3.10, 3.11 and 3.12.", "3.12"),
    _add("list", "The search index covers tickets and wiki pages.",
         "The search index covers tickets, wiki pages and Slack threads.", "Slack threads"),
    _add("list", "The data lake ingests Parquet and CSV files.",
         "The data lake ingests Parquet, CSV and Avro files.", "Avro"),
    _add("list", "Pre-commit runs ruff and mypy on every commit.",
         "Pre-commit runs ruff, mypy and codespell on every commit.", "codespell"),
    _add("list", "The export API returns JSON or XML.",
         "The export API returns JSON, XML or NDJSON.", "NDJSON"),
    _add("list", "The ingestion workers read from the Kafka topics orders and payments.",
         "The ingestion workers read from the Kafka topics orders, payments and refunds.", "refunds"),
    # --- an extra name
    _add("name", "Priya owns the pricing service.",
         "Priya and Marco own the pricing service.", "Marco"),
    _add("name", "Code reviews for the auth module need approval from Lena.",
         "Code reviews for the auth module need approval from Lena or Tomasz.", "Tomasz"),
    _add("name", "The on-call rotation for payments includes Aisha and Ben.",
         "The on-call rotation for payments includes Aisha, Ben and Chidi.", "Chidi"),
    _add("name", "The design system is maintained by the platform team.",
         "The design system is maintained by the platform team and the brand team.", "brand team"),
    _add("name", "Questions about GDPR go to Sofia in legal.",
         "Questions about GDPR go to Sofia and Henrik in legal.", "Henrik"),
    _add("name", "Kubernetes cluster upgrades are run by Ravi.",
         "Kubernetes cluster upgrades are run by Ravi and Marta.", "Marta"),
    _add("name", "Tickets tagged security are triaged by Noor.",
         "Tickets tagged security are triaged by Noor and Pedro.", "Pedro"),
    _add("name", "The quarterly roadmap is signed off by the CTO.",
         "The quarterly roadmap is signed off by the CTO and the head of product.", "head of product"),
    _add("name", "Invoices above 10,000 EUR are approved by Claire.",
         "Invoices above 10,000 EUR are approved by Claire and Omar.", "Omar"),
    # --- a number or a version
    _add("number", "The API gateway runs Envoy.",
         "The API gateway runs Envoy 1.29.", "1.29"),
    _add("number", "The orders database is PostgreSQL.",
         "The orders database is PostgreSQL 16.", "PostgreSQL 16"),
    _add("number", "Login attempts are rate limited per IP.",
         "Login attempts are rate limited to 5 per minute per IP.", "5 per minute"),
    _add("number", "The frontend is built with React.",
         "The frontend is built with React 18.2.", "18.2"),
    _add("number", "Build artifacts are kept in the artifact store.",
         "Build artifacts are kept in the artifact store for 90 days.", "90 days"),
    _add("number", "The search cluster has three Elasticsearch nodes.",
         "The search cluster has three Elasticsearch 8.11 nodes.", "8.11"),
    _add("number", "Webhook deliveries are retried on failure.",
         "Webhook deliveries are retried up to 8 times on failure.", "8 times"),
    _add("number", "The Android app uses Kotlin.",
         "The Android app uses Kotlin 1.9.22.", "1.9.22"),
    _add("number", "The worker pool autoscales on queue depth.",
         "The worker pool autoscales between 4 and 40 workers on queue depth.", "between 4 and 40"),
    # --- a qualifier: environment, region, platform
    _add("qualifier", "Feature flags are evaluated server-side.",
         "Feature flags are evaluated server-side in production.", "in production"),
    _add("qualifier", "Backups are encrypted with KMS.",
         "Backups in the EU region are encrypted with KMS.", "EU region"),
    _add("qualifier", "Push notifications are sent through Firebase.",
         "Push notifications on Android are sent through Firebase.", "on Android"),
    _add("qualifier", "Debug logging is enabled for the checkout service.",
         "Debug logging is enabled for the checkout service in staging.", "in staging"),
    _add("qualifier", "The app uses biometric login.",
         "The iOS app uses biometric login.", "iOS"),
    _add("qualifier", "Read replicas serve the reporting queries.",
         "Read replicas in us-east-1 serve the reporting queries.", "us-east-1"),
    _add("qualifier", "The CDN caches static assets for one day.",
         "The CDN caches static assets for one day on the marketing site.", "marketing site"),
    _add("qualifier", "Dark mode follows the system setting.",
         "On macOS, dark mode follows the system setting.", "macOS"),
    _add("qualifier", "Database migrations run automatically on deploy.",
         "Database migrations run automatically on deploy to the dev environment.", "dev environment"),
    # --- a negation
    _add("negation", "The billing service retries failed webhooks.",
         "The billing service does not retry failed webhooks.", "does not"),
    _add("negation", "Staging uses production data.",
         "Staging never uses production data.", "never"),
    _add("negation", "The public API requires an API key.",
         "The public API does not require an API key.", "does not"),
    _add("negation", "Pull requests can be merged with one approval.",
         "Pull requests cannot be merged with one approval.", "cannot"),
    _add("negation", "The mobile app works offline.",
         "The mobile app does not work offline.", "does not"),
    _add("negation", "Guest users can export reports.",
         "Guest users cannot export reports.", "cannot"),
    _add("negation", "The nightly job sends a summary email.",
         "The nightly job doesn't send a summary email.", "doesn't"),
    _add("negation", "Cached search results include archived projects.",
         "Cached search results do not include archived projects.", "do not"),
    _add("negation", "The load balancer terminates TLS.",
         "The load balancer does not terminate TLS.", "does not"),
    # --- a second destination
    _add("destination", "Error reports are sent to Sentry.",
         "Error reports are sent to Sentry and to the #alerts channel.", "#alerts"),
    _add("destination", "The atlas repository is mirrored to GitLab.",
         "The atlas repository is mirrored to GitLab and Codeberg.", "Codeberg"),
    _add("destination", "Nightly backups are copied to S3.",
         "Nightly backups are copied to S3 and to a Backblaze bucket.", "Backblaze"),
    _add("destination", "Application logs ship to Loki.",
         "Application logs ship to Loki and Datadog.", "Datadog"),
    _add("destination", "Release builds are uploaded to TestFlight.",
         "Release builds are uploaded to TestFlight and Firebase App Distribution.", "Firebase App Distribution"),
    _add("destination", "Metrics are exported to Prometheus.",
         "Metrics are exported to Prometheus and to BigQuery for long-term analysis.", "BigQuery"),
    _add("destination", "Customer feedback is forwarded to the product inbox.",
         "Customer feedback is forwarded to the product inbox and the support Slack channel.", "support Slack"),
    _add("destination", "Docker images are pushed to GHCR.",
         "Docker images are pushed to GHCR and Docker Hub.", "Docker Hub"),
    _add("destination", "Audit events are written to the audit table.",
         "Audit events are written to the audit table and streamed to Splunk.", "Splunk"),
    # --- a condition
    _add("condition", "Production deploys run from the main branch.",
         "Production deploys run from the main branch only on weekdays.", "only on weekdays"),
    _add("condition", "The cache is warmed after each deploy.",
         "The cache is warmed after each deploy unless the deploy is a hotfix.", "unless the deploy is a hotfix"),
    _add("condition", "Refunds are processed automatically.",
         "Refunds are processed automatically if the amount is under 100 EUR.", "under 100 EUR"),
    _add("condition", "The ETL job skips empty partitions.",
         "The ETL job skips empty partitions except at month end.", "month end"),
    _add("condition", "Dependabot pull requests are auto-merged.",
         "Dependabot pull requests are auto-merged when all checks pass.", "when all checks pass"),
    _add("condition", "The support bot escalates to a human.",
         "The support bot escalates to a human after two failed answers.", "after two failed answers"),
    _add("condition", "Canary releases get 5% of traffic.",
         "Canary releases get 5% of traffic during business hours.", "business hours"),
    _add("condition", "Load tests run against staging.",
         "Load tests run against staging only outside the release freeze.", "release freeze"),
    _add("condition", "Session cookies are refreshed silently.",
         "Session cookies are refreshed silently while the tab is active.", "while the tab is active"),
    # --- a unit
    _add("unit", "The upload limit for attachments is 25.",
         "The upload limit for attachments is 25 MB.", "25 MB"),
    _add("unit", "The request timeout for the gateway is 30.",
         "The request timeout for the gateway is 30 seconds.", "seconds"),
    _add("unit", "The cache TTL for product pages is 15.",
         "The cache TTL for product pages is 15 minutes.", "minutes"),
    _add("unit", "Worker pods request 512 of memory.",
         "Worker pods request 512 MiB of memory.", "MiB"),
    _add("unit", "The maximum batch size for the import API is 500.",
         "The maximum batch size for the import API is 500 rows.", "rows"),
    _add("unit", "Log retention in Loki is 30.",
         "Log retention in Loki is 30 days.", "days"),
    _add("unit", "The thermal limit for the edge devices is 85.",
         "The thermal limit for the edge devices is 85 degrees Celsius.", "Celsius"),
    _add("unit", "The mobile app bundle must stay under 40.",
         "The mobile app bundle must stay under 40 megabytes.", "megabytes"),
    _add("unit", "The rate limit for the search endpoint is 100.",
         "The rate limit for the search endpoint is 100 requests per second.", "requests per second"),
)

SAME: tuple[FoldPair, ...] = (
    # --- an exact repeat
    _same("repeat", "The staging database is refreshed from a production snapshot every Sunday."),
    _same("repeat", "Mobile crash reports are collected with Crashlytics."),
    _same("repeat", "The GraphQL schema is generated from the Django models."),
    _same("repeat", "Payments are reconciled against the bank statement each morning."),
    _same("repeat", "The design tokens live in the tokens package of the ui repository."),
    _same("repeat", "Customer data for EU accounts stays in Frankfurt."),
    _same("repeat", "The monorepo uses pnpm workspaces."),
    _same("repeat", "Terraform modules are versioned with git tags."),
    _same("repeat", "The recommendation model is trained on the last 90 days of clicks."),
    _same("repeat", "Support tickets are answered within one business day."),
    _same("repeat", "Integration tests need a running Redis on port 6379."),
    _same("repeat", "The marketing site is a static Astro build."),
    # --- a change of case
    _same("case", "The Helm charts live in the deploy repository.",
          "the helm charts live in the deploy repository."),
    _same("case", "Ruff is the linter for every Python repository.",
          "ruff is the linter for every python repository."),
    _same("case", "Invoices are generated with WeasyPrint.",
          "Invoices are generated with weasyprint."),
    _same("case", "The Android build uses Gradle version catalogs.",
          "The android build uses gradle version catalogs."),
    _same("case", "Grafana dashboards are provisioned from JSON files.",
          "grafana dashboards are provisioned from json files."),
    _same("case", "The QA team signs off on every release candidate.",
          "The QA Team Signs Off On Every Release Candidate."),
    _same("case", "Feature branches are deleted after merge.",
          "FEATURE BRANCHES ARE DELETED AFTER MERGE."),
    _same("case", "The warehouse uses dbt for transformations.",
          "The warehouse uses DBT for transformations."),
    _same("case", "The chat widget is built with Preact.",
          "the chat widget is built with preact."),
    _same("case", "Certificates are renewed by cert-manager.",
          "certificates are renewed by Cert-Manager."),
    _same("case", "The iOS app is written in SwiftUI.",
          "The iOS app is written in swiftui."),
    _same("case", "Background jobs run on Celery with RabbitMQ.",
          "background jobs run on celery with rabbitmq."),
    # --- a change of punctuation
    _same("punctuation", "The API returns timestamps in UTC.",
          "The API returns timestamps in UTC"),
    _same("punctuation", "Pull requests need a linked ticket, a passing build and one review.",
          "Pull requests need a linked ticket, a passing build, and one review."),
    _same("punctuation", "The batch importer is idempotent; reruns are safe.",
          "The batch importer is idempotent. Reruns are safe."),
    _same("punctuation", "The e-mail service is Postmark.",
          "The email service is Postmark."),
    _same("punctuation", "Customer IDs are UUIDv7 - never sequential integers.",
          "Customer IDs are UUIDv7, never sequential integers."),
    _same("punctuation", "The docs site (docs.example.com) is built with MkDocs.",
          "The docs site, docs.example.com, is built with MkDocs."),
    _same("punctuation", "Hotfixes go straight to the release branch.",
          "Hotfixes go straight to the release branch!"),
    _same("punctuation", "The mobile API is versioned in the URL path, e.g. /v2/.",
          "The mobile API is versioned in the URL path (e.g. /v2/)."),
    _same("punctuation", "On-call hand-over happens on Monday at 9:00.",
          "On-call handover happens on Monday at 9:00."),
    _same("punctuation", "The queue is FIFO: first in, first out.",
          "The queue is FIFO (first in, first out)."),
    _same("punctuation", "Translations are managed in Crowdin.",
          "Translations are managed in Crowdin"),
    _same("punctuation", "Image thumbnails are generated by a Lambda function.",
          "Image thumbnails are generated by a Lambda function;"),
    # --- a reorder
    _same("reorder", "Every Friday the analytics team publishes the KPI report.",
          "The analytics team publishes the KPI report every Friday."),
    _same("reorder", "In production, the API runs behind Cloudflare.",
          "The API runs behind Cloudflare in production."),
    _same("reorder", "The web app and the admin panel share one Postgres database.",
          "The admin panel and the web app share one Postgres database."),
    _same("reorder", "For local development, use docker compose up.",
          "Use docker compose up for local development."),
    _same("reorder", "The ingestion service is written in Rust and Go.",
          "The ingestion service is written in Go and Rust."),
    _same("reorder", "After each release, the release manager updates the changelog.",
          "The release manager updates the changelog after each release."),
    _same("reorder", "With every merge to main, the docs are rebuilt.",
          "The docs are rebuilt with every merge to main."),
    _same("reorder", "Users on the free plan get 3 projects and 1 GB of storage.",
          "Users on the free plan get 1 GB of storage and 3 projects."),
    _same("reorder", "Before a schema change, take a backup of the orders database.",
          "Take a backup of the orders database before a schema change."),
    _same("reorder", "Nginx and gunicorn serve the legacy admin.",
          "Gunicorn and Nginx serve the legacy admin."),
    _same("reorder", "At 03:00 UTC the search index is rebuilt.",
          "The search index is rebuilt at 03:00 UTC."),
    _same("reorder", "Tests for the SDK run on Linux, macOS and Windows.",
          "Tests for the SDK run on Windows, macOS and Linux."),
    # --- synonyms
    _same("synonym", "The billing worker consumes messages from SQS.",
          "The billing worker reads messages from SQS."),
    _same("synonym", "Big files should be stored in Git LFS.",
          "Large files should be kept in Git LFS."),
    _same("synonym", "The checkout page loads Stripe.js from the Stripe CDN.",
          "The checkout page fetches Stripe.js from the Stripe CDN."),
    _same("synonym", "The team uses Linear for issue tracking.",
          "The team uses Linear for ticket tracking."),
    _same("synonym", "New hires get laptop access on their first day.",
          "New employees get laptop access on their first day."),
    _same("synonym", "The main database server has 64 GB of RAM.",
          "The primary database server has 64 GB of memory."),
    _same("synonym", "The cron job purges expired sessions every hour.",
          "The cron job deletes expired sessions every hour."),
    _same("synonym", "The marketing emails are sent via Mailchimp.",
          "The marketing emails are delivered through Mailchimp."),
    _same("synonym", "The admin panel is only reachable over the VPN.",
          "The admin panel is only accessible over the VPN."),
    _same("synonym", "Flaky tests are quarantined in a separate CI job.",
          "Flaky tests are isolated in a separate CI job."),
    _same("synonym", "The embeddings service runs on a GPU node.",
          "The embeddings service is hosted on a GPU node."),
    _same("synonym", "The frontend is styled with Tailwind CSS.",
          "The frontend is styled using Tailwind CSS."),
    # --- another phrasing
    _same("rephrase", "The payments team owns the ledger service.",
          "The ledger service is owned by the payments team."),
    _same("rephrase", "The API is deployed with Kamal.",
          "Kamal is used to deploy the API."),
    _same("rephrase", "The search service depends on OpenSearch.",
          "OpenSearch is a dependency of the search service."),
    _same("rephrase", "Code freeze starts two days before each release.",
          "Each release has a code freeze starting two days before it."),
    _same("rephrase", "The frontend talks to the backend over GraphQL.",
          "The frontend and the backend communicate over GraphQL."),
    _same("rephrase", "Staging is reset every night.",
          "Every night, staging gets reset."),
    _same("rephrase", "The mobile team ships from the release/mobile branch.",
          "Mobile releases are shipped from the release/mobile branch."),
    _same("rephrase", "Alerts page the on-call engineer through PagerDuty.",
          "PagerDuty is how alerts page the on-call engineer."),
    _same("rephrase", "Terraform plans must be reviewed before apply.",
          "Before apply, a Terraform plan has to be reviewed."),
    _same("rephrase", "The SDK's public functions all have type hints.",
          "All public functions in the SDK have type hints."),
    _same("rephrase", "Data scientists use JupyterHub for notebooks.",
          "Notebooks are run by data scientists on JupyterHub."),
    _same("rephrase", "The status page is hosted on Statuspage.io.",
          "Statuspage.io hosts the status page."),
)
# fmt: on

SEED = 20240611


def _split(pairs: tuple[FoldPair, ...]) -> tuple[tuple[FoldPair, ...], tuple[FoldPair, ...]]:
    """(dev, held out): each kind shuffled with the seeded generator, then every other pair held out, so both halves
    hold every kind."""
    rng = random.Random(SEED)
    kinds = list(dict.fromkeys(p.kind for p in pairs))
    ordered: list[FoldPair] = []
    for kind in kinds:
        group = [p for p in pairs if p.kind == kind]
        ordered += rng.sample(group, k=len(group))
    return tuple(ordered[1::2]), tuple(ordered[0::2])


_ADDS_DEV, _ADDS_HELD = _split(ADDS)
_SAME_DEV, _SAME_HELD = _split(SAME)
DEV: tuple[FoldPair, ...] = _ADDS_DEV + _SAME_DEV
HELD_OUT: tuple[FoldPair, ...] = _ADDS_HELD + _SAME_HELD
