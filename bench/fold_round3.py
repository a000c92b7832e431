# ruff: noqa: E501 -- prose data: one sentence a line reads better than a wrapped one
"""Round three of the fold set: a stored fact, then a second write that either adds a detail or says the same.

Written blind to the gate's rules and to the earlier sets' sentences, across six domains (infrastructure, mobile,
data science, finance, personal preferences, web back ends). Each stored sentence is used twice: once with a
write that adds a detail the stored one lacks (`kind` "adds": a list item, a qualifier, a number, a name, a
condition, a negation; `detail` is a piece of the write that must be in the store afterwards), and once with a
write that adds nothing (`kind` "same": a repeat, a reorder, synonyms, another phrasing), which should fold as a
duplicate.

The split was fixed with the data, before any measurement: within each domain the stored sentences alternate in
the order written here, the first (with both of its pairs) to `dev`, the second to `held_out`, and so on, so no
stored sentence is in both halves. `python -m bench updates --set round3 --half dev|held_out` measures one half
through a live server.
"""

from __future__ import annotations

from dataclasses import dataclass

HALVES = ("dev", "held_out")


@dataclass(frozen=True)
class FoldPair:
    key: str  # "<domain>.<n>.<kind>"
    domain: str
    kind: str  # "adds" | "same"
    stored: str
    write: str
    detail: str = ""  # for "adds": a piece of `write` that `stored` lacks

    @property
    def adds_detail(self) -> bool:
        return self.kind == "adds"


# (stored, the write that adds a detail, the detail, the write that says the same)
# fmt: off
_ROWS: dict[str, list[tuple[str, str, str, str]]] = {
    "infra": [
        ("The nightly backup job writes to s3://ops-backups.",
         "The nightly backup job writes to s3://ops-backups, and a copy goes to the GCS bucket ops-backups-dr.",
         "ops-backups-dr", "Nightly backups get written to s3://ops-backups."),
        ("Karpenter provisions nodes for the batch queue.", "Karpenter provisions spot nodes for the batch queue.",
         "spot", "Nodes for the batch queue are provisioned by Karpenter."),
        ("Alerts for disk usage fire at 80%.", "Alerts for disk usage fire at 80% on the database hosts only.",
         "database hosts only", "Disk usage alerts trigger at 80%."),
        ("The ingress controller terminates TLS.",
         "The ingress controller terminates TLS and enforces HSTS with a one-year max-age.",
         "HSTS", "TLS is terminated at the ingress controller."),
        ("We run three etcd members.", "We run three etcd members, each in a different availability zone.",
         "availability zone", "We run three etcd members."),
        ("Terraform plans run on every pull request.",
         "Terraform plans run on every pull request, and applies run only from main after an approval.",
         "approval", "Every pull request gets a Terraform plan."),
        ("Grafana is reachable at grafana.ops.internal.",
         "Grafana is reachable at grafana.ops.internal over the VPN, not from the public internet.",
         "not from the public internet", "grafana.ops.internal is where Grafana can be reached."),
        ("Node pools use Bottlerocket.", "Node pools use Bottlerocket 1.19.", "1.19", "node pools use bottlerocket"),
        ("The log pipeline drops debug lines.", "The log pipeline drops debug lines except from the payments namespace.",
         "payments namespace", "Debug-level log lines are dropped by the log pipeline."),
        ("Backups are encrypted with KMS.", "Backups are encrypted with the KMS key alias/backup-2025.",
         "alias/backup-2025", "Backups are encrypted using KMS."),
    ],
    "mobile": [
        ("The iOS app uses Swift Package Manager.",
         "The iOS app uses Swift Package Manager, except for the Adyen SDK, which still comes from CocoaPods.",
         "CocoaPods", "The iOS app relies on Swift Package Manager."),
        ("Push tokens are refreshed at app start.", "Push tokens are refreshed at app start and after every login.",
         "after every login", "At app start, the push token gets refreshed."),
        ("Release builds are minified with R8.", "Release builds are minified with R8 in full mode.",
         "full mode", "R8 minifies the release builds."),
        ("The app caches images for a week.", "The app caches images for a week, up to 200 MB.",
         "200 MB", "Images are cached by the app for seven days."),
        ("Screenshots for the stores are generated with fastlane snapshot.",
         "Screenshots for the stores are generated with fastlane snapshot in English, German and Japanese.",
         "Japanese", "The store screenshots are produced by fastlane snapshot."),
        ("Biometric login is offered after the first sign-in.",
         "Biometric login is offered after the first sign-in, but not on rooted or jailbroken devices.",
         "jailbroken", "Biometric login is offered after the first sign-in."),
        ("Crash reports include the last 50 breadcrumbs.",
         "Crash reports include the last 50 breadcrumbs and the current screen name.",
         "screen name", "The last 50 breadcrumbs are attached to crash reports."),
        ("The onboarding flow has three screens.", "The onboarding flow has three screens on iPhone.",
         "on iPhone", "Onboarding consists of 3 screens."),
        ("Analytics events are batched.", "Analytics events are batched every 30 seconds.",
         "30 seconds", "Analytics events get sent in batches."),
        ("Deep links open the booking screen.",
         "Deep links open the booking screen, or the login screen first if the session expired.",
         "session expired", "Opening a deep link takes the user to the booking screen."),
    ],
    "data": [
        ("The churn model is retrained monthly.", "The churn model is retrained monthly, on the first Sunday.",
         "first Sunday", "Every month the churn model gets retrained."),
        ("Feature importance is computed with SHAP.",
         "Feature importance is computed with SHAP on a 10,000-row sample.",
         "10,000-row sample", "We use SHAP to compute feature importance."),
        ("The training set excludes test accounts.",
         "The training set excludes test accounts and accounts younger than 30 days.",
         "younger than 30 days", "Test accounts are left out of the training set."),
        ("Predictions are written to BigQuery.", "Predictions are written to BigQuery, partitioned by day.",
         "partitioned by day", "Predictions are written to BigQuery."),
        ("We evaluate the classifier with AUC.", "We evaluate the classifier with AUC and log loss.",
         "log loss", "The classifier's evaluation uses AUC."),
        ("The embeddings come from a sentence-transformers model.",
         "The embeddings come from the all-mpnet-base-v2 sentence-transformers model.",
         "all-mpnet-base-v2", "A sentence-transformers model produces the embeddings."),
        ("Null prices are imputed with the category median.",
         "Null prices are imputed with the category median, except in new categories, which get the global median.",
         "global median", "Missing prices get filled with the median of their category."),
        ("The sales dashboard refreshes hourly.", "The sales dashboard refreshes hourly during business hours.",
         "business hours", "The sales dashboard refreshes every hour."),
        ("The notebook server runs JupyterLab.", "The notebook server runs JupyterLab 4 with the jupyter-ai extension.",
         "jupyter-ai", "JupyterLab is what runs on the notebook server."),
        ("Labels come from the support ticket system.",
         "Labels come from the support ticket system and are not reviewed by a human.",
         "not reviewed", "The labels are taken from the support ticketing system."),
    ],
    "finance": [
        ("Invoices are due within 30 days.", "Invoices are due within 30 days, or 14 days for new customers.",
         "14 days", "Payment terms on invoices are 30 days."),
        ("Refunds are approved by the finance lead.", "Refunds over EUR 1,000 are approved by the finance lead.",
         "1,000", "The finance lead approves refunds."),
        ("We pay suppliers by SEPA transfer.", "We pay suppliers by SEPA transfer, and US suppliers by ACH.",
         "ACH", "Suppliers get paid via SEPA transfer."),
        ("Expense reports are submitted in Pleo.", "Expense reports are submitted in Pleo with a photo of the receipt.",
         "photo of the receipt", "Expense reports go in through Pleo."),
        ("The FX rate is fixed at booking time.", "The FX rate is fixed at booking time, not at payment time.",
         "not at payment time", "The FX rate is fixed at booking time."),
        ("Quarterly VAT returns are filed by the tax advisor.",
         "Quarterly VAT returns are filed by the tax advisor, Weber & Partner.",
         "Weber & Partner", "The tax advisor files our quarterly VAT returns."),
        ("Credit notes reference the original invoice.",
         "Credit notes reference the original invoice's number and its date.",
         "its date", "Every credit note refers back to the original invoice."),
        ("Late payments trigger a reminder email.",
         "Late payments trigger a reminder email after 7 days and a second one after 21.",
         "after 21", "A reminder email goes out when a payment is late."),
        ("Revenue is recognised monthly.", "Subscription revenue is recognised monthly.",
         "Subscription", "Revenue gets recognized on a monthly basis."),
        ("The budget is reviewed by the CFO.", "The budget is reviewed by the CFO and the board every quarter.",
         "board", "The CFO reviews the budget."),
    ],
    "personal": [
        ("I prefer dark themes in every app.", "I prefer dark themes in every app except the terminal, which I keep light.",
         "terminal", "Dark themes everywhere, please: that's my preference in every app."),
        ("The user likes short answers.", "The user likes short answers with a code sample first.",
         "code sample first", "The user prefers brief answers."),
        ("My standup is at 9:45.", "My standup is at 9:45 on weekdays except Friday.",
         "except Friday", "Standup for me is at 09:45."),
        ("I use pnpm for JavaScript projects.",
         "I use pnpm for JavaScript projects, with the workspace protocol for monorepos.",
         "workspace protocol", "For JavaScript projects I use pnpm."),
        ("The user works from home on Mondays.", "The user works from home on Mondays and Fridays.",
         "Fridays", "On Mondays the user works from home."),
        ("I back up my laptop with Time Machine.", "I back up my laptop with Time Machine and to Backblaze B2.",
         "Backblaze", "I back up my laptop with Time Machine."),
        ("I want type hints in Python code.", "I want type hints in Python code, checked with pyright in strict mode.",
         "pyright", "Python code should have type hints, I want them."),
        ("The user reads documentation offline.", "The user reads documentation offline in Dash.",
         "in Dash", "The user reads docs offline."),
        ("Call me Rita.", "Call me Rita, not Margarida.", "Margarida", "Please call me Rita."),
        ("I run tests with pytest.", "I run tests with pytest -x --ff.", "--ff", "Tests: I run them with pytest."),
    ],
    "web": [
        ("The API returns errors as JSON.", "The API returns errors as JSON with a request id.",
         "request id", "Errors from the API come back as JSON."),
        ("Sessions expire after 30 minutes.", "Sessions expire after 30 minutes of inactivity, or 12 hours at most.",
         "12 hours", "Sessions expire after half an hour."),
        ("Uploads are limited to 10 MB.", "Uploads are limited to 10 MB for images and 100 MB for videos.",
         "100 MB", "There's a 10 MB limit on uploads."),
        ("The search endpoint is cached.", "The search endpoint is cached for 60 seconds in Varnish.",
         "Varnish", "Responses of the search endpoint are cached."),
        ("User emails are lowercased before saving.", "User emails are lowercased and trimmed before saving.",
         "trimmed", "Before saving, user emails get lowercased."),
        ("The cron job cleans up expired tokens.", "The cron job cleans up expired tokens every night at 03:00.",
         "03:00", "Expired tokens are cleaned up by the cron job."),
        ("Passwords are hashed with Argon2.", "Passwords are hashed with Argon2id using 64 MB of memory.",
         "64 MB", "Passwords are hashed with Argon2."),
        ("The admin panel is behind SSO.", "The admin panel is behind SSO and an IP allowlist.",
         "IP allowlist", "The admin panel sits behind SSO."),
        ("GraphQL queries have a depth limit.", "GraphQL queries have a depth limit of 8.",
         "limit of 8", "A depth limit applies to GraphQL queries."),
        ("Webhooks are retried on failure.", "Webhooks are retried on failure, up to 5 times with exponential backoff.",
         "5 times", "Failed webhooks get retried."),
    ],
}
# fmt: on


def _pairs() -> tuple[FoldPair, ...]:
    pairs: list[FoldPair] = []
    for domain, rows in _ROWS.items():
        for n, (stored, adds, detail, same) in enumerate(rows):
            pairs.append(FoldPair(f"{domain}.{n}.adds", domain, "adds", stored, adds, detail))
            pairs.append(FoldPair(f"{domain}.{n}.same", domain, "same", stored, same))
    return tuple(pairs)


PAIRS: tuple[FoldPair, ...] = _pairs()


def pair_half(pair: FoldPair) -> str:
    """Within each domain, the stored sentences alternate: the first (both its pairs) to dev, the second to
    held_out, and so on."""
    return HALVES[int(pair.key.split(".")[1]) % 2]


def half(name: str) -> tuple[FoldPair, ...]:
    if name not in HALVES:
        raise ValueError(f"no half named {name!r}; the halves are {HALVES}")
    return tuple(p for p in PAIRS if pair_half(p) == name)
