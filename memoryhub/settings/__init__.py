"""MemoryHub settings: everything a user may change comes from a MEMORYHUB_* environment variable.

Grouped by concern, in the order of docs/settings.md (which lists every variable, its default and meaning). Each
value is read by a strict helper (memoryhub/settings/env.py): a bad one raises SettingError naming the variable,
and the entry points turn that into one line on stderr and exit status 2 (memoryhub/startup.py).
"""

from __future__ import annotations

from pathlib import Path

from memoryhub.settings.database import postgres_database
from memoryhub.settings.env import SettingError, envbool, envchoice, envfloat, envint, envstr
from memoryhub.settings.secret_key import install_secret_key

BASE_DIR = Path(__file__).resolve().parent.parent.parent

# --- Django core: hosts, secrets, apps, request limits, security headers, logging ------------------------------

DEBUG = envbool("MEMORYHUB_DEBUG", False)
# SECRET_KEY is set under "Backups", once the store's folder is known: MEMORYHUB_SECRET_KEY, else a key made for
# this install and kept beside the store (memoryhub/settings/secret_key.py). None is fixed in the source.
ALLOWED_HOSTS = [h for h in envstr("MEMORYHUB_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver").split(",") if h]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",  # named partials: a view renders "page.html#rows" for htmx
    "rest_framework",
    "drf_spectacular",
    "memoryhub",
    "api",
    "ui",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # The dashboard's own files (vendored htmx, CSS) from the WSGI process itself: no web server in front.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "memoryhub.middleware.SecurityHeadersMiddleware",
    "memoryhub.middleware.RequestMetricsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "memoryhub.urls"
WSGI_APPLICATION = "memoryhub.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Serve straight from static/ too, so a checkout works before (or without) `collectstatic`.
WHITENOISE_USE_FINDERS = True

# Request limits: an agent posting a novel as a "fact" gets a clear 413/400, not a slow server.
DATA_UPLOAD_MAX_MEMORY_SIZE = envint("MEMORYHUB_MAX_BODY_BYTES", 5 * 1024 * 1024, minimum=1024)
MEMORYHUB_MAX_CONTENT_CHARS = envint("MEMORYHUB_MAX_CONTENT_CHARS", 8000, minimum=100)

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# Behind HTTPS the login and CSRF cookies must never travel over plain HTTP; off by default because the default
# bind is loopback over HTTP, where a Secure cookie would never come back and no one could log in.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = envbool("MEMORYHUB_SECURE_COOKIES", False)
# A TLS-terminating proxy in front: trust its X-Forwarded-Proto, so Django knows the request came over HTTPS.
if envbool("MEMORYHUB_BEHIND_HTTPS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
CSRF_COOKIE_SAMESITE = "Lax"
# Only this site's own files: no inline scripts or styles, no eval, no framing (memoryhub/middleware.py).
MEMORYHUB_CONTENT_SECURITY_POLICY = envstr(
    "MEMORYHUB_CONTENT_SECURITY_POLICY",
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {
        "handlers": ["console"],
        # Checked here: an unknown level would otherwise fail later, inside django.setup(), with a traceback.
        "level": envchoice("MEMORYHUB_LOG_LEVEL", "WARNING", ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")),
    },
}

# --- Database and storage (memoryhub/storage/) ------------------------------------------------------------------

DATABASES = {
    "default": {
        # Our backend: Django's sqlite3 backend plus sqlite-vec on every connection (memoryhub/storage/backend/).
        "ENGINE": "memoryhub.storage.backend",
        "NAME": envstr("MEMORYHUB_DB", str(BASE_DIR / "memoryhub.sqlite3")),
        "OPTIONS": {
            "transaction_mode": "IMMEDIATE",
            # Seconds a writer waits for another process's write lock: sqlite3.connect(timeout=...) sets SQLite's
            # busy_timeout, and this process's own writers queue on a lock with the same limit (backend/base.py).
            "timeout": envint("MEMORYHUB_DB_TIMEOUT", 20, minimum=1),
            # synchronous=FULL: a write the API acknowledged survives a power cut too, not only a killed process
            # (NORMAL in WAL mode may roll back the last commits on power loss); it costs one fsync per commit.
            # mmap: reads of the indexes (FTS doclists, vec0's vector blobs, rows) come straight from the OS page
            # cache, shared by every connection, instead of through SQLite's own cache (exact KNN ~35% faster,
            # point lookups ~5x); 1 GiB maps the whole file of a 100k-memory store. A 32 MB page cache (default
            # 2 MB) keeps the hot FTS pages. At 100k memories a search got ~10 ms faster with both.
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=-32768; "
                f"PRAGMA mmap_size={envint('MEMORYHUB_DB_MMAP_MB', 1024, minimum=0) * 1024 * 1024};"
            ),
        },
        # Each waitress thread keeps its connection: opening one (sqlite-vec, pragmas, Django's functions) costs
        # ~15 ms, more than a keyword search. Health checks drop a connection that went bad.
        "CONN_MAX_AGE": envint("MEMORYHUB_DB_CONN_MAX_AGE", 600, minimum=0),
        "CONN_HEALTH_CHECKS": True,
        # A file for the test database instead of memory (for tests that need a real file).
        "TEST": {"NAME": envstr("MEMORYHUB_TEST_DB", "") or None},
    }
}
# A team's shared store: PostgreSQL (with the vector and pg_trgm extensions) instead of the file above.
MEMORYHUB_DATABASE_URL = envstr("MEMORYHUB_DATABASE_URL")
if MEMORYHUB_DATABASE_URL:
    DATABASES = {
        "default": postgres_database(
            MEMORYHUB_DATABASE_URL,
            timeout=envint("MEMORYHUB_DB_TIMEOUT", 20, minimum=1),
            pool_size=envint("MEMORYHUB_DB_POOL_SIZE", 10, minimum=1),
        )
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Embeddings (memoryhub/embeddings/): the local model unless an OpenAI-compatible endpoint is configured -------

MEMORYHUB_EMBED_BASE_URL = envstr("MEMORYHUB_EMBED_BASE_URL")
MEMORYHUB_EMBED_MODEL = envstr("MEMORYHUB_EMBED_MODEL")
MEMORYHUB_EMBED_API_KEY = envstr("MEMORYHUB_EMBED_API_KEY")
MEMORYHUB_EMBED_DIMENSIONS = envint("MEMORYHUB_EMBED_DIMENSIONS", 0, minimum=0)
MEMORYHUB_EMBED_TIMEOUT = envfloat("MEMORYHUB_EMBED_TIMEOUT", 30.0, minimum=0.1)
# Which bundled model embeds when no endpoint is set; changing it means `manage.py reembed`.
MEMORYHUB_EMBED_LOCAL_MODEL = envchoice(
    "MEMORYHUB_EMBED_LOCAL_MODEL", "all-MiniLM-L6-v2", ("multilingual-e5-small", "all-MiniLM-L6-v2")
)
# Where the int8 ONNX build of the bundled model is cached (made from the pip package's weights, never downloaded).
MEMORYHUB_MODEL_CACHE = envstr("MEMORYHUB_MODEL_CACHE", str(Path.home() / ".cache" / "memoryhub"))
# The niceness of the thread that embeds texts about to be stored (runtime's write lane): searches get the
# CPU before writes. 0: the same priority (writes still embed one at a time).
MEMORYHUB_WRITE_EMBED_NICE = envint("MEMORYHUB_WRITE_EMBED_NICE", 10, minimum=0, maximum=19)
# How long a write waits, before each of its two heavy steps, for the searches running in its process to finish
# (runtime/turns.py). 0: writes never wait for searches.
MEMORYHUB_WRITE_YIELD_MS = envint("MEMORYHUB_WRITE_YIELD_MS", 100, minimum=0, maximum=10_000)

# --- Search (memoryhub/retrieval/) ------------------------------------------------------------------------------
# How search weighs and plans is not set here: those values were measured, and live in one table in the code
# (memoryhub/retrieval/tuning.py, the vector copy's limits in memoryhub/storage/vector_index.py).

# Search returns only results whose match strength (explain["match"]: words, identifier and meaning combined, see
# fusion.match_strength; 0-1) reaches this; a request's `min_score` overrides it, 0 keeps everything. Raise it for
# fewer answers to made-up questions, lower it to keep answers found by meaning alone (docs/search.md).
MEMORYHUB_SEARCH_MIN_SCORE = envfloat("MEMORYHUB_SEARCH_MIN_SCORE", 0.22, minimum=0.0, maximum=1.0)
# For stores of conversations kept turn by turn (a chat log, one memory per turn): count a turn's metadata
# `speaker` and `date` as its words, and lift the reply to a matching question under it
# (memoryhub/retrieval/conversations.py). Off: shown to help only on the conversations it was tuned on.
MEMORYHUB_CONVERSATION_RANKING = envbool("MEMORYHUB_CONVERSATION_RANKING", True)

# --- Recall (memoryhub/retrieval/recall.py) ---------------------------------------------------------------------

# Characters in a recall block when the caller names no size: the API's default, the MCP server's and the chat
# proxy's block, and the one the dashboard's overview previews. 100 to 20000, what the API accepts.
MEMORYHUB_RECALL_BUDGET_CHARS = envint("MEMORYHUB_RECALL_BUDGET_CHARS", 400, minimum=100, maximum=20000)
# A recall line of a fact nobody checked for this many days carries the day it was last checked.
MEMORYHUB_UNCHECKED_DAYS = envint("MEMORYHUB_UNCHECKED_DAYS", 180, minimum=1, maximum=36500)

# --- Write gate (memoryhub/writes/gate.py, secrets.py, noise.py) ----------------------------------------------------

# A write is noise below these sizes; a near-duplicate in the same scope is folded into the existing memory when
# the vectors are this close (cosine) or the word sets overlap this much (Jaccard).
MEMORYHUB_GATE_MIN_CHARS = envint("MEMORYHUB_GATE_MIN_CHARS", 12, minimum=1)
MEMORYHUB_GATE_MIN_WORDS = envint("MEMORYHUB_GATE_MIN_WORDS", 3, minimum=1)
MEMORYHUB_GATE_DUPLICATE_COSINE = envfloat("MEMORYHUB_GATE_DUPLICATE_COSINE", 0.92, minimum=0.0, maximum=1.0)
MEMORYHUB_GATE_WORD_OVERLAP = envfloat("MEMORYHUB_GATE_WORD_OVERLAP", 0.85, minimum=0.0, maximum=1.0)
MEMORYHUB_GATE_CATEGORY_MIN_SCORE = envfloat("MEMORYHUB_GATE_CATEGORY_MIN_SCORE", 1.5, minimum=0.0)

# Token names whose imports keep each item's own `source` (restore, migration). Any other token's import is
# stored under its own name: an agent may not claim to be another (or `ui:admin`).
MEMORYHUB_RESTORE_AGENTS = [name.strip() for name in envstr("MEMORYHUB_RESTORE_AGENTS", "").split(",") if name.strip()]
# With an LLM configured (MEMORYHUB_LLM_BASE_URL), let it judge the writes the noise rules are unsure of, and
# the disagreements the update rules are unsure of (replaces, disagrees or different).
MEMORYHUB_GATE_LLM_JUDGE = envbool("MEMORYHUB_GATE_LLM_JUDGE", False)

# --- Decay (memoryhub/memories/decay.py, lifecycle.py) -----------------------------------------------------------


def _env_rates(name: str, defaults: dict[str, float], allowed: set[str]) -> dict[str, float]:
    """`name=rate,name=rate` from the environment, merged over `defaults`."""
    rates = dict(defaults)
    for item in (part.strip() for part in envstr(name).split(",")):
        if not item:
            continue
        key, _, value = item.partition("=")
        try:
            rate = float(value)
        except ValueError:
            rate = -1.0
        if key.strip() not in allowed or not 0.0 <= rate <= 1.0:
            raise SettingError(f"{name}: {item!r} must be name=rate, name one of {sorted(allowed)}, 0 <= rate <= 1")
        rates[key.strip()] = rate
    return rates


# effective = importance x rate ** days since last referenced. Rates per category override per tier, which
# override the default.
MEMORYHUB_DECAY_DEFAULT_RATE = envfloat("MEMORYHUB_DECAY_DEFAULT_RATE", 0.95, minimum=0.0, maximum=1.0)
MEMORYHUB_DECAY_TIER_RATES = _env_rates(
    "MEMORYHUB_DECAY_TIER_RATES",
    {"semantic": 0.97, "procedural": 0.97, "episodic": 0.93},
    {"semantic", "procedural", "episodic"},
)
MEMORYHUB_DECAY_CATEGORY_RATES = _env_rates(
    "MEMORYHUB_DECAY_CATEGORY_RATES",
    {"decision": 0.98, "gotcha": 0.98, "preference": 0.995, "person": 0.995, "environment": 0.99, "skill": 0.98},
    {"fact", "decision", "skill", "reference", "preference", "person", "environment", "project", "gotcha"},
)
MEMORYHUB_CONFIRMED_FLOOR = envfloat("MEMORYHUB_CONFIRMED_FLOOR", 0.5, minimum=0.0, maximum=1.0)
MEMORYHUB_ARCHIVE_THRESHOLD = envfloat("MEMORYHUB_ARCHIVE_THRESHOLD", 0.3, minimum=0.0, maximum=1.0)
MEMORYHUB_REINFORCE_STEP = envfloat("MEMORYHUB_REINFORCE_STEP", 0.05, minimum=0.0, maximum=1.0)
# An agent's refresh lifts importance at most once in this many hours per memory, and never above the cap
# (memoryhub/memories/refresh.py): a token, read-only ones too, cannot pump a memory by refreshing it over and over.
MEMORYHUB_REFRESH_BOOST_HOURS = envfloat("MEMORYHUB_REFRESH_BOOST_HOURS", 24.0, minimum=0.0)
MEMORYHUB_REFRESH_IMPORTANCE_CAP = envfloat("MEMORYHUB_REFRESH_IMPORTANCE_CAP", 0.8, minimum=0.0, maximum=1.0)

# --- Consolidation and its LLM (memoryhub/consolidation/) -------------------------------------------------------

# Two memories of one scope are linked when their vectors are at least SIMILARITY close, they do not name
# different things, and they share WORD_OVERLAP of the smaller one's words (weighed by rarity) or the vectors
# alone reach STRONG_SIMILARITY. Tuned with `python -m bench consolidate`. Proposals per run are capped so a pass
# with an LLM stays bounded.
MEMORYHUB_CONSOLIDATE_SIMILARITY = envfloat("MEMORYHUB_CONSOLIDATE_SIMILARITY", 0.7, minimum=0.0, maximum=1.0)
MEMORYHUB_CONSOLIDATE_STRONG_SIMILARITY = envfloat(
    "MEMORYHUB_CONSOLIDATE_STRONG_SIMILARITY", 0.9, minimum=0.0, maximum=1.0
)
MEMORYHUB_CONSOLIDATE_WORD_OVERLAP = envfloat("MEMORYHUB_CONSOLIDATE_WORD_OVERLAP", 0.65, minimum=0.0, maximum=1.0)
MEMORYHUB_CONSOLIDATE_MAX_CLUSTER = envint("MEMORYHUB_CONSOLIDATE_MAX_CLUSTER", 8, minimum=2)
MEMORYHUB_CONSOLIDATE_MAX_PROPOSALS = envint("MEMORYHUB_CONSOLIDATE_MAX_PROPOSALS", 500, minimum=1)
# An OpenAI-compatible chat endpoint writes the merged text; unset means deterministic proposals.
MEMORYHUB_LLM_BASE_URL = envstr("MEMORYHUB_LLM_BASE_URL")
MEMORYHUB_LLM_MODEL = envstr("MEMORYHUB_LLM_MODEL")
MEMORYHUB_LLM_API_KEY = envstr("MEMORYHUB_LLM_API_KEY")
MEMORYHUB_LLM_TIMEOUT = envfloat("MEMORYHUB_LLM_TIMEOUT", 60.0, minimum=0.1)
MEMORYHUB_LLM_RETRIES = envint("MEMORYHUB_LLM_RETRIES", 2, minimum=0)

# --- Chat proxy and its upstream provider (memoryhub/agents/proxy.py, upstream.py) -------------------------------

MEMORYHUB_UPSTREAM_BASE_URL = envstr("MEMORYHUB_UPSTREAM_BASE_URL")
MEMORYHUB_UPSTREAM_API_KEY = envstr("MEMORYHUB_UPSTREAM_API_KEY")
MEMORYHUB_UPSTREAM_TIMEOUT = envfloat("MEMORYHUB_UPSTREAM_TIMEOUT", 120.0, minimum=0.1)
# Memory tool calls an agent may make in one conversation turn before being told to use what it has.
MEMORYHUB_TOOL_CALLS_PER_TURN = envint("MEMORYHUB_TOOL_CALLS_PER_TURN", 3, minimum=1)
# Where MCP, the chat proxy and the tools write when a request names no project and its token sees several:
# unset, such a write is refused with an answer that says how to name one (global only when asked for).
MEMORYHUB_DEFAULT_PROJECT = envstr("MEMORYHUB_DEFAULT_PROJECT").strip() or None
if MEMORYHUB_DEFAULT_PROJECT is not None and len(MEMORYHUB_DEFAULT_PROJECT) > 200:
    raise SettingError("MEMORYHUB_DEFAULT_PROJECT must be at most 200 characters")

# --- The agents' REST API (api/) ---------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
    # The one error shape (api/errors.py).
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "MemoryHub API",
    "DESCRIPTION": "Long-term memory for AI coding agents.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "PREPROCESSING_HOOKS": ["api.schema.strip_trailing_slashes"],
    "ENUM_NAME_OVERRIDES": {
        "CategoryEnum": "memoryhub.models.Category",
        "TierEnum": "memoryhub.models.Tier",
        "MemoryStatusEnum": "memoryhub.models.Status",
        "ProposalStatusEnum": "memoryhub.models.ProposalStatus",
    },
}

# --- Dashboard (ui/) ----------------------------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [{"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"}]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"
# Failed dashboard logins: after AXES_FAILURE_LIMIT failures for one username from one address, that pair is
# locked out for AXES_COOLOFF_TIME hours; a success resets the count.
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = envint("MEMORYHUB_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = envfloat("MEMORYHUB_LOGIN_COOLOFF_HOURS", 0.25, minimum=0.01)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False
# Axes keeps a keyed hash of the username typed, never the text (a password typed there would be kept in plain text),
# and masks it in the form data it stores (memoryhub/people/logins.py).
AXES_USERNAME_CALLABLE = "memoryhub.people.logins.login_name"
AXES_SENSITIVE_PARAMETERS = ["username"]
# One address failing this many logins, whatever the usernames, is refused for AXES_COOLOFF_TIME (password spraying).
MEMORYHUB_LOGIN_ADDRESS_FAILURE_LIMIT = envint("MEMORYHUB_LOGIN_ADDRESS_FAILURE_LIMIT", 30, minimum=1)

# --- Backups (memoryhub/memories/backup.py) -----------------------------------------------------------------------

# Beside the SQLite file; on PostgreSQL (whose backups are pg_dump's) beside the project, for `copy_store` dumps.
_STORE_DIR = BASE_DIR if MEMORYHUB_DATABASE_URL else Path(DATABASES["default"]["NAME"]).parent
MEMORYHUB_BACKUP_DIR = envstr("MEMORYHUB_BACKUP_DIR", str(_STORE_DIR / "backups"))
_IN_MEMORY = not MEMORYHUB_DATABASE_URL and DATABASES["default"]["NAME"] in ("", ":memory:")
SECRET_KEY = install_secret_key(envstr("MEMORYHUB_SECRET_KEY"), store_dir=None if _IN_MEMORY else _STORE_DIR)
MEMORYHUB_BACKUP_KEEP = envint("MEMORYHUB_BACKUP_KEEP", 10, minimum=1)
# A backup before bulk deletes, merges, imports over a non-empty store and re-embedding.
MEMORYHUB_AUTO_BACKUP = envbool("MEMORYHUB_AUTO_BACKUP", True)

# --- Session capture (memoryhub/agents/capture.py) ---------------------------------------------------------------
# The session-end hook posts the transcript's turns to POST /api/v1/capture. With MEMORYHUB_LLM_BASE_URL set the LLM
# extracts the facts (unless USE_LLM is off); otherwise deterministic rules. The LLM reads at most MAX_INPUT_CHARS
# of the end of the session; at most MAX_PER_SESSION facts are kept per call.
MEMORYHUB_CAPTURE_USE_LLM = envbool("MEMORYHUB_CAPTURE_USE_LLM", True)
MEMORYHUB_CAPTURE_MAX_INPUT_CHARS = envint("MEMORYHUB_CAPTURE_MAX_INPUT_CHARS", 24000, minimum=1000)
MEMORYHUB_CAPTURE_MAX_PER_SESSION = envint("MEMORYHUB_CAPTURE_MAX_PER_SESSION", 8, minimum=1)

# --- Metrics and webhooks (api/views/metrics.py, memoryhub/operations/webhooks.py) ---------------------------------
# GET /metrics answers 127.0.0.1 only, unless a token is set: then whoever sends `Authorization: Bearer <token>`.
MEMORYHUB_METRICS_TOKEN = envstr("MEMORYHUB_METRICS_TOKEN")
# Receivers on loopback or private addresses are refused unless this is true: a hook an owner adds must not make
# the server call its own neighbours (server-side request forgery).
MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = envbool("MEMORYHUB_WEBHOOK_ALLOW_PRIVATE", False)
# A failed delivery is tried again after 1, 2, 4 ... seconds, never waiting longer than this between tries.
MEMORYHUB_WEBHOOK_MAX_BACKOFF_S = envfloat("MEMORYHUB_WEBHOOK_MAX_BACKOFF_S", 60.0, minimum=0.1)
# How long one delivery may take before it counts as failed.
MEMORYHUB_WEBHOOK_TIMEOUT_S = envfloat("MEMORYHUB_WEBHOOK_TIMEOUT_S", 5.0, minimum=0.1)
