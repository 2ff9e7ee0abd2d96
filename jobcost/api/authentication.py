"""Bearer API keys (README "Who may call what"): `Authorization: Bearer jc_<env>_<secret>`, stored
as SHA-256.

On PostgreSQL the key, its account and the IDs of the projects it is restricted to are one
query (`project_id_list`, read by `Scope.for_key`); elsewhere the restriction is a second
query. The query's SQL is compiled once (`jobcost.selectors.fetch.first`; compiling it was most
of a retrieve's time); its rows are read on every request: a revoked key is refused on its
next request."""

from django.contrib.postgres.expressions import ArraySubquery
from django.db import connection
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
        secret_hash = hash_secret(token)
        key = fetch.first(("api_key", connection.vendor), _keys, secret_hash=secret_hash)
        if key is None:
            raise Unauthenticated("Invalid API key provided.", code=AuthErrorCode.API_KEY_INVALID)
        if key.is_revoked:
            raise Unauthenticated(
                "This API key has been revoked.", code=AuthErrorCode.API_KEY_REVOKED
            )
        return (key, key)

    def authenticate_header(self, request):
        return 'Bearer realm="jobcost"'


def _keys(secret_hash: str):
    """The key of this SHA-256 hash (hex) with its account and, on PostgreSQL, the IDs of the
    projects it is restricted to (`project_id_list`)."""
    keys = ApiKey.objects.select_related("account").filter(secret_hash=secret_hash)
    if connection.vendor == "postgresql":
        restriction = ApiKey.projects.through.objects.filter(apikey_id=OuterRef("pk"))
        keys = keys.annotate(project_id_list=ArraySubquery(restriction.values("project_id")))
    return keys
