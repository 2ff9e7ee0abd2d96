"""Settings, read from the environment.

Every knob is an environment variable (see README, "Configuration"). Without any of them set,
the service runs on SQLite and a filesystem Celery broker so that `make run` works on a bare
machine; CI and production set DATABASE_URL and REDIS_URL.
"""

import os
from pathlib import Path

import dj_database_url

from jobcost.api.schema_components import ERROR as ERROR_SCHEMA

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("JOBCOST_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool = False) -> bool:
    """Read a boolean environment variable ("1", "true", "yes", "on" are true)."""
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-insecure-secret-key-change-me")
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "*").split(",") if h]
CSRF_TRUSTED_ORIGINS = [
    o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "audit",
    "jobcost",
    "webhooks",
]

MIDDLEWARE = [
    "jobcost.api.middleware.RequestIdMiddleware",
    "jobcost.api.middleware.BodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
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
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Wait for the writer lock instead of failing at once when the worker and the web
    # server write together on the embedded database. IMMEDIATE: a transaction takes the
    # writer lock when it begins, so the worker's threads (README "Running workers") queue
    # for it instead of failing with "database is locked" when a read turns into a write.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"

# SPEC §6: request bodies are limited to 1 MiB.
MAX_REQUEST_BODY_BYTES = 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY_BYTES

# SPEC §7: dated API versions, newest last.
JOBCOST_API_VERSIONS = ["2026-11-20-preview"]
JOBCOST_API_KEY_ENV = os.environ.get("JOBCOST_API_KEY_ENV", "test")

# SPEC §6: per-account token bucket (sustained requests/second and burst).
JOBCOST_RATE_LIMIT_PER_SECOND = int(os.environ.get("JOBCOST_RATE_LIMIT_PER_SECOND", "100"))
JOBCOST_RATE_LIMIT_BURST = int(os.environ.get("JOBCOST_RATE_LIMIT_BURST", "200"))

# SPEC §5: idempotency keys are replayed for 24 hours.
JOBCOST_IDEMPOTENCY_TTL_SECONDS = 24 * 3600

# SPEC §8 webhook_endpoint: loopback http:// only in development and tests.
WEBHOOKS_ALLOW_INSECURE_LOCALHOST = env_bool("WEBHOOKS_ALLOW_INSECURE_LOCALHOST", DEBUG)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["jobcost.api.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["jobcost.api.permissions.RolePolicy"],
    "DEFAULT_PARSER_CLASSES": ["jobcost.api.parsers.StrictJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["jobcost.api.renderers.JobcostJSONRenderer"],
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
    },
    "POSTPROCESSING_HOOKS": ["jobcost.api.schema.postprocess_schema_enums"],
    "SERVE_AUTHENTICATION": [],
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "APPEND_COMPONENTS": {
        "schemas": {"Error": ERROR_SCHEMA},
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
else:
    _broker_dir = VAR_DIR / "broker"
    for _sub in ("out", "processed"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "out"),
        "data_folder_out": str(_broker_dir / "out"),
        "data_folder_processed": str(_broker_dir / "processed"),
    }
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("JOBCOST_CELERY_QUEUE", "celery")
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = "UTC"
# Webhook delivery lanes and the per-endpoint cap (README "Running workers", webhooks/drain.py).
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
