"""Bearer API keys (README "Who may call what"): `Authorization: Bearer jc_<env>_<secret>`, stored
as SHA-256."""

import hashlib

from rest_framework.authentication import BaseAuthentication

from jobcost.api.errors import Unauthenticated
from jobcost.models import ApiKey


def hash_secret(secret: str) -> str:
    """SHA-256 hex of the secret; the secret has ≥190 random bits, so no salt or KDF is needed."""
    return hashlib.sha256(secret.encode()).hexdigest()


class ApiKeyAuthentication(BaseAuthentication):
    """Resolve the key or fail with 401 `api_key_missing` / `api_key_invalid` /
    `api_key_revoked`, always with `WWW-Authenticate: Bearer`."""

    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            raise Unauthenticated(
                "No API key provided. Send 'Authorization: Bearer <key>'.", code="api_key_missing"
            )
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token.startswith("jc_") or len(token) > 200:
            raise Unauthenticated(
                "Malformed Authorization header: expected 'Bearer jc_<env>_<secret>'.",
                code="api_key_invalid",
            )
        key = (
            ApiKey.objects.select_related("account").filter(secret_hash=hash_secret(token)).first()
        )
        if key is None:
            raise Unauthenticated("Invalid API key provided.", code="api_key_invalid")
        if key.is_revoked:
            raise Unauthenticated("This API key has been revoked.", code="api_key_revoked")
        return (key, key)

    def authenticate_header(self, request):
        return 'Bearer realm="jobcost"'
