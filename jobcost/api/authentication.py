"""Bearer API keys (docs/keys.md, "Who may call what"): `Authorization: Bearer jc_<env>_<secret>`,
stored as SHA-256.

On PostgreSQL the key, its account and the IDs of the projects it is restricted to are one
query (`project_id_list`, read by `Scope.for_key`); elsewhere the restriction is a second
query. The query's SQL is compiled once (`jobcost.selectors.fetch.first`; compiling it was most
of a retrieve's time).

A process keeps a key it has read for `KEY_CACHE_SECONDS` (one second), so a client's steady
requests cost no query for it (a fifth of a retrieve's CPU). Any save or delete of a key, of
its project restriction or of an account in this process empties the cache (`forget_keys`,
connected in `JobcostConfig.ready`), at once and again when the transaction commits: a key
revoked, re-roled, re-pinned or re-restricted, or an account's rate limit changed, is seen by
this process's next request and by every other process within a second (docs/keys.md).
A key that is not found is never kept."""

import time

from django.contrib.postgres.expressions import ArraySubquery
from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django.db.models import OuterRef
from rest_framework.authentication import BaseAuthentication

from jobcost.error_codes import AuthErrorCode
from jobcost.errors import Unauthenticated
from jobcost.models import ApiKey
from jobcost.selectors import fetch
from jobcost.services.api_keys import hash_secret


class ApiKeyAuthentication(BaseAuthentication):
    """Resolve the key or fail with 401 `api_key_missing` / `api_key_invalid` /
    `api_key_revoked`, always with `WWW-Authenticate: Bearer`."""

    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            raise Unauthenticated(
                "No API key provided. Send 'Authorization: Bearer <key>'.",
                code=AuthErrorCode.API_KEY_MISSING,
            )
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token.startswith("jc_") or len(token) > 200:
            raise Unauthenticated(
                "Malformed Authorization header: expected 'Bearer jc_<env>_<secret>'.",
                code=AuthErrorCode.API_KEY_INVALID,
            )
        key = _read_key(hash_secret(token))
        if key is None:
            raise Unauthenticated("Invalid API key provided.", code=AuthErrorCode.API_KEY_INVALID)
        if key.is_revoked:
            raise Unauthenticated(
                "This API key has been revoked.", code=AuthErrorCode.API_KEY_REVOKED
            )
        return (key, key)

    def authenticate_header(self, request):
        return 'Bearer realm="jobcost"'


# Seconds a process keeps a key it has read, and the most keys it keeps (past it, it starts
# again from none).
KEY_CACHE_SECONDS = 1.0
KEY_CACHE_SIZE = 10_000
_keys_read: dict[str, tuple[float, ApiKey]] = {}
# Bumped by every forgetting: a key read before it is not kept after it (a request of another
# thread may have read the old row just before a change committed).
_generation = [0]


def _read_key(secret_hash: str) -> ApiKey | None:
    """The key of this hash, as read within the last `KEY_CACHE_SECONDS` or now."""
    now = time.monotonic()
    kept = _keys_read.get(secret_hash)
    if kept is not None and kept[0] > now:
        return kept[1]
    generation = _generation[0]
    key = fetch.first(("api_key", connection.vendor), _keys, secret_hash=secret_hash)
    if key is not None and generation == _generation[0]:
        if len(_keys_read) >= KEY_CACHE_SIZE:
            _keys_read.clear()
        _keys_read[secret_hash] = (now + KEY_CACHE_SECONDS, key)
    return key


def _forget() -> None:
    _generation[0] += 1
    _keys_read.clear()


def forget_keys(sender=None, **kwargs) -> None:
    """Receiver of `post_save`, `post_delete` and `m2m_changed` for keys, their projects and
    accounts: empty the cache now and, inside a transaction, again when it commits (a request
    of another thread may have read the old row in between)."""
    _forget()
    using = kwargs.get("using") or DEFAULT_DB_ALIAS
    if transaction.get_connection(using).in_atomic_block:
        transaction.on_commit(_forget, using=using)


def _keys(secret_hash: str):
    """The key of this SHA-256 hash (hex) with its account and, on PostgreSQL, the IDs of the
    projects it is restricted to (`project_id_list`)."""
    keys = ApiKey.objects.select_related("account").filter(secret_hash=secret_hash)
    if connection.vendor == "postgresql":
        restriction = ApiKey.projects.through.objects.filter(apikey_id=OuterRef("pk"))
        keys = keys.annotate(project_id_list=ArraySubquery(restriction.values("project_id")))
    return keys
