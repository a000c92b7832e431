"""A labelled set of writes, as coding agents really send them, to measure the write gate.

DURABLE: facts, decisions, gotchas, preferences and procedures worth keeping, some short and some that look
like noise at first sight (they start with "Today", "Let's", "ERROR", end in a question-like clause, or
mention passwords without holding one). NOISE: session logs and summaries, status and progress notes,
acknowledgements, thinking aloud, command output and log lines, questions, plans for later. SECRETS: writes
holding a credential of each kind the gate covers, built from pieces at run time (obviously fake, correctly
shaped) so no literal here looks like a leaked key.

`tests/test_it_keeps_noise_out.py` asserts the rates; `manage.py eval_gate` prints them.
"""

from __future__ import annotations

DURABLE: list[str] = [
    # facts about the project
    "The billing service talks to Postgres 15 on port 5433, not the default 5432.",
    "CI runs on GitHub Actions; the workflow lives in .github/workflows/ci.yml.",
    "The frontend is a Vite + React app under web/; the API is Django under api/.",
    "Migrations must be generated with `python manage.py makemigrations --check` passing in CI.",
    "Staging deploys automatically from the main branch; production needs a manual approval in Argo CD.",
    "The search index is rebuilt nightly at 02:00 UTC by the reindex cron job.",
    "Feature flags are read from LaunchDarkly; the local fallback is config/flags.yaml.",
    "User IDs are UUIDv7, so they sort by creation time.",
    "The payments module wraps Stripe through services/payments/gateway.py; never call stripe directly.",
    "Redis is only a cache here: losing it must never lose data.",
    "The monorepo uses pnpm workspaces; packages/ui is shared by web and admin.",
    "API responses use snake_case keys; the mobile client converts them to camelCase.",
    "Timestamps in the API are ISO 8601 in UTC with a trailing Z.",
    "Today's date format in exported CSVs is DD/MM/YYYY because finance asked for it.",
    "The orders table has 40M rows; any migration on it must be done with pg_repack or in batches.",
    'Logs go to Loki; query them in Grafana with {app="checkout"}.',
    "ERROR 1045 in the CI MySQL step means MYSQL_ROOT_PASSWORD is not set in the job env.",
    "The API key for OpenAI lives in the OPENAI_API_KEY environment variable, loaded by settings/env.py.",
    "Passwords are hashed with Argon2id; the parameters are in settings.PASSWORD_HASHERS.",
    "The session token is rotated every 24 hours by the auth middleware.",
    "Secrets are stored in AWS Secrets Manager under /prod/checkout/*; never in the repo.",
    "Let's Encrypt certificates renew via the certbot systemd timer on the edge hosts.",
    "Python 3.12 only: the codebase uses PEP 695 generics.",
    "The e2e tests need Chromium at /usr/bin/chromium.",
    "Webhooks from GitHub are verified with HMAC-SHA256 in webhooks/verify.py.",
    "Invoice numbers are generated per tenant and must never be reused, even after deletion.",
    # decisions
    "Decided to use SQLite with WAL instead of Postgres for the local store: one file, no server.",
    "We chose Celery over RQ because we need scheduled tasks and retries with backoff.",
    "Team agreed: every public endpoint gets an OpenAPI description before merge.",
    "We switched from Black to ruff format in March; do not reintroduce Black.",
    "Going with server-side rendering for the dashboard (HTMX), no SPA.",
    "Decision: feature branches are squash-merged; the PR title becomes the commit message.",
    "Auth uses short-lived JWTs (15 min) plus refresh tokens stored httpOnly, decided after the 2024 audit.",
    "We keep money as integer cents everywhere; floats for money were removed in PR #412.",
    # gotchas
    "Gotcha: pytest-xdist breaks the fixtures that share the SQLite file; run those tests with -p no:xdist.",
    "Docker on macOS mounts are slow; put node_modules in a named volume.",
    "The ORM's bulk_create skips save() and signals, so audit rows are not written for bulk imports.",
    "datetime.utcnow() returns a naive datetime; use datetime.now(UTC) or comparisons fail.",
    "Careful: the staging DB is shared with QA; never run destructive migrations there without asking.",
    "The flaky test_checkout_timeout fails when the machine is loaded; it depends on a 200 ms timer.",
    "npm ci fails with ERESOLVE when the lockfile was written by npm 6; regenerate it with npm 10.",
    "Celery tasks must be idempotent: the broker redelivers on worker restart.",
    "The PDF renderer silently drops fonts that are not embedded; always embed them.",
    "Watch out: `git stash` does not stash untracked files unless you pass -u.",
    "SQLite FTS5 treats a hyphen as NOT in MATCH queries; quote terms that contain one.",
    "On Windows the test suite needs core.autocrlf=false or the snapshot tests fail.",
    "Step 1 of a release is bumping the version in pyproject.toml; step 2 is tagging vX.Y.Z on main.",
    "If the migration hangs, another process holds a lock: check pg_stat_activity.",
    "The rate limiter counts per token, not per IP, so shared CI runners do not throttle each other.",
    # preferences
    "User prefers short commit messages in the imperative mood.",
    "The user likes type hints on every function, including tests.",
    "Prefer pathlib over os.path in new code.",
    "Never use print for debugging output in committed code; use the logger.",
    "User wants British spelling in docs (colour, behaviour).",
    "Always run ruff check and ruff format before committing.",
    "The user dislikes mocks in integration tests; use the real database.",
    "Use pnpm, not npm.",
    "Tabs, not spaces, in the Go code.",
    "Keep functions under 50 lines where possible.",
    "Use f-strings, never % formatting.",
    "Reviewer Ana wants screenshots in every UI pull request.",
    # procedures
    "To run the tests: `make test` (pytest with -p no:cacheprovider).",
    "To reset the local database run `./scripts/reset_db.sh` and then `python manage.py seed_demo`.",
    "How to release: run `make release VERSION=x.y.z`, then push the tag; CI publishes to PyPI.",
    "To regenerate the API client run `npm run openapi:generate` from web/.",
    "Deploy the docs with `mkdocs gh-deploy --force` from the docs/ folder.",
    "To profile a slow view, add ?_profile=1 to the URL (only in DEBUG).",
    "First run `docker compose up -d db`, then `python manage.py migrate`, then start the server.",
    "Rotate the signing key with `python manage.py rotate_keys`; old tokens stay valid for 24 hours.",
    "To debug Celery locally run the worker with --pool=solo so breakpoints work.",
    "Run `terraform plan -out plan.bin` and have someone review it before `terraform apply plan.bin`.",
    "To add a new locale, copy locale/en/ and run `make messages`.",
    # environment and people
    "The dev machine runs Ubuntu 24.04 with zsh and Neovim.",
    "Node 20 is required; nvm picks it up from .nvmrc.",
    "Ana Souza is the maintainer of the billing service and reviews its pull requests.",
    "The GPU box (gpu-01) has two A100s; book it in the #ml-infra channel.",
    "Questions about billing go to the #billing-help channel, not to individuals.",
    "Why the build is slow: COPY . before pip install invalidates the Docker layer cache; copy requirements first.",
]

NOISE: list[str] = [
    # session logs and summaries
    "today I worked on the invoice bug and then had lunch",
    "Today I refactored the auth module and fixed two tests.",
    "In this session I updated the README and ran the linters.",
    "Session summary: fixed the login redirect, added tests, updated docs.",
    "Summary of what I did: migrated the config loader to pydantic and cleaned up imports.",
    "I worked on the checkout flow for most of the afternoon.",
    "We spent the morning debugging the CI pipeline.",
    "Worked on the payments refactor, then reviewed Ana's PR.",
    "Fixed the failing test in test_orders.py and pushed the branch.",
    "Refactored the user service and added a few helper functions.",
    "Implemented the new endpoint and wrote tests for it.",
    "Ran the full test suite, everything passed.",
    "Finished the migration work for today.",
    "What I did: 1) read the code 2) fixed the bug 3) opened a PR",
    "Just pushed the changes to the feature branch.",
    # status and progress
    "Started working on the ticket. Will update later.",
    "Step 1 done. Step 2 done.",
    "WIP",
    "Done.",
    "All tests pass now.",
    "Still debugging the login issue.",
    "Progress: 3 of 5 tasks complete.",
    "Currently investigating the memory leak.",
    "Working on it.",
    "Blocked on code review from the platform team.",
    "Status: in progress",
    "Almost done with the refactor, just the tests left.",
    "The build is green again.",
    "Task completed successfully.",
    # acknowledgements and greetings
    "thanks, that works!",
    "ok",
    "Got it.",
    "Sounds good!",
    "Hello! How can I help you today?",
    "Great, thanks a lot",
    "Perfect, that's exactly what I needed.",
    "You're right, my mistake.",
    "Understood, I'll do that.",
    "Sure thing.",
    "Good morning!",
    # thinking aloud
    "hmm let me think about this",
    "Let me check the logs first.",
    "I think the issue might be in the cache layer.",
    "Maybe it's a race condition?",
    "Wait, that doesn't look right.",
    "Interesting.",
    "Not sure why this fails.",
    "I wonder if the timeout is too short.",
    "Okay, so the problem seems to be somewhere in the serializer.",
    "Looking at the stack trace now.",
    # command output and log lines
    "2024-05-01 12:00:01,123 ERROR [checkout] Payment declined for order 4411",
    "INFO:     Started server process [48213]",
    "===== 42 passed, 3 skipped in 12.31s =====",
    "npm WARN deprecated inflight@1.0.6: This module is not supported",
    "$ ls -la\ntotal 48\ndrwxr-xr-x  5 dev dev 4096 May  1 12:00 .",
    "On branch main\nYour branch is up to date with 'origin/main'.\nnothing to commit, working tree clean",
    "HTTP/1.1 500 Internal Server Error",
    "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\nKeyError: 'id'",
    "[2024-05-01T12:00:00Z] WARN retrying request (attempt 3/5)",
    "error: could not compile `core` due to 2 previous errors",
    "FAILED tests/test_api.py::test_create_order - AssertionError: assert 500 == 201",
    "Successfully installed requests-2.32.3 urllib3-2.2.1",
    "exit code 1",
    # questions
    "Should we use Redis for this?",
    "What's the port for the staging DB?",
    "Why does the test fail on CI but not locally?",
    "Is the cache invalidated when a user is deleted?",
    "Can you check whether the migration ran?",
    "How do I run the e2e tests?",
    # plans for later
    "I will refactor the auth module tomorrow.",
    "TODO: add tests for the export endpoint",
    "Next I'll look at the caching layer.",
    "Need to fix the flaky test later.",
    "Plan: 1. read the code 2. write a failing test 3. fix it",
    "We should probably migrate to Postgres at some point.",
    "Going to try a different approach after lunch.",
    "Will revisit the error handling once the API is stable.",
]


def _fake(*parts: str) -> str:
    return "".join(parts)


def secret_writes() -> list[tuple[str, str]]:
    """(kind, write) for each kind of secret the gate covers: obviously fake values, correctly shaped."""
    hexes = "0123456789abcdef"
    alnum = "aB3dE5fG7hJ9kL2mN4pQ6rS8tV1wX3yZ5"
    return [
        ("AWS access key", _fake("Deploy user key id is AKIA", "EXAMPLEFAKE12345")),
        ("AWS secret key", _fake("aws_secret_access_key = ", "wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYFAKEKEY000")),
        (
            "Azure storage key",
            _fake("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=", "Fa1e" * 21, "kk=="),
        ),
        (
            "GCP service account key",
            _fake('{"type": "service_account", "private_key_id": "', hexes * 2, hexes[:8], '"}'),
        ),
        ("Google API key", _fake("Maps key: AIza", "SyFAKE", alnum[:29])),
        ("GitHub token", _fake("use ghp_", alnum, "abc", " to push")),
        ("GitLab token", _fake("GITLAB_TOKEN=glpat-", alnum[:20])),
        ("npm token", _fake("//registry.npmjs.org/:_authToken=npm_", alnum, "abc")),
        ("PyPI token", _fake("twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmc", "F" * 60)),
        ("Hugging Face token", _fake("HF_TOKEN is hf_", alnum)),
        ("Stripe key", _fake("stripe key sk_live_", alnum[:24])),
        ("SendGrid API key", _fake("SG.", alnum[:22], ".", alnum, alnum[:10])),
        ("Slack token", _fake("bot token xoxb-", "123456789012-1234567890123-", alnum[:24])),
        ("Twilio key", _fake("twilio api key SK", hexes * 2)),
        ("Mailgun key", _fake("mailgun: key-", hexes * 2)),
        ("DigitalOcean token", _fake("doctl auth init -t dop_v1_", hexes * 4)),
        ("Heroku API key", _fake("HEROKU_API_KEY=", "01234567-89ab-cdef-", "0123-456789abcdef")),
        ("OpenAI API key", _fake("OPENAI_API_KEY=sk-proj-", alnum, "FAKE")),
        ("Anthropic API key", _fake("the anthropic key is sk-ant-api03-", alnum)),
        ("JWT", _fake("eyJhbGciOiJIUzI1NiJ9", ".eyJzdWIiOiJmYWtlIn0", ".", alnum)),
        (
            "private key",
            _fake(
                "-----BEGIN OPENSSH PRIVATE ",
                "KEY-----\nb3BlbnNzaC1rZXktdjEAAAA",
                "\n-----END OPENSSH PRIVATE KEY-----",
            ),
        ),
        ("framework secret key", _fake("SECRET_KEY = 'django-insecure-", "k3j4h5g6f7d8s9a0q1w2", "'")),
        ("password on a command line", _fake("mysql -u root -p", "Tr0ub4dor&3 app")),
        ("password on a command line", _fake("docker login -u ci -p ", "Fak3Passw0rd registry.example.com")),
        ("Authorization header", _fake("Authorization: Basic ", "ZmFrZTpmYWtlcGFzcw==")),
        ("password in plain text", _fake("the prod database password is hunter2-", "fake-9")),
        ("password in a URL", _fake("DATABASE_URL=postgres://app:", "S3cr3tFake", "@db:5432/app")),
    ]
