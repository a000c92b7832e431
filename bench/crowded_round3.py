# ruff: noqa: E501 -- prose data: one sentence a line reads better than a wrapped one
"""Round three of the crowded store: five projects and the user's own facts, then the writes that change them.

Written blind to the gate's rules and to the earlier sets' sentences, in the voices agents and people use: an
agent's third person ("Keelson's CI runs ..."), the user's first person ("I moved to ..."), terse notes
("targetSdk is 34."), long sentences, and the vocabularies of infrastructure (Keelson), a mobile app (Wayfarer),
data science (Almanac), finance (Coffer), device firmware (Ember) and personal preferences (the globals).

- `FACTS`: what the store holds (about fifty per project, about thirty of the user's own, project None).
- `CHANGES`: each replaces exactly one stored fact, named by `replaces`; `cue` says whether the text says that
  something changed ("moved", "now", "no longer", "was upgraded") or only gives the new value.
- `ADDITIONS`: new facts that replace nothing, though they use change words ("also", "now", "started",
  "switched on", "moved", "upgraded", "migrated") and the stored facts' names.

The split was fixed with the data, before any measurement: within each scope (a project, or the globals) the
facts alternate in the order written here, the first to `dev`, the second to `held_out`, and so on; a change goes
with the half of the fact it replaces; the additions alternate the same way within their scope. A half's store
still holds every fact (the crowd is the point): `half(name)` gives all the facts, and that half's changes and
additions. `python -m bench updates --set round3 --half dev|held_out` measures one half through a live server.
"""

from __future__ import annotations

from bench.crowded_set import Addition, Change, CrowdedHalf, Fact

GLOBAL = "me"  # the key prefix of the user's own facts (project None)

# project slug -> the product name its facts use
PRODUCTS = {
    "keelson": "Keelson",
    "wayfarer": "Wayfarer",
    "almanac": "Almanac",
    "coffer": "Coffer",
    "ember": "Ember",
}


def _scope(prefix: str) -> str | None:
    return None if prefix == GLOBAL else prefix


def _facts(prefix: str, rows: list[tuple[str, str, str]]) -> list[Fact]:
    return [Fact(f"{prefix}.{name}", _scope(prefix), text, question) for name, text, question in rows]


def _changes(prefix: str, rows: list[tuple[str, str, bool, str, str]]) -> list[Change]:
    return [
        Change(f"{prefix}.{name}", _scope(prefix), text, f"{prefix}.{replaces}", cue, question)
        for name, replaces, cue, text, question in rows
    ]


def _additions(prefix: str, rows: list[tuple[str, str, str]]) -> list[Addition]:
    return [Addition(f"{prefix}.{name}", _scope(prefix), text, question) for name, text, question in rows]


CUE, NOCUE = True, False

# fmt: off
# ---------------------------------------------------------------------------------------------------------------
# Keelson: the internal platform (AWS, Kubernetes, Terraform, observability).

_KEELSON = _facts("keelson", [
    ("prod-k8s", "The production EKS cluster runs Kubernetes 1.28.",
     "Which Kubernetes version is the production cluster on?"),
    ("stg-k8s", "Staging EKS is on Kubernetes 1.29, one minor ahead of prod so every upgrade gets a soak period there first.",
     "What Kubernetes version does staging run?"),
    ("tf-version", "Terraform for Keelson is pinned to 1.6.6 in .terraform-version.", "Which Terraform version is pinned?"),
    ("tf-state", "Terraform state lives in the S3 bucket keelson-tfstate with DynamoDB locking (table tf-locks).",
     "Where is Terraform state stored?"),
    ("region-primary", "Primary AWS region is us-east-2.", "Which AWS region is primary?"),
    ("region-dr", "Disaster recovery copies go to us-west-2.", "Where do disaster recovery copies go?"),
    ("ingress", "Ingress is handled by ingress-nginx behind an NLB.", "What handles ingress?"),
    ("certs", "TLS certificates are issued by cert-manager using Let's Encrypt DNS-01 challenges through Route 53.",
     "How are TLS certificates issued?"),
    ("secrets", "Secrets are synced from AWS Secrets Manager into pods with the External Secrets Operator.",
     "How do secrets get into pods?"),
    ("gitops", "Argo CD deploys everything from the keelson-gitops repo; nobody should kubectl apply by hand.",
     "What deploys to the clusters?"),
    ("metrics", "Metrics go to a self-hosted Prometheus with 15 days of retention.", "How long are Prometheus metrics kept?"),
    ("longterm-metrics", "Long-term metrics are shipped to Thanos and kept for 13 months.",
     "Where are long-term metrics kept?"),
    ("logs", "Container logs are collected by Fluent Bit and sent to OpenSearch.", "What collects container logs?"),
    ("oncall-tool", "On-call paging goes through PagerDuty, schedule 'platform-primary'.", "Which tool pages on-call?"),
    ("oncall-rotation", "The platform on-call rotation is one week long and hands over on Tuesdays at 10:00.",
     "When does the on-call rotation hand over?"),
    ("node-type-prod", "Prod general node group uses m6i.2xlarge instances.",
     "Which instance type do the prod general nodes use?"),
    ("node-type-stg", "Staging nodes are t3.xlarge.", "What instance type are the staging nodes?"),
    ("autoscaler", "Cluster node autoscaling is done by Karpenter.", "What scales the cluster's nodes?"),
    ("prod-min-nodes", "The prod cluster never drops below 6 nodes; the floor is set in Karpenter's general provisioner.",
     "What is the minimum node count in prod?"),
    ("dns", "Internal DNS zone is keelson.internal, hosted in Route 53 private zones.", "What is the internal DNS zone?"),
    ("vpn", "Engineers reach private endpoints through Tailscale.", "How do engineers reach private endpoints?"),
    ("bastion", "There is still one SSH bastion, bastion-a.keelson.internal, for break-glass access only.",
     "How do we get break-glass access?"),
    ("registry", "Container images are stored in ECR, one repository per service.", "Where are container images stored?"),
    ("image-scan", "Images are scanned with Trivy in CI and the build fails on critical CVEs.", "How are images scanned?"),
    ("ci", "Keelson's CI runs on GitHub Actions with self-hosted runners in the tools account.", "Where does CI run?"),
    ("runner-size", "The self-hosted runners are c6i.4xlarge spot instances.", "What instance size are the CI runners?"),
    ("db-engine", "The shared relational database is Aurora PostgreSQL 15.", "Which Postgres engine and version is shared?"),
    ("db-backups", "Aurora snapshots are kept for 35 days.", "How long are Aurora snapshots kept?"),
    ("redis", "ElastiCache Redis 7 in cluster mode holds sessions and rate-limit counters.",
     "What holds sessions and rate-limit counters?"),
    ("queue", "Async jobs go through SQS; each service owns its own queues.", "What queue service do async jobs use?"),
    ("owner-networking", "Rui owns networking: the VPCs, the Transit Gateway and peering.", "Who owns networking?"),
    ("owner-observability", "The observability stack is owned by Hana.", "Who owns the observability stack?"),
    ("cost-budget", "The monthly AWS budget alert fires at $42,000.", "At what amount does the AWS budget alert fire?"),
    ("tagging", "Every AWS resource must carry the tags team, env and cost-center, enforced by an SCP.",
     "Which tags are required on AWS resources?"),
    ("mesh", "No service mesh: mTLS between services was judged not worth Istio's operational cost.",
     "Do we use a service mesh?"),
    ("helm", "Services are packaged with one shared Helm chart, keelson-service, currently version 4.2.",
     "Which version is the shared Helm chart?"),
    ("change-freeze", "There is a change freeze every year from December 20 to January 3.", "When is the change freeze?"),
    ("maint-window", "Planned maintenance window: Thursdays 06:00-08:00 UTC.", "When is the planned maintenance window?"),
    ("pod-security", "Pods run under the restricted Pod Security Standard in every namespace except kube-system.",
     "Which pod security standard applies?"),
    ("sso", "AWS console access goes through IAM Identity Center with Okta as the identity provider.",
     "How do people log into the AWS console?"),
    ("accounts", "The AWS organization has 14 accounts, one per environment per business unit.",
     "How many AWS accounts are in the organization?"),
    ("runbooks", "Runbooks live in the Backstage TechDocs site under /docs/platform.", "Where are the runbooks?"),
    ("slo-api", "The edge gateway's availability SLO is 99.95% over 30 days.", "What is the edge gateway's availability SLO?"),
    ("gateway", "The edge API gateway is Kong, running in DB-less mode.", "Which API gateway sits at the edge?"),
    ("cdn", "Static assets are served through CloudFront.", "What CDN serves static assets?"),
    ("waf", "AWS WAF sits in front of CloudFront with the managed core rule set.", "Which WAF protects the CDN?"),
    ("preview", "Developers get ephemeral preview environments as vclusters inside the staging cluster.",
     "How do developers get preview environments?"),
    ("preview-ttl", "Preview environments are deleted after 72 hours without a push.",
     "When are idle preview environments deleted?"),
    ("base-image", "The standard base image is distroless/static for Go services and python:3.12-slim for Python ones.",
     "Which base images are standard?"),
    ("incident-channel", "Incidents are coordinated in the Slack channel #inc-platform.", "Where are incidents coordinated?"),
])

_KEELSON_CHANGES = _changes("keelson", [
    ("c-prod-k8s", "prod-k8s", CUE, "Prod EKS was upgraded to Kubernetes 1.29 last night.",
     "Which Kubernetes version is the production cluster on?"),
    ("c-tf-version", "tf-version", NOCUE, "Terraform is pinned to 1.7.5 for Keelson (.terraform-version).",
     "Which Terraform version is pinned?"),
    ("c-oncall-rotation", "oncall-rotation", CUE, "On-call handover moved from Tuesday to Monday, still at 10:00.",
     "When does the on-call rotation hand over?"),
    ("c-node-type-prod", "node-type-prod", CUE,
     "We switched the prod general node group from m6i.2xlarge to m7i.2xlarge.",
     "Which instance type do the prod general nodes use?"),
    ("c-logs", "logs", NOCUE, "Container logs are collected by Vector and shipped to OpenSearch.",
     "What collects container logs?"),
    ("c-owner-observability", "owner-observability", CUE,
     "Hana handed the observability stack over to Tomasz; he owns it now.", "Who owns the observability stack?"),
    ("c-cost-budget", "cost-budget", NOCUE, "AWS budget alert threshold: $48,000 a month.",
     "At what amount does the AWS budget alert fire?"),
    ("c-maint-window", "maint-window", CUE, "Maintenance window is now Wednesdays 05:00-07:00 UTC instead of Thursdays.",
     "When is the planned maintenance window?"),
    ("c-helm", "helm", NOCUE, "The shared keelson-service Helm chart is at version 5.0.",
     "Which version is the shared Helm chart?"),
    ("c-metrics", "metrics", CUE, "Prometheus retention was cut from 15 to 7 days to save disk.",
     "How long are Prometheus metrics kept?"),
    ("c-bastion", "bastion", CUE,
     "bastion-a was decommissioned; break-glass access goes through SSM Session Manager from now on.",
     "How do we get break-glass access?"),
    ("c-preview-ttl", "preview-ttl", NOCUE, "Preview environments get deleted after 48 hours with no push.",
     "When are idle preview environments deleted?"),
    ("c-runner-size", "runner-size", NOCUE, "The self-hosted CI runners are c7i.4xlarge spot instances.",
     "What instance size are the CI runners?"),
])

_KEELSON_ADDITIONS = _additions("keelson", [
    ("a-gpu-pool", "Keelson now also runs a second Karpenter node pool for GPU workloads, on g5.xlarge.",
     "Is there a node pool for GPU workloads?"),
    ("a-audit-logs", "We started sending Kubernetes audit logs to S3 with one year of retention.",
     "Where do Kubernetes audit logs go?"),
    ("a-two-approvals", "Since the SOC 2 audit, Argo CD also requires two approvals for syncs to prod.",
     "How many approvals does a prod sync need?"),
    ("a-flow-logs", "Switched on VPC flow logs for the prod VPC.", "Are VPC flow logs enabled?"),
    ("a-dashboards", "Moved the Grafana dashboards into the keelson-gitops repo as JSON so they are versioned.",
     "Where are the Grafana dashboards defined?"),
    ("a-jenkins", "The team migrated the last Jenkins job (the nightly AMI bake) to Actions and shut Jenkins down.",
     "Where does the nightly AMI bake run?"),
    ("a-staging-pager", "New: staging has its own PagerDuty schedule, platform-staging, paging only in business hours.",
     "Which PagerDuty schedule covers staging?"),
    ("a-cert-manager", "Upgraded cert-manager to 1.14 on both clusters.", "Which cert-manager version runs?"),
    ("a-tgw-review", "Rui also took over the quarterly Transit Gateway cost review.",
     "Who does the quarterly Transit Gateway cost review?"),
])

# ---------------------------------------------------------------------------------------------------------------
# Wayfarer: a travel booking app on iOS and Android.

_WAYFARER = _facts("wayfarer", [
    ("ios-min", "Wayfarer's iOS app supports iOS 16 and later.", "What is the minimum iOS version?"),
    ("android-min", "The Android app's minSdk is 26 (Android 8.0).", "What is the Android minSdk?"),
    ("ios-lang", "The iOS client is written in Swift, with SwiftUI for all new screens.", "What is the iOS app written in?"),
    ("android-ui", "Android is Kotlin with Jetpack Compose.", "What UI toolkit does the Android app use?"),
    ("shared", "Booking logic is shared between the platforms through a Kotlin Multiplatform module called wayfarer-core.",
     "How is booking logic shared between platforms?"),
    ("ios-ci", "iOS builds run on Bitrise.", "Where do iOS builds run?"),
    ("android-ci", "Android builds run on GitHub Actions.", "Where do Android builds run?"),
    ("release-train", "We ship a release train every two weeks, cut on Monday mornings.", "How often is a release cut?"),
    ("phased", "App Store releases use the 7-day phased rollout.", "How are App Store releases rolled out?"),
    ("play-rollout", "On Google Play the staged rollout starts at 10% of users.",
     "At what percentage does the Play staged rollout start?"),
    ("crash", "Crash reporting is Sentry for both apps.", "What tool reports crashes?"),
    ("crash-free-goal", "Target crash-free sessions rate: 99.8%.", "What is the crash-free sessions target?"),
    ("analytics", "Product analytics events go to Amplitude.", "Where do product analytics events go?"),
    ("flags", "Feature flags come from LaunchDarkly.", "Which feature flag service do the apps use?"),
    ("api-base", "The apps talk to api.wayfarer.travel/v3.", "Which API base URL do the apps use?"),
    ("api-timeout", "The network timeout for booking calls in the apps is 20 seconds.",
     "What is the network timeout for booking calls?"),
    ("push", "Push notifications are sent through OneSignal.", "How are push notifications sent?"),
    ("deeplinks", "Deep links use the wayfarer:// scheme plus universal links on wayfarer.travel/go.",
     "What scheme do deep links use?"),
    ("ios-lead", "Mei leads the iOS team.", "Who leads the iOS team?"),
    ("android-lead", "Android lead: Oskar.", "Who leads Android?"),
    ("design", "Designs live in Figma, in the file 'Wayfarer App 2025'.", "Where are the app designs?"),
    ("design-system", "The in-app design system is called Compass; its tokens are exported from Figma with Style Dictionary.",
     "What is the design system called?"),
    ("maps", "Maps use Mapbox on both platforms.", "Which map SDK do the apps use?"),
    ("payments", "In-app card payments go through Adyen's drop-in component.",
     "Which provider handles card payments in the app?"),
    ("wallets", "Apple Pay is offered on iOS and Google Pay on Android.", "Which wallets are offered?"),
    ("offline", "Trip itineraries are cached offline in SQLite through SQLDelight.", "How are itineraries cached offline?"),
    ("locales", "The app is localized into 9 languages; strings are managed in Lokalise.",
     "How many languages is the app localized into?"),
    ("xcode", "The iOS project needs Xcode 15.4.", "Which Xcode version does the iOS project need?"),
    ("gradle", "Android uses Gradle 8.7 with the version catalog in gradle/libs.versions.toml.",
     "Which Gradle version does Android use?"),
    ("agp", "Android Gradle Plugin is 8.5.0.", "Which Android Gradle Plugin version?"),
    ("signing", "iOS signing is managed with fastlane match; the certificates sit in a private git repo.",
     "How is iOS code signing managed?"),
    ("testflight", "Internal testers get builds through TestFlight; the external beta group is 'Wayfarer Insiders'.",
     "How do iOS testers get builds?"),
    ("android-beta", "Android beta testers use the Play Console closed testing track.",
     "How do Android beta testers get builds?"),
    ("ios-ui-tests", "iOS UI tests use XCUITest and run on iPhone 15 simulators.", "Which simulators run the iOS UI tests?"),
    ("android-ui-tests", "Android UI tests are written as Maestro flows.", "What are Android UI tests written with?"),
    ("app-size", "The Android download size budget is 30 MB.", "What is the Android download size budget?"),
    ("ratings", "The App Store rating is 4.6 and the Play Store rating is 4.3.", "What are the store ratings?"),
    ("support", "In-app support chat is Intercom.", "What powers in-app support chat?"),
    ("login", "Login supports email magic links and Sign in with Apple, plus Google sign-in on Android.",
     "Which login methods exist?"),
    ("token-ttl", "Access tokens in the app expire after 15 minutes; refresh tokens after 30 days.",
     "When do access tokens expire in the app?"),
    ("dark-mode", "Dark mode follows the system setting; there is no in-app toggle.", "Is there a dark mode toggle?"),
    ("dynamic-type", "Dynamic Type is supported up to the AX3 size on iOS.", "Up to which Dynamic Type size is supported?"),
    ("cold-start", "Cold start on a Pixel 6 takes about 1.4 s.", "How long is the cold start on a Pixel 6?"),
    ("images", "Images load with Coil on Android and Kingfisher on iOS.", "Which image loading libraries are used?"),
    ("di", "Android dependency injection uses Hilt.", "What dependency injection library does Android use?"),
    ("arch", "Screens follow MVVM with unidirectional state; each ViewModel exposes a single StateFlow.",
     "What architecture do screens follow?"),
    ("store-account", "The App Store Connect account belongs to Wayfarer Travel GmbH.",
     "Who owns the App Store Connect account?"),
    ("hotfix", "Hotfixes skip the train and need sign-off from the release captain of the week.",
     "Who signs off a hotfix?"),
    ("target-sdk", "targetSdk is 34.", "What is the Android targetSdk?"),
    ("tablet", "There is no tablet layout; the iPad runs the iPhone layout scaled up.", "Is there a tablet layout?"),
])

_WAYFARER_CHANGES = _changes("wayfarer", [
    ("c-ios-min", "ios-min", CUE, "We dropped iOS 16; Wayfarer now requires iOS 17 or later.",
     "What is the minimum iOS version?"),
    ("c-android-ci", "android-ci", NOCUE, "Android builds run on Bitrise.", "Where do Android builds run?"),
    ("c-release-train", "release-train", CUE, "The release train went from every two weeks to weekly, still cut on Mondays.",
     "How often is a release cut?"),
    ("c-crash", "crash", NOCUE, "Crash reporting for both apps: Firebase Crashlytics.", "What tool reports crashes?"),
    ("c-flags", "flags", CUE, "Feature flags moved off LaunchDarkly to Statsig.",
     "Which feature flag service do the apps use?"),
    ("c-api-timeout", "api-timeout", NOCUE, "Booking calls in the apps time out after 30 seconds.",
     "What is the network timeout for booking calls?"),
    ("c-android-lead", "android-lead", CUE, "Oskar left the company; Android is now led by Chiara.", "Who leads Android?"),
    ("c-gradle", "gradle", NOCUE, "Android builds with Gradle 8.9 (version catalog in gradle/libs.versions.toml).",
     "Which Gradle version does Android use?"),
    ("c-push", "push", CUE, "Push notifications were migrated from OneSignal to Firebase Cloud Messaging.",
     "How are push notifications sent?"),
    ("c-app-size", "app-size", NOCUE, "Android download size budget: 35 MB.", "What is the Android download size budget?"),
    ("c-support", "support", CUE, "In-app support chat switched from Intercom to Zendesk messaging.",
     "What powers in-app support chat?"),
    ("c-target-sdk", "target-sdk", NOCUE, "targetSdk is 35.", "What is the Android targetSdk?"),
    ("c-token-ttl", "token-ttl", CUE,
     "Access tokens in the app now expire after 10 minutes instead of 15; refresh tokens are unchanged.",
     "When do access tokens expire in the app?"),
])

_WAYFARER_ADDITIONS = _additions("wayfarer", [
    ("a-live-activities", "Wayfarer now also supports Live Activities on iOS for flight status.",
     "Does the iOS app support Live Activities?"),
    ("a-wear", "Started a Wear OS companion app prototype; it lives in the wear/ module.", "Is there a Wear OS app?"),
    ("a-baseline-profiles", "Switched on Baseline Profiles for the Android release build.",
     "Are Baseline Profiles enabled on Android?"),
    ("a-paparazzi", "Added a screenshot test suite with Paparazzi for the Compose screens.",
     "What runs screenshot tests for Compose screens?"),
    ("a-tokens-repo", "The team moved the Compass design tokens into their own repo, compass-tokens, published as a package.",
     "Where do the Compass tokens live?"),
    ("a-mac", "The iOS app is now also available on Apple silicon Macs as a Designed for iPad app.",
     "Does the app run on Apple silicon Macs?"),
    ("a-reviews", "Since 5.12 the apps also show hotel reviews from Tripadvisor.", "Where do hotel reviews come from?"),
    ("a-kotlin", "Upgraded Kotlin to 2.0 and turned on the K2 compiler.", "Which Kotlin version do we use?"),
    ("a-a11y-check", "New rule: every new screen ships with a VoiceOver and TalkBack check in the PR template.",
     "What accessibility check does a new screen need?"),
])

# ---------------------------------------------------------------------------------------------------------------
# Almanac: demand forecasting (data science).

_ALMANAC = _facts("almanac", [
    ("purpose", "Almanac forecasts weekly demand per SKU per store for the replenishment team.",
     "What does Almanac forecast?"),
    ("model", "The production forecaster is a LightGBM model trained with quantile loss.",
     "What model is in production?"),
    ("baseline", "The baseline for comparison is seasonal naive (the same week last year).",
     "What baseline are models compared against?"),
    ("metric", "Models are compared on WAPE at the SKU-store-week level.", "Which metric compares models?"),
    ("wape-current", "Current production WAPE is 31.4% on the last 13 weeks.", "What is the current production WAPE?"),
    ("horizon", "Forecast horizon is 8 weeks.", "What is the forecast horizon?"),
    ("warehouse", "Training data comes from Snowflake, database ANALYTICS, schema DEMAND.",
     "Where does the training data come from?"),
    ("orchestrator", "Pipelines are orchestrated by Airflow 2.8 on MWAA.", "What orchestrates the pipelines?"),
    ("retrain-time", "The weekly retrain DAG runs Sundays at 02:00 UTC.", "When does the weekly retrain run?"),
    ("scoring", "Scoring runs daily at 05:30 UTC, after the POS load lands.", "When does scoring run?"),
    ("tracking", "Experiments are tracked in MLflow at mlflow.almanac.internal.", "Where are experiments tracked?"),
    ("registry", "Approved models are registered in the MLflow model registry as 'demand-lgbm'.",
     "Under which name is the model registered?"),
    ("features", "Features are built with dbt models in the almanac_features schema.", "How are features built?"),
    ("feature-count", "The current model uses 146 features.", "How many features does the model use?"),
    ("python", "The project is on Python 3.11, with uv for dependency locking.", "Which Python version is the project on?"),
    ("notebooks", "Exploration happens in Jupyter notebooks under notebooks/, which pipeline code never imports.",
     "Where do the exploration notebooks live?"),
    ("compute", "Training runs as a SageMaker job on ml.m5.4xlarge.", "What instance does training run on?"),
    ("train-duration", "A full retrain takes about 2 hours 40 minutes.", "How long does a full retrain take?"),
    ("backtest", "Backtests use a rolling origin with 6 folds of 4 weeks.", "How are backtests set up?"),
    ("stores", "The model covers 412 stores in Germany and Austria.", "How many stores does the model cover?"),
    ("skus", "About 38,000 active SKUs are forecast each week.", "How many SKUs are forecast?"),
    ("cold-start", "New SKUs with under 6 weeks of history get the category-level forecast.",
     "What forecast do new SKUs get?"),
    ("promo", "Promotion flags come from the pricing team's promo calendar, Snowflake table PROMO_CAL.",
     "Where do promotion flags come from?"),
    ("weather", "Weather features come from the DWD open data feed, daily.", "Where do weather features come from?"),
    ("holidays", "Public holidays come from the python-holidays package, per federal state.",
     "Where do public holidays come from?"),
    ("output", "Forecasts are written to the Snowflake table DEMAND.FORECAST_WEEKLY.", "Where are forecasts written?"),
    ("consumer", "SAP F&R, the replenishment system, reads the forecasts every morning.", "Which system reads the forecasts?"),
    ("drift", "Drift is monitored with Evidently reports posted to #almanac-monitoring.", "How is drift monitored?"),
    ("alert-threshold", "An alert fires if weekly WAPE goes above 38%.", "When does the WAPE alert fire?"),
    ("approver", "Farah is the model owner and approves every promotion to production.",
     "Who approves model promotions?"),
    ("analyst", "Jonas is the analyst contact on the replenishment side.", "Who is the analyst contact in replenishment?"),
    ("dashboards", "Forecast accuracy dashboards are in Tableau, workbook 'Almanac Accuracy'.",
     "Where are the accuracy dashboards?"),
    ("seed", "The random seed for training is fixed at 1234.", "What is the training seed?"),
    ("quantiles", "The model outputs the P10, P50 and P90 quantiles.", "Which quantiles does the model output?"),
    ("learning-rate", "Learning rate is 0.03 with 2,000 boosting rounds and early stopping at 100.",
     "What learning rate does the model use?"),
    ("leaves", "num_leaves is 127.", "What is num_leaves set to?"),
    ("outliers", "Sales above the 99.5th percentile per SKU are clipped before training.", "How are outliers handled?"),
    ("stockouts", "Weeks with a stockout are masked out of the training target.", "How are stockout weeks handled?"),
    ("repo", "The code lives in the almanac repo on GitLab, group data-science.", "Where does the code live?"),
    ("ci", "GitLab CI runs pytest and a 1% sample backtest on every merge request.",
     "What does CI run on a merge request?"),
    ("lint", "Lint and format with ruff; type checks with mypy in strict mode.", "Which linter does the project use?"),
    ("pos-contract", "The POS feed has a data contract: one row per store per SKU per day, loaded by 04:00 UTC.",
     "By when is the POS feed loaded?"),
    ("scratch", "Intermediate parquet files go to s3://almanac-scratch and expire after 14 days.",
     "When do scratch files expire?"),
    ("currency", "Revenue features are in EUR.", "What currency are revenue features in?"),
    ("weeks", "Weeks start on Monday (ISO weeks).", "On which day do weeks start?"),
    ("shap", "SHAP summaries are generated for each retrain and attached to the MLflow run.",
     "Where do the SHAP summaries go?"),
    ("model-card", "Model changes need a written model card update before promotion.",
     "What is needed before a model is promoted?"),
    ("cost", "Almanac's compute costs around EUR 2,300 a month.", "What does Almanac's compute cost per month?"),
    ("gpu", "No GPUs: everything fits on CPU.", "Does Almanac use GPUs?"),
    ("review-meeting", "The forecast review with replenishment is every other Thursday at 14:00.",
     "When is the forecast review meeting?"),
])

_ALMANAC_CHANGES = _changes("almanac", [
    ("c-model", "model", CUE, "Almanac's production forecaster was switched from LightGBM to CatBoost, still with quantile loss.",
     "What model is in production?"),
    ("c-wape-current", "wape-current", NOCUE, "Current production WAPE is 28.9% on the last 13 weeks.",
     "What is the current production WAPE?"),
    ("c-orchestrator", "orchestrator", CUE, "We migrated the pipelines from Airflow on MWAA to Dagster Cloud.",
     "What orchestrates the pipelines?"),
    ("c-retrain-time", "retrain-time", NOCUE, "The weekly retrain runs on Saturdays at 22:00 UTC.",
     "When does the weekly retrain run?"),
    ("c-horizon", "horizon", CUE, "Forecast horizon was extended from 8 to 12 weeks.", "What is the forecast horizon?"),
    ("c-stores", "stores", NOCUE, "The model covers 437 stores in Germany and Austria.",
     "How many stores does the model cover?"),
    ("c-approver", "approver", CUE, "Model promotions are now approved by Leon; Farah moved to the pricing team.",
     "Who approves model promotions?"),
    ("c-python", "python", NOCUE, "The project runs on Python 3.12, dependencies locked with uv.",
     "Which Python version is the project on?"),
    ("c-alert-threshold", "alert-threshold", CUE, "Raised the WAPE alert threshold to 40% (it was 38%).",
     "When does the WAPE alert fire?"),
    ("c-compute", "compute", NOCUE, "Training runs as a SageMaker job on ml.m5.8xlarge.",
     "What instance does training run on?"),
    ("c-tracking", "tracking", CUE,
     "Experiment tracking moved to Weights & Biases; the MLflow server is kept read-only for old runs.",
     "Where are experiments tracked?"),
    ("c-feature-count", "feature-count", NOCUE, "The current model uses 171 features.",
     "How many features does the model use?"),
    ("c-review-meeting", "review-meeting", CUE,
     "The forecast review with replenishment moved to every other Wednesday at 15:00.",
     "When is the forecast review meeting?"),
])

_ALMANAC_ADDITIONS = _additions("almanac", [
    ("a-fresh", "Almanac now also produces a daily forecast for fresh produce, from a separate model.",
     "Is there a daily forecast for fresh produce?"),
    ("a-bias", "Started showing forecast bias per category next to WAPE on the accuracy dashboard.",
     "Is forecast bias tracked?"),
    ("a-holiday-feature", "Added a holiday-proximity feature: days until the next public holiday.",
     "Is there a holiday proximity feature?"),
    ("a-query-tags", "Switched on Snowflake query tagging (tag almanac-pipeline) for every pipeline query so costs can be attributed.",
     "How are Snowflake costs attributed to the pipeline?"),
    ("a-backtest-table", "The team moved backtest results into a table of their own, DEMAND.BACKTEST_RUNS.",
     "Where are backtest results stored?"),
    ("a-p95", "Since the Q2 review the P95 quantile is also exported, for the safety-stock calculation.",
     "Which quantile feeds the safety-stock calculation?"),
    ("a-swiss", "New: a Switzerland pilot with 12 stores, forecast by a separate model run.",
     "Is there a pilot in Switzerland?"),
    ("a-dbt", "Upgraded dbt to 1.8 for the feature models.", "Which dbt version builds the features?"),
    ("a-exceptions", "Jonas now also sends the weekly exceptions list to the category managers.",
     "Who sends the weekly exceptions list?"),
])

# ---------------------------------------------------------------------------------------------------------------
# Coffer: bank reconciliation and treasury (finance).

_COFFER = _facts("coffer", [
    ("purpose", "Coffer reconciles bank statements against the general ledger for the finance team.",
     "What does Coffer do?"),
    ("erp", "The general ledger is NetSuite.", "Which ERP holds the general ledger?"),
    ("banks", "Statements come from three banks: Commerzbank, HSBC and JPMorgan.", "Which banks send statements?"),
    ("format", "Bank statements arrive as CAMT.053 XML files over SFTP.", "In what format do bank statements arrive?"),
    ("sftp", "The SFTP drop is sftp.coffer-fin.net, folder /inbound/statements.", "Where is the SFTP drop?"),
    ("import-time", "Statements are imported at 06:15 CET every business day.", "When are statements imported?"),
    ("match-rate", "Auto-match rate last quarter was 93.2%.", "What was last quarter's auto-match rate?"),
    ("tolerance", "Amounts match if they differ by at most 0.01 in the transaction currency.",
     "What is the amount tolerance for a match?"),
    ("date-window", "A bank line can match a ledger entry up to 3 business days apart.",
     "How many business days apart can a bank line and a ledger entry match?"),
    ("fx-source", "FX rates come from the ECB reference rates, fetched at 16:30 CET.", "Where do FX rates come from?"),
    ("base-ccy", "Reporting currency is EUR.", "What is the reporting currency?"),
    ("ccy-count", "Coffer handles 11 currencies.", "How many currencies does Coffer handle?"),
    ("stack", "The service is Java 21 with Spring Boot 3.2.", "What is Coffer's stack?"),
    ("db", "Data is stored in PostgreSQL 16 on RDS, database coffer_prod.", "Which database does Coffer use?"),
    ("audit", "Every manual match is written to an append-only audit table, audit_matches.",
     "Where are manual matches audited?"),
    ("retention", "Audit records are kept for 10 years, as German commercial law requires.",
     "How long are audit records kept?"),
    ("signoff", "Month-end reconciliation sign-off is done by the Group Controller, Ingrid.",
     "Who signs off the month-end reconciliation?"),
    ("close-day", "Month-end close is due on business day 5.", "When is month-end close due?"),
    ("four-eyes", "Manual matches above EUR 50,000 need a second approver (four-eyes rule).",
     "Above what amount does a manual match need a second approver?"),
    ("report", "The reconciliation report is a PDF emailed to finance-ops at 08:00.",
     "When is the reconciliation report sent?"),
    ("bi", "Finance dashboards are built in Power BI.", "What are the finance dashboards built in?"),
    ("login", "Users log into Coffer with Azure AD single sign-on.", "How do users log into Coffer?"),
    ("roles", "Coffer's roles are viewer, preparer, approver and admin.", "Which roles does Coffer have?"),
    ("hosting", "Coffer runs on AWS ECS Fargate in eu-central-1.", "Where does Coffer run?"),
    ("deploy", "Deploys go out through GitLab CI with a manual approval gate for production.",
     "How are production deploys approved?"),
    ("release-day", "Production releases happen on Tuesdays, never in the first five business days of a month.",
     "When do production releases happen?"),
    ("support-hours", "Finance engineering support hours are 08:00-18:00 CET, with no night on-call.",
     "What are the support hours?"),
    ("tech-lead", "Coffer's tech lead is Bashir.", "Who is Coffer's tech lead?"),
    ("product-owner", "The product owner on the finance side is Lotte.", "Who is the product owner?"),
    ("payment-format", "Outgoing supplier payments are created as pain.001 files.",
     "Which format are outgoing payments in?"),
    ("payment-runs", "Supplier payment runs happen on Monday and Thursday.", "When do supplier payment runs happen?"),
    ("cash-forecast", "The 13-week cash forecast is built in Anaplan, fed by Coffer's nightly export.",
     "Where is the cash forecast built?"),
    ("netting", "Intercompany netting runs monthly on the 20th.", "When does intercompany netting run?"),
    ("entities", "There are 7 legal entities in scope.", "How many legal entities are in scope?"),
    ("vat-account", "Input VAT at 19% is booked to account 1576.", "Which account takes input VAT?"),
    ("fiscal-year", "The fiscal year is the calendar year.", "When does the fiscal year start?"),
    ("rules-store", "Matching rules are written in a small DSL and stored in the match_rules table.",
     "Where are matching rules stored?"),
    ("rule-count", "There are 84 active matching rules.", "How many active matching rules are there?"),
    ("exceptions-sla", "Unmatched items must be cleared within 10 business days.",
     "How fast must unmatched items be cleared?"),
    ("backups", "RDS automated backups are kept 14 days, plus a monthly snapshot kept for 7 years.",
     "How long are the RDS backups kept?"),
    ("pentest", "An external penetration test is done once a year by NCC Group.", "Who does the penetration test?"),
    ("testcontainers", "Integration tests use Testcontainers with a real Postgres.",
     "How do integration tests get a database?"),
    ("coverage", "The build fails below 80% line coverage.", "What is the coverage threshold?"),
    ("api-docs", "Coffer exposes a REST API documented with OpenAPI at /api/docs.", "Where are Coffer's API docs?"),
    ("bank-fees", "Bank fees are booked automatically to account 6855.", "Which account gets bank fees?"),
    ("card-statements", "Corporate card statements (Amex) are imported monthly as CSV.",
     "How are corporate card statements imported?"),
    ("timezone", "All timestamps are stored in UTC and shown in Europe/Berlin.", "Which time zone are timestamps shown in?"),
    ("build-tool", "Coffer builds with Gradle and the Kotlin DSL.", "What build tool does Coffer use?"),
    ("observability", "Logs and traces go to Datadog.", "Where do Coffer's logs and traces go?"),
    ("rate-limit", "The API is rate-limited to 100 requests per minute per user.", "What is the API rate limit?"),
])

_COFFER_CHANGES = _changes("coffer", [
    ("c-erp", "erp", CUE, "The general ledger moved from NetSuite to SAP S/4HANA on 1 January.",
     "Which ERP holds the general ledger?"),
    ("c-match-rate", "match-rate", NOCUE, "Auto-match rate last quarter was 95.1%.",
     "What was last quarter's auto-match rate?"),
    ("c-import-time", "import-time", CUE, "Statement import was moved to 05:45 CET so the report is ready earlier.",
     "When are statements imported?"),
    ("c-signoff", "signoff", NOCUE, "Month-end reconciliation sign-off is done by the Group Controller, Matthias.",
     "Who signs off the month-end reconciliation?"),
    ("c-four-eyes", "four-eyes", CUE, "The four-eyes threshold for manual matches was lowered to EUR 25,000.",
     "Above what amount does a manual match need a second approver?"),
    ("c-stack", "stack", NOCUE, "Coffer runs on Java 21 with Spring Boot 3.3.", "What is Coffer's stack?"),
    ("c-tech-lead", "tech-lead", CUE, "Bashir stepped down as tech lead; Coffer's tech lead is now Yusuf.",
     "Who is Coffer's tech lead?"),
    ("c-payment-runs", "payment-runs", NOCUE, "Supplier payment runs are on Tuesdays and Fridays.",
     "When do supplier payment runs happen?"),
    ("c-bi", "bi", CUE, "Finance dashboards were rebuilt in Looker and Power BI is retired.",
     "What are the finance dashboards built in?"),
    ("c-rule-count", "rule-count", NOCUE, "There are 97 active matching rules.", "How many active matching rules are there?"),
    ("c-date-window", "date-window", CUE, "The matching window was widened from 3 to 5 business days.",
     "How many business days apart can a bank line and a ledger entry match?"),
    ("c-coverage", "coverage", NOCUE, "Build fails below 85% line coverage.", "What is the coverage threshold?"),
    ("c-observability", "observability", CUE, "Logs and traces no longer go to Datadog; we use Grafana Cloud now.",
     "Where do Coffer's logs and traces go?"),
])

_COFFER_ADDITIONS = _additions("coffer", [
    ("a-ing", "Coffer will also import statements from a fourth bank, ING, starting next month.",
     "Does Coffer import statements from ING?"),
    ("a-rule-id", "Started tagging each auto-match with the id of the rule that made it.",
     "Is the rule id recorded on auto-matches?"),
    ("a-mfa", "Switched on MFA enforcement for the approver role in Azure AD.", "Is MFA enforced for approvers?"),
    ("a-missing-file", "Added a Slack alert to #fin-ops when a statement file is still missing at 07:00.",
     "What happens when a statement file is missing?"),
    ("a-rule-docs", "Moved the matching rule documentation into Confluence, space FINENG.",
     "Where is the matching rule documentation?"),
    ("a-recert", "Since the audit, the preparer role also needs a yearly access recertification.",
     "Which role needs a yearly access recertification?"),
    ("a-sandbox", "The team introduced a sandbox environment, coffer-sandbox, for the auditors.",
     "Is there an environment for the auditors?"),
    ("a-pg-image", "Upgraded the Testcontainers Postgres image to 16.3 to match production.",
     "Which Postgres image do the tests use?"),
    ("a-netting-owner", "Lotte now also owns the requirements for intercompany netting.",
     "Who owns the intercompany netting requirements?"),
])

# ---------------------------------------------------------------------------------------------------------------
# Ember: a smart thermostat's firmware and device cloud.

_EMBER = _facts("ember", [
    ("mcu", "Ember's thermostat board runs on an ESP32-S3.", "Which microcontroller does the thermostat use?"),
    ("idf", "Firmware is built on ESP-IDF 5.1 with FreeRTOS.", "Which ESP-IDF version is the firmware built on?"),
    ("flash", "The module has 8 MB of flash and 2 MB of PSRAM.", "How much flash does the module have?"),
    ("partitions", "Flash layout: two 3 MB OTA app slots, NVS, and a 1 MB SPIFFS partition for assets.",
     "What is the flash layout?"),
    ("ota-server", "OTA updates are fetched over HTTPS from updates.ember-home.io.", "Where do OTA updates come from?"),
    ("ota-rollout", "OTA rollouts go to 5% of devices first, then to everyone after 72 hours without crash spikes.",
     "How are OTA rollouts staged?"),
    ("signing", "Firmware images are signed with Secure Boot v2 keys held in an HSM.", "How are firmware images signed?"),
    ("sensor", "Temperature and humidity come from a Sensirion SHT40.", "Which temperature sensor does Ember use?"),
    ("sample-interval", "The sensor is sampled every 30 seconds.", "How often is the sensor sampled?"),
    ("display", "The display is a 2.9 inch e-paper panel.", "What display does the thermostat have?"),
    ("full-refresh", "The e-paper does a full refresh after every 10 partial refreshes to clear ghosting.",
     "How often does the e-paper do a full refresh?"),
    ("broker", "Devices talk to the cloud over MQTT with TLS, broker mqtt.ember-home.io:8883.",
     "Which broker do the devices connect to?"),
    ("matter", "Matter is not shipped; it is on the roadmap for the v3 hardware.", "Does Ember support Matter?"),
    ("provisioning", "Wi-Fi provisioning is done over BLE from the Ember app.", "How is Wi-Fi provisioned?"),
    ("hysteresis", "Default heating hysteresis is 0.5 °C.", "What is the default heating hysteresis?"),
    ("min-cycle", "The relay never switches more than once every 3 minutes, to protect boilers.",
     "How often may the relay switch at most?"),
    ("power", "Boards are powered from the 24 VAC C-wire; there is no battery.", "How is the board powered?"),
    ("current-draw", "Light sleep between samples; average draw is about 45 mA.", "What is the average current draw?"),
    ("build", "Firmware builds run in the espressif/idf:v5.1.2 Docker image on GitHub Actions.",
     "Where do firmware builds run?"),
    ("hil", "Hardware-in-the-loop tests run on a rack of 12 boards in the Leipzig office.", "Where is the HIL rack?"),
    ("unit-tests", "Unit tests run on the host with Unity and CMock.", "Which unit test framework does the firmware use?"),
    ("log-level", "Release builds log at WARN; debug builds at DEBUG.", "What log level do release builds use?"),
    ("core-dumps", "Core dumps are uploaded to Memfault.", "Where are core dumps uploaded?"),
    ("fleet", "About 61,000 devices are online on a typical day.", "How many devices are online on a typical day?"),
    ("hw-rev", "Current production hardware revision is rev D.", "What is the current hardware revision?"),
    ("assembly", "Boards are assembled by a contract manufacturer in Shenzhen.", "Who assembles the boards?"),
    ("factory-test", "Each board runs a 90-second factory test that checks the relay, the sensor and Wi-Fi.",
     "How long is the factory test?"),
    ("certification", "Devices are CE and FCC certified; UKCA is pending.", "Which certifications do the devices have?"),
    ("schedule-slots", "Users can set up to 6 schedule slots per day.", "How many schedule slots per day?"),
    ("eco", "Eco mode setpoint defaults to 17 °C.", "What is the default eco setpoint?"),
    ("frost", "Frost protection kicks in below 5 °C even when the thermostat is off.",
     "When does frost protection kick in?"),
    ("time-sync", "Time comes from SNTP (pool.ntp.org), with the time zone set from the app.",
     "Where does the device get its time?"),
    ("language", "The firmware is C, with a little C++ in the display driver.", "What language is the firmware written in?"),
    ("format", "Code style is enforced with clang-format (Google base, 4-space indent).",
     "How is the firmware code style enforced?"),
    ("static-analysis", "Static analysis with cppcheck runs in CI.", "Which static analysis runs on the firmware?"),
    ("fw-owner", "Nadia owns the thermostat firmware.", "Who owns the firmware?"),
    ("cloud-owner", "The device cloud (MQTT broker and OTA server) is Piotr's.", "Who owns the device cloud?"),
    ("cadence", "Firmware releases go out monthly, on the first Tuesday of the month.",
     "How often do firmware releases go out?"),
    ("stable", "Firmware versions follow semver; the current stable release is 2.14.1.",
     "What is the current stable firmware version?"),
    ("beta", "The beta channel has about 800 opted-in devices.", "How many devices are on the beta channel?"),
    ("watchdog", "The task watchdog timeout is 10 seconds.", "What is the task watchdog timeout?"),
    ("nvs", "User settings persist in NVS under the namespace 'ember_cfg'.", "Where are user settings persisted?"),
    ("led", "The status LED blinks amber while provisioning.", "What does the status LED do during provisioning?"),
    ("app", "The companion app is written in Flutter.", "What is the companion app written in?"),
    ("telemetry", "Telemetry goes out every 5 minutes: temperature, humidity, setpoint and relay state.",
     "How often is telemetry sent?"),
    ("broker-software", "The MQTT broker is EMQX 5 on Kubernetes.", "Which MQTT broker software runs?"),
    ("bom", "Bill of materials cost is $11.80 per unit at 10k volume.", "What is the BOM cost per unit?"),
    ("relay", "The relay is rated 5 A at 250 VAC.", "What is the relay rated for?"),
    ("control", "Heating control uses a PI controller, not PID: the derivative term was too noisy.",
     "What control loop does heating use?"),
    ("support-window", "Each hardware revision gets firmware updates for at least 5 years after its last sale.",
     "How long does a hardware revision get firmware updates?"),
])

_EMBER_CHANGES = _changes("ember", [
    ("c-idf", "idf", NOCUE, "Firmware is built on ESP-IDF 5.2 with FreeRTOS.",
     "Which ESP-IDF version is the firmware built on?"),
    ("c-sensor", "sensor", CUE, "Temperature and humidity now come from a Sensirion SHT45; the SHT40 is gone from the BOM.",
     "Which temperature sensor does Ember use?"),
    ("c-sample-interval", "sample-interval", NOCUE, "The sensor is sampled every 60 seconds.",
     "How often is the sensor sampled?"),
    ("c-hw-rev", "hw-rev", CUE, "Production switched to hardware rev E this month.",
     "What is the current hardware revision?"),
    ("c-stable", "stable", NOCUE, "Current stable firmware is 2.15.0.", "What is the current stable firmware version?"),
    ("c-hysteresis", "hysteresis", CUE, "Default heating hysteresis changed to 0.3 °C after the comfort study.",
     "What is the default heating hysteresis?"),
    ("c-core-dumps", "core-dumps", CUE,
     "Core dumps are no longer uploaded to Memfault; they go to our own S3 bucket through the OTA server.",
     "Where are core dumps uploaded?"),
    ("c-fleet", "fleet", NOCUE, "Roughly 74,000 devices are online on a typical day.",
     "How many devices are online on a typical day?"),
    ("c-fw-owner", "fw-owner", CUE, "Nadia handed the firmware over to Emre, who owns it from now on.",
     "Who owns the firmware?"),
    ("c-watchdog", "watchdog", NOCUE, "Task watchdog timeout: 15 seconds.", "What is the task watchdog timeout?"),
    ("c-cadence", "cadence", CUE, "Firmware releases moved from monthly to every six weeks.",
     "How often do firmware releases go out?"),
    ("c-eco", "eco", NOCUE, "Eco mode setpoint defaults to 16 °C.", "What is the default eco setpoint?"),
    ("c-app", "app", CUE, "The companion app was rewritten from Flutter to native Swift and Kotlin.",
     "What is the companion app written in?"),
])

_EMBER_ADDITIONS = _additions("ember", [
    ("a-rssi", "Ember now also reports the Wi-Fi RSSI in its telemetry.", "Is the Wi-Fi signal strength reported?"),
    ("a-co2", "Started shipping a CO2 sensor (SCD41) on the premium model.", "Which model has a CO2 sensor?"),
    ("a-flash-encryption", "Switched on flash encryption for all rev E boards.", "Is flash encryption on?"),
    ("a-second-hil", "Added a second HIL rack with 8 boards in the Kraków office.", "Is there a second HIL rack?"),
    ("a-partition-csv", "Moved the partition table CSV into the board support package repo.",
     "Where is the partition table file kept?"),
    ("a-open-window", "Since 2.14 the thermostat also has an open-window detection mode.",
     "Does the thermostat detect open windows?"),
    ("a-factory-logs", "The team migrated the factory test logs into a Postgres database at the manufacturer's site.",
     "Where are the factory test logs stored?"),
    ("a-clang-format", "Upgraded clang-format to version 18 in the dev container.", "Which clang-format version is used?"),
    ("a-rollout-review", "Piotr also runs the monthly OTA rollout review.", "Who runs the OTA rollout review?"),
])

# ---------------------------------------------------------------------------------------------------------------
# The user's own facts (global: project None).

_ME = _facts(GLOBAL, [
    ("editor", "I use Neovim with LazyVim as my main editor.", "Which editor do I use?"),
    ("shell", "The user's shell is zsh with the starship prompt.", "What shell does the user use?"),
    ("laptop", "Work laptop: MacBook Pro M3 running macOS Sonoma.", "What is the user's work laptop?"),
    ("home-os", "My home desktop runs Fedora 40.", "What does the home desktop run?"),
    ("city", "I'm based in Lisbon (Europe/Lisbon time zone).", "Where is the user based?"),
    ("hours", "Preferred working hours are 09:30 to 18:00.", "What are the user's working hours?"),
    ("language", "Prefers answers and code comments in English, even though the team speaks Portuguese.",
     "Which language should answers be in?"),
    ("indent", "The user likes 4-space indentation in Python and 2 spaces in YAML.",
     "What indentation does the user prefer?"),
    ("commits", "I write commit messages in the Conventional Commits style.", "What commit message style do I use?"),
    ("git-email", "My git email for work is rita.costa@workmail.dev.", "What is the user's work git email?"),
    ("github", "GitHub handle: ritacosta-dev.", "What is the user's GitHub handle?"),
    ("python-pm", "For Python projects I use uv, not pip or poetry.", "Which Python package manager do I use?"),
    ("node-vm", "Node version manager of choice: fnm.", "Which Node version manager does the user use?"),
    ("terminal", "Terminal emulator is WezTerm.", "Which terminal emulator does the user use?"),
    ("font", "Coding font: JetBrains Mono at 14 pt.", "Which coding font does the user use?"),
    ("theme", "Likes the Catppuccin Mocha theme everywhere.", "Which color theme does the user like?"),
    ("tests-first", "The user wants a failing test written before the fix when reproducing a bug.",
     "When should the test for a bug be written?"),
    ("no-emoji", "No emoji in commit messages or PR titles, please.", "Should commit messages have emoji?"),
    ("pr-size", "I prefer small PRs, under about 400 changed lines.", "How big should PRs be?"),
    ("browser", "Main browser is Firefox; Chrome only for debugging.", "Which browser does the user use?"),
    ("passwords", "Passwords live in 1Password.", "Which password manager does the user use?"),
    ("notes", "Personal notes are in Obsidian, synced through iCloud.", "Where does the user keep personal notes?"),
    ("containers", "I run containers with Podman on the Mac.", "Which container runtime does the user use on the Mac?"),
    ("aws-profile", "Default AWS CLI profile is 'sandbox'.", "Which AWS CLI profile is the default?"),
    ("coffee", "Takes coffee black, no sugar.", "How does the user take coffee?"),
    ("meeting-free", "Wednesday afternoons are meeting-free for me.", "When is the user's meeting-free time?"),
    ("keyboard", "Uses a split keyboard (ZSA Moonlander) with the Colemak-DH layout.",
     "Which keyboard layout does the user type on?"),
    ("reviews", "When reviewing my code, point out naming problems and skip nitpicks about import order.",
     "What should reviews of the user's code focus on?"),
    ("diet", "I'm vegetarian, which matters when booking team dinners.", "What is the user's diet?"),
    ("manager", "My manager is Duarte.", "Who is the user's manager?"),
    ("role", "The user is a staff engineer on the platform team.", "What is the user's role?"),
])

_ME_CHANGES = _changes(GLOBAL, [
    ("c-editor", "editor", CUE, "I moved from Neovim to Zed for day-to-day editing.", "Which editor do I use?"),
    ("c-city", "city", CUE, "I relocated to Porto last month.", "Where is the user based?"),
    ("c-terminal", "terminal", NOCUE, "Terminal emulator is Ghostty.", "Which terminal emulator does the user use?"),
    ("c-containers", "containers", CUE, "Switched from Podman to Rancher Desktop for containers on the Mac.",
     "Which container runtime does the user use on the Mac?"),
    ("c-manager", "manager", CUE, "After the reorg my manager is Inês, not Duarte anymore.",
     "Who is the user's manager?"),
    ("c-font", "font", NOCUE, "Coding font: Berkeley Mono at 14 pt.", "Which coding font does the user use?"),
    ("c-pr-size", "pr-size", CUE, "The user now wants PRs kept under roughly 250 changed lines.",
     "How big should PRs be?"),
])

_ME_ADDITIONS = _additions(GLOBAL, [
    ("a-atuin", "I also started using Atuin to sync my shell history.", "What syncs the user's shell history?"),
    ("a-touch-id", "The user switched on Touch ID for sudo on the work laptop.", "Is Touch ID enabled for sudo?"),
    ("a-work-log", "Since the new year I also keep a work log in Obsidian's daily notes.",
     "Where does the user keep a work log?"),
    ("a-dotfiles", "Moved my dotfiles into a chezmoi repo on GitHub.", "How are the user's dotfiles managed?"),
    ("a-long-flags", "New preference: write shell commands with long flags (--recursive, not -r) in examples.",
     "Should examples use long or short flags?"),
])
# fmt: on

FACTS: tuple[Fact, ...] = (*_KEELSON, *_WAYFARER, *_ALMANAC, *_COFFER, *_EMBER, *_ME)
CHANGES: tuple[Change, ...] = (
    *_KEELSON_CHANGES, *_WAYFARER_CHANGES, *_ALMANAC_CHANGES, *_COFFER_CHANGES, *_EMBER_CHANGES, *_ME_CHANGES,
)  # fmt: skip
ADDITIONS: tuple[Addition, ...] = (
    *_KEELSON_ADDITIONS, *_WAYFARER_ADDITIONS, *_ALMANAC_ADDITIONS, *_COFFER_ADDITIONS, *_EMBER_ADDITIONS,
    *_ME_ADDITIONS,
)  # fmt: skip

# ---------------------------------------------------------------------------------------------------------------
# The split, fixed with the data before any measurement: every other item per scope.

HALVES = ("dev", "held_out")


def _alternate(keys_by_scope: dict[str | None, list[str]]) -> dict[str, str]:
    """Within each scope, in the order written: the first item to dev, the second to held_out, and so on."""
    return {key: HALVES[i % 2] for keys in keys_by_scope.values() for i, key in enumerate(keys)}


def _by_scope(items: tuple[Fact, ...] | tuple[Addition, ...]) -> dict[str | None, list[str]]:
    grouped: dict[str | None, list[str]] = {}
    for item in items:
        grouped.setdefault(item.project, []).append(item.key)
    return grouped


FACT_HALF: dict[str, str] = _alternate(_by_scope(FACTS))
ADDITION_HALF: dict[str, str] = _alternate(_by_scope(ADDITIONS))


def change_half(change: Change) -> str:
    """A change belongs to the half of the fact it replaces."""
    return FACT_HALF[change.replaces]


def half(name: str) -> CrowdedHalf:
    """Every fact (the store stays crowded), and the changes and additions of `name` ("dev" or "held_out")."""
    if name not in HALVES:
        raise ValueError(f"no half named {name!r}; the halves are {HALVES}")
    return CrowdedHalf(
        name=name,
        projects=tuple(PRODUCTS),
        facts=FACTS,
        changes=tuple(c for c in CHANGES if change_half(c) == name),
        additions=tuple(a for a in ADDITIONS if ADDITION_HALF[a.key] == name),
    )
