"""Settings, read from the environment.

Every knob is an environment variable (see docs/operations/configuration.md). With only
JOBCOST_ENV=development set (`make` sets it), the service runs on SQLite and a filesystem Celery
broker so that `make run` works on a bare machine; CI and production set DATABASE_URL and
REDIS_URL, and production refuses unsafe settings (config/environment.py,
docs/operations/production.md).
"""

import os
from pathlib import Path

import dj_database_url

from config import environment

BASE_DIR = Path(__file__).resolve().parent.parent
# Local state of development runs (SQLite file, filesystem broker, kept key, logs). Reading the
# settings creates nothing: `make install` creates the folders (the Makefile's `var` target).
VAR_DIR = Path(os.environ.get("JOBCOST_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool = False) -> bool:
    """Read a boolean environment variable ("1", "true", "yes", "on" are true)."""
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


# development or production (the default): config/environment.py, docs/operations/production.md.
JOBCOST_ENV = environment.environment()
DEVELOPMENT = JOBCOST_ENV == environment.DEVELOPMENT

DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = environment.secret_key(JOBCOST_ENV, VAR_DIR)
ALLOWED_HOSTS = environment.allowed_hosts(JOBCOST_ENV)
CSRF_TRUSTED_ORIGINS = [
    o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o
]

# How many reverse proxies the service sits behind, each appending to X-Forwarded-For; 0
# (the default) trusts no forwarded header (docs/operations/production.md).
JOBCOST_TRUSTED_PROXIES = int(os.environ.get("JOBCOST_TRUSTED_PROXIES", "0"))
if JOBCOST_TRUSTED_PROXIES:
    # The proxy terminates TLS and says so; without this the SSL redirect would loop.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# HTTPS switches, on by default in production, off in development (docs/operations/production.md).
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", not DEVELOPMENT)
# Health probes come from inside the network, often over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SESSION_COOKIE_SECURE = env_bool("DJANGO_SESSION_COOKIE_SECURE", not DEVELOPMENT)
CSRF_COOKIE_SECURE = env_bool("DJANGO_CSRF_COOKIE_SECURE", not DEVELOPMENT)
SECURE_HSTS_SECONDS = int(
    os.environ.get("DJANGO_SECURE_HSTS_SECONDS", "0" if DEVELOPMENT else "31536000")
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", False)

# The back office reads the signed-in user with their membership and its projects in one
# query (docs/architecture.md, "The back office's user"). A session signed in under another
# backend is asked to sign in again.
AUTHENTICATION_BACKENDS = ["jobcost.admin.auth_backend.BackOfficeBackend"]

INSTALLED_APPS = [
    "config.backoffice.BackOfficeAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "rangefilter",
    "audit",
    "jobcost",
    "webhooks",
]
# The benchmarks' commands (bench/, docs/benchmarks.md) exist only when benchmarking: every
# `make bench-*` target sets JOBCOST_BENCH=1. A server started without it has none of them.
if os.environ.get("JOBCOST_BENCH") == "1":
    INSTALLED_APPS.append("bench")

MIDDLEWARE = [
    # Outermost: drops the body of every HEAD answer, whoever built it.
    "jobcost.api.middleware.HeadWithoutBodyMiddleware",
    "jobcost.api.middleware.RequestIdMiddleware",
    "jobcost.api.middleware.RequestCharsetMiddleware",
    "jobcost.api.middleware.NulPathMiddleware",
    "jobcost.api.middleware.BodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Django's session, user and message middleware, passed over by API requests
    # (jobcost/admin/middleware.py).
    "jobcost.admin.middleware.BackOfficeSessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "jobcost.admin.middleware.BackOfficeAuthenticationMiddleware",
    "jobcost.admin.middleware.BackOfficeMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "audit.middleware.AdminActorMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'jobcost.sqlite3'}",
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # PostgreSQL binds the parameters (psycopg's server-side binding) and prepares a statement
    # a connection has run DATABASE_PREPARE_THRESHOLD times, on its next run, so a kept connection
    # parses and plans each of its frequent queries once (docs/operations/configuration.md). "off"
    # for a pooler that cannot keep prepared statements (PgBouncer before 1.21 in
    # transaction mode).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True, prepare_threshold=environment.prepare_threshold()
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Wait for the writer lock instead of failing at once when the worker and the web
    # server write together on the embedded database. IMMEDIATE: a transaction takes the
    # writer lock when it begins, so the worker's threads (docs/operations/workers.md) queue
    # for it instead of failing with "database is locked" when a read turns into a write.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
# Seconds any call to Redis (broker publish, rate limiter, readiness) waits to connect and,
# separately, for each reply, before it gives up (docs/operations/configuration.md).
REDIS_TIMEOUT_SECONDS = float(os.environ.get("JOBCOST_REDIS_TIMEOUT", "0.5"))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"

# docs/operations/limits.md: request bodies are limited to 1 MiB.
MAX_REQUEST_BODY_BYTES = 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY_BYTES
# How much of a refused (over 1 MiB) body is read and dropped before the 413 goes out, so the
# client is not reset before reading it (docs/decisions.md, "Request bodies"). 8 MiB takes a
# few milliseconds on a local socket; a bigger body is cut short.
MAX_REQUEST_DRAIN_BYTES = int(os.environ.get("JOBCOST_BODY_DRAIN_BYTES", 8 * 1024 * 1024))

# Budget imports (docs/budget-import.md): a file of at most BUDGET_IMPORT_MAX_ROWS data rows;
# up to BUDGET_IMPORT_SYNC_MAX_ROWS rows run within the request (201), more as a Celery job
# (202, then poll GET /v1/budget-imports/{id}).
BUDGET_IMPORT_MAX_ROWS = int(os.environ.get("JOBCOST_BUDGET_IMPORT_MAX_ROWS", "10000"))
BUDGET_IMPORT_SYNC_MAX_ROWS = int(os.environ.get("JOBCOST_BUDGET_IMPORT_SYNC_ROWS", "500"))

# docs/conventions.md: dated API versions, newest last.
JOBCOST_API_VERSIONS = ["2026-11-20-preview"]
JOBCOST_API_KEY_ENV = os.environ.get("JOBCOST_API_KEY_ENV", "test")

# docs/operations/limits.md: per-account token bucket (sustained requests/second and burst).
JOBCOST_RATE_LIMIT_PER_SECOND = int(os.environ.get("JOBCOST_RATE_LIMIT_PER_SECOND", "100"))
JOBCOST_RATE_LIMIT_BURST = int(os.environ.get("JOBCOST_RATE_LIMIT_BURST", "200"))

# docs/operations/limits.md, "Rendering PDFs": a PDF rendered for a request (a draft pay app) costs
# this many of the account's tokens in all; at most this many render for one account at once
# (another is 429 `too_many_renders`); a rendering stops after this many seconds (503
# `render_timed_out`), well inside gunicorn's 30 s worker timeout.
JOBCOST_RENDER_WEIGHT = int(os.environ.get("JOBCOST_RENDER_WEIGHT", "20"))
JOBCOST_RENDERS_PER_ACCOUNT = int(os.environ.get("JOBCOST_RENDERS_PER_ACCOUNT", "2"))
JOBCOST_RENDER_TIME_LIMIT = float(os.environ.get("JOBCOST_RENDER_TIME_LIMIT", "15"))

# docs/conventions.md: idempotency keys are replayed for 24 hours.
JOBCOST_IDEMPOTENCY_TTL_SECONDS = 24 * 3600

# docs/resources.md, webhook_endpoint: loopback http:// only in development and tests.
WEBHOOKS_ALLOW_INSECURE_LOCALHOST = env_bool("WEBHOOKS_ALLOW_INSECURE_LOCALHOST", DEBUG)
# The resolver webhook hosts are looked up with, once per connection (docs/webhooks.md,
# "Managing endpoints"): a dotted path to `(host, port) -> list of address strings`.
WEBHOOKS_RESOLVER = os.environ.get("WEBHOOKS_RESOLVER", "webhooks.urlguard.system_resolver")
# Certificates that webhook receivers' TLS certificates are verified against: a PEM bundle
# path, or empty for certifi's public CAs.
WEBHOOKS_CA_BUNDLE = os.environ.get("WEBHOOKS_CA_BUNDLE", "")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["jobcost.api.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["jobcost.api.permissions.RolePolicy"],
    "DEFAULT_PARSER_CLASSES": ["jobcost.api.parsers.StrictJSONParser"],
    "DEFAULT_METADATA_CLASS": "jobcost.api.metadata.AllowOnlyMetadata",
    "DEFAULT_RENDERER_CLASSES": ["jobcost.api.renderers.JobcostJSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "jobcost.api.negotiation.RememberedContentNegotiation",
    "DEFAULT_PAGINATION_CLASS": "jobcost.api.pagination.CursorPagination",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "jobcost.api.schema.JobcostAutoSchema",
    "EXCEPTION_HANDLER": "jobcost.api.errors.exception_handler",
    "UNAUTHENTICATED_USER": None,
    "DATETIME_FORMAT": "%Y-%m-%dT%H:%M:%SZ",
    "COERCE_DECIMAL_TO_STRING": False,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Job-Cost API",
    "DESCRIPTION": (
        "A REST API over the financial record of a construction job. Money is integer cents "
        "beside a lowercase ISO 4217 currency; percentages are exact decimals from 0 to 100. "
        "Every POST and PATCH takes an Idempotency-Key."
    ),
    "VERSION": JOBCOST_API_VERSIONS[-1],
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "ProjectStatusEnum": "jobcost.models.ProjectStatus",
        "NewProjectStatusEnum": ["bid", "active"],
        "CommitmentStatusEnum": "jobcost.models.CommitmentStatus",
        "CommitmentTypeEnum": "jobcost.models.CommitmentType",
        "LienWaiverTypeEnum": "jobcost.models.LienWaiverType",
        "WebhookEndpointStatusEnum": "webhooks.models.EndpointStatus",
        "WebhookDeliveryStatusEnum": "webhooks.models.DeliveryStatus",
        "EventTypeEnum": "webhooks.serializers.EVENT_TYPES",
        "ActorRoleEnum": "jobcost.api.schema_components.ACTOR_ROLES",
    },
    "POSTPROCESSING_HOOKS": [
        "jobcost.api.schema_components.append_components",
        "jobcost.api.schema.postprocess_schema_enums",
        "jobcost.api.schema_hooks.postprocess_schema_exact",
        "webhooks.schema_hooks.postprocess_webhook_schema",
        "jobcost.api.schema_hooks.postprocess_schema_shapes",
    ],
    "SERVE_AUTHENTICATION": [],
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "APPEND_COMPONENTS": {
        "securitySchemes": {
            "ApiKey": {"type": "http", "scheme": "bearer", "bearerFormat": "jc_<env>_<secret>"}
        },
    },
    "SECURITY": [{"ApiKey": []}],
    "AUTHENTICATION_WHITELIST": [],
}

# Celery: Redis when configured, else a filesystem broker that needs no server (make run).
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # A hung broker must not hold a request (docs/decisions.md, "A hung Redis"). kombu's
    # Redis transport passes these to redis-py; without them a reply that never comes is
    # waited for forever. Workers are unaffected: they read BRPOP replies only once the
    # socket is readable.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "socket_connect_timeout": REDIS_TIMEOUT_SECONDS,
        "socket_timeout": REDIS_TIMEOUT_SECONDS,
        "retry_on_timeout": False,
    }
    # Total seconds spent (re)connecting before a publish gives up.
    CELERY_BROKER_CONNECTION_TIMEOUT = 2 * REDIS_TIMEOUT_SECONDS
else:
    _broker_dir = VAR_DIR / "broker"  # its folders: `make install`
    CELERY_BROKER_URL = "filesystem://"
    # kombu's option names. The control folder holds each exchange's bindings; left unset it
    # was `control/` in whatever folder the process started in (the project's root).
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "out"),
        "data_folder_out": str(_broker_dir / "out"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
    }
# One publish: the first try and one retry on a fresh connection, no wait between them, so
# it gives up within 2 × REDIS_TIMEOUT_SECONDS; the outbox sweep sends what it could not queue.
CELERY_TASK_PUBLISH_RETRY = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0,
    "interval_max": 0,
}
# A request thread waits at most this long for a free producer when every pooled one is busy
# publishing to a slow broker (Celery's default waits forever).
CELERY_BROKER_POOL_ACQUIRE_TIMEOUT = 2 * REDIS_TIMEOUT_SECONDS
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("JOBCOST_CELERY_QUEUE", "celery")
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = "UTC"
# Webhook delivery lanes and the per-endpoint cap (docs/operations/workers.md, webhooks/drain.py).
WEBHOOKS_QUEUE = os.environ.get("JOBCOST_WEBHOOKS_QUEUE", "webhooks")
WEBHOOKS_SLOW_QUEUE = os.environ.get("JOBCOST_WEBHOOKS_SLOW_QUEUE", "webhooks-slow")
WEBHOOKS_ENDPOINT_SLOTS = int(os.environ.get("WEBHOOKS_ENDPOINT_SLOTS", "2"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.request": {"level": "ERROR"}},
}
