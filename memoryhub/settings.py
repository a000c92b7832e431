"""MemoryHub settings: everything a user may change comes from MEMORYHUB_* environment variables."""

from __future__ import annotations

from pathlib import Path

from memoryhub.env import envbool, envfloat, envint, envstr

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = envbool("MEMORYHUB_DEBUG", False)
# A local service: a fixed key is only acceptable because the default bind is loopback; set one for anything else.
SECRET_KEY = envstr("MEMORYHUB_SECRET_KEY", "memoryhub-local-only-change-me-if-you-expose-it")
ALLOWED_HOSTS = [h for h in envstr("MEMORYHUB_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver").split(",") if h]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "rest_framework",
    "drf_spectacular",
    "memoryhub",
    "api",
    "ui",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
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

DATABASES = {
    "default": {
        # Our backend: Django's sqlite3 backend plus sqlite-vec on every connection (see memoryhub/db/base.py).
        "ENGINE": "memoryhub.db",
        "NAME": envstr("MEMORYHUB_DB", str(BASE_DIR / "memoryhub.sqlite3")),
        "OPTIONS": {
            "transaction_mode": "IMMEDIATE",
            "timeout": envint("MEMORYHUB_DB_TIMEOUT", 20, minimum=1),
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000;",
        },
        "TEST": {"NAME": envstr("MEMORYHUB_TEST_DB", "") or None},
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [{"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"}]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"

# Request limits: an agent posting a novel as a "fact" gets a clear 413/400, not a slow server.
DATA_UPLOAD_MAX_MEMORY_SIZE = envint("MEMORYHUB_MAX_BODY_BYTES", 5 * 1024 * 1024, minimum=1024)
MEMORYHUB_MAX_CONTENT_CHARS = envint("MEMORYHUB_MAX_CONTENT_CHARS", 8000, minimum=100)

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Lax"

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "MemoryHub API",
    "DESCRIPTION": "Long-term memory for AI coding agents.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
}

# Embeddings: the local model unless an OpenAI-compatible endpoint is configured.
MEMORYHUB_EMBED_BASE_URL = envstr("MEMORYHUB_EMBED_BASE_URL")
MEMORYHUB_EMBED_MODEL = envstr("MEMORYHUB_EMBED_MODEL")
MEMORYHUB_EMBED_API_KEY = envstr("MEMORYHUB_EMBED_API_KEY")
MEMORYHUB_EMBED_DIMENSIONS = envint("MEMORYHUB_EMBED_DIMENSIONS", 0, minimum=0)
MEMORYHUB_EMBED_TIMEOUT = envfloat("MEMORYHUB_EMBED_TIMEOUT", 30.0, minimum=0.1)
# Where the int8 ONNX build of the bundled model is cached (made from the pip package's weights, never downloaded).
MEMORYHUB_MODEL_CACHE = envstr("MEMORYHUB_MODEL_CACHE", str(Path.home() / ".cache" / "memoryhub"))

# Consolidation LLM (OpenAI-compatible chat); unset means deterministic proposals.
MEMORYHUB_LLM_BASE_URL = envstr("MEMORYHUB_LLM_BASE_URL")
MEMORYHUB_LLM_MODEL = envstr("MEMORYHUB_LLM_MODEL")
MEMORYHUB_LLM_API_KEY = envstr("MEMORYHUB_LLM_API_KEY")
MEMORYHUB_LLM_TIMEOUT = envfloat("MEMORYHUB_LLM_TIMEOUT", 60.0, minimum=0.1)
MEMORYHUB_LLM_RETRIES = envint("MEMORYHUB_LLM_RETRIES", 2, minimum=0)

# The chat proxy's upstream provider.
MEMORYHUB_UPSTREAM_BASE_URL = envstr("MEMORYHUB_UPSTREAM_BASE_URL")
MEMORYHUB_UPSTREAM_API_KEY = envstr("MEMORYHUB_UPSTREAM_API_KEY")
MEMORYHUB_UPSTREAM_TIMEOUT = envfloat("MEMORYHUB_UPSTREAM_TIMEOUT", 120.0, minimum=0.1)

# Decay: effective = importance x rate ** days since last referenced. Rates per category override per tier.
MEMORYHUB_DECAY_DEFAULT_RATE = envfloat("MEMORYHUB_DECAY_DEFAULT_RATE", 0.95, minimum=0.0, maximum=1.0)
MEMORYHUB_DECAY_TIER_RATES = {"semantic": 0.97, "procedural": 0.97, "episodic": 0.93}
MEMORYHUB_DECAY_CATEGORY_RATES = {
    "decision": 0.98,
    "gotcha": 0.98,
    "preference": 0.995,
    "person": 0.995,
    "environment": 0.99,
    "skill": 0.98,
}
MEMORYHUB_CONFIRMED_FLOOR = envfloat("MEMORYHUB_CONFIRMED_FLOOR", 0.5, minimum=0.0, maximum=1.0)
MEMORYHUB_ARCHIVE_THRESHOLD = envfloat("MEMORYHUB_ARCHIVE_THRESHOLD", 0.3, minimum=0.0, maximum=1.0)
MEMORYHUB_REINFORCE_STEP = envfloat("MEMORYHUB_REINFORCE_STEP", 0.05, minimum=0.0, maximum=1.0)

# Search fusion.
MEMORYHUB_RRF_K = envint("MEMORYHUB_RRF_K", 60, minimum=1)
MEMORYHUB_KEYWORD_WEIGHT = envfloat("MEMORYHUB_KEYWORD_WEIGHT", 1.0, minimum=0.0)
MEMORYHUB_SEMANTIC_WEIGHT = envfloat("MEMORYHUB_SEMANTIC_WEIGHT", 1.0, minimum=0.0)

# Backups.
MEMORYHUB_BACKUP_DIR = envstr("MEMORYHUB_BACKUP_DIR", str(Path(DATABASES["default"]["NAME"]).parent / "backups"))
MEMORYHUB_BACKUP_KEEP = envint("MEMORYHUB_BACKUP_KEEP", 10, minimum=1)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": envstr("MEMORYHUB_LOG_LEVEL", "WARNING")},
}
