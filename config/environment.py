"""Which environment the service runs in, and the settings that refuse to start when they
are unsafe for it (docs/operations/production.md).

`JOBCOST_ENV` is `development` or `production`; unset means production, so a deployment that
forgets it gets the strict checks rather than the lax ones. `make run`, `make test` and the
test suite (`tests/settings.py`) set `development`.

- development: `DJANGO_SECRET_KEY` if set, else a random key generated once and kept in
  `<var>/secret_key` (mode 0600), so sessions and cursors survive restarts; any host. The
  folder is not created here (`make install` creates it); without it, a clear refusal.
- production: `DJANGO_SECRET_KEY` must be set, at least 50 characters and not the old
  built-in development value; `DJANGO_ALLOWED_HOSTS` must name the hosts, without `*`.

Each refusal raises `ImproperlyConfigured` with a message that says what to set.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

DEVELOPMENT, PRODUCTION = "development", "production"
# The key the settings shipped with before keys were required; refused outside development.
BUILTIN_SECRET_KEY = "dev-only-insecure-secret-key-change-me"
MIN_SECRET_KEY_LENGTH = 50


def environment() -> str:
    """`JOBCOST_ENV`, lower-cased: `development` or `production` (the default)."""
    value = os.environ.get("JOBCOST_ENV", PRODUCTION).strip().lower() or PRODUCTION
    if value not in (DEVELOPMENT, PRODUCTION):
        raise ImproperlyConfigured(
            f"JOBCOST_ENV={value!r} is not an environment: use 'development' or 'production'."
        )
    return value


def secret_key(env: str, var_dir: Path) -> str:
    """The SECRET_KEY for `env` (see the module docstring)."""
    key = os.environ.get("DJANGO_SECRET_KEY", "").strip()
    if env == DEVELOPMENT:
        return key or _kept_development_key(var_dir / "secret_key")
    if not key or key == BUILTIN_SECRET_KEY or len(key) < MIN_SECRET_KEY_LENGTH:
        raise ImproperlyConfigured(
            "JOBCOST_ENV=production refuses to start without its own secret key: set "
            f"DJANGO_SECRET_KEY to at least {MIN_SECRET_KEY_LENGTH} random characters (not "
            "the built-in development key), e.g. from python3 -c 'import secrets; "
            "print(secrets.token_urlsafe(50))'. For local development set "
            "JOBCOST_ENV=development instead (docs/operations/production.md)."
        )
    return key


def _kept_development_key(path: Path) -> str:
    """Read the key kept at `path`, creating the file (0600, atomically) on first use; its
    folder must exist."""
    if not path.parent.is_dir():
        raise ImproperlyConfigured(
            f"The development key is kept in {path}, but {path.parent} does not exist: run "
            "`make install` (it creates var/), or set DJANGO_SECRET_KEY."
        )
    if path.exists():
        key = path.read_text().strip()
        if key:
            return key
    key = secrets.token_urlsafe(MIN_SECRET_KEY_LENGTH)
    scratch = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    try:
        os.link(scratch, path)  # fails if another process created it first
    except FileExistsError:
        key = path.read_text().strip()
    finally:
        scratch.unlink()
    return key


def allowed_hosts(env: str) -> list[str]:
    """`DJANGO_ALLOWED_HOSTS`, comma-separated; `*` when unset in development only."""
    raw = os.environ.get("DJANGO_ALLOWED_HOSTS")
    if raw is None and env == DEVELOPMENT:
        raw = "*"
    hosts = [h.strip() for h in (raw or "").split(",") if h.strip()]
    if env == PRODUCTION and (not hosts or "*" in hosts):
        raise ImproperlyConfigured(
            "JOBCOST_ENV=production needs DJANGO_ALLOWED_HOSTS: the comma-separated host "
            "names the service answers to (e.g. jobcost.example.com), without '*'."
        )
    return hosts


PREPARE_OFF = ("off", "false", "no", "")


def prepare_threshold() -> int | None:
    """DATABASE_PREPARE_THRESHOLD (docs/operations/configuration.md): how many runs of a statement
    on a connection before PostgreSQL prepares it (default 5; 0 prepares every statement at once),
    or None for `off`, `false`, `no` or empty (nothing prepared, for an old PgBouncer in
    transaction mode). Anything else is refused."""
    value = os.environ.get("DATABASE_PREPARE_THRESHOLD", "5").strip().lower()
    if value in PREPARE_OFF:
        return None
    if not value.isdigit():
        raise ImproperlyConfigured(
            f"DATABASE_PREPARE_THRESHOLD must be a whole number of runs (5 by default) or "
            f"'off'; got {value!r}."
        )
    return int(value)
