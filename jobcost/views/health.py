"""Health probes (docs/development.md), without a key."""

import redis
from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET

from jobcost.redis_client import bounded_client


@require_GET
def healthz(request):
    """The process is up."""
    return JsonResponse({"status": "ok"})


def _broker_ok() -> tuple[bool, str]:
    """PING the Redis broker once: a down or hung Redis answers "down" within
    `REDIS_TIMEOUT_SECONDS` (connect or reply, no retry; docs/operations/configuration.md)."""
    if settings.REDIS_URL:
        client = bounded_client()
        try:
            client.ping()
            return True, "redis"
        except redis.RedisError as exc:
            return False, f"redis: {exc.__class__.__name__}"
        finally:
            client.close()
    return True, "filesystem"


@require_GET
def readyz(request):
    """The database and the broker are reachable: 200, else 503 naming what is down."""
    checks = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = "ok"
    except Exception as exc:  # any driver error means not ready
        checks["database"] = f"down: {exc.__class__.__name__}"
    ok, detail = _broker_ok()
    checks["broker"] = "ok" if ok else f"down: {detail}"
    ready = all(v == "ok" for v in checks.values())
    return JsonResponse(
        {"status": "ok" if ready else "unavailable", "checks": checks}, status=200 if ready else 503
    )
