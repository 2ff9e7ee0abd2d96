"""API keys: create (secret returned once) and revoke (docs/keys.md, "Who may call what")."""

from __future__ import annotations

import hashlib
import secrets
import string

from django.conf import settings
from django.utils import timezone

from jobcost.errors import InvalidRequest
from jobcost.models import Account, ApiKey, Project, Role
from jobcost.services.common import lock, save_audited, service

_ALPHABET = string.ascii_letters + string.digits


def hash_secret(secret: str) -> str:
    """SHA-256 hex of a key's secret, the only form stored; the secret has ≥190 random bits,
    so no salt or KDF is needed.

    Emits: none.
    """
    return hashlib.sha256(secret.encode()).hexdigest()


@service
def account_get_or_create(*, name: str) -> Account:
    """The account of that name, created when new.

    Emits: audit account.created; events none.
    """
    account = Account.objects.filter(name=name).first()
    return account or save_audited(Account(name=name))


@service
def api_key_create(
    *,
    account: Account,
    role: str,
    name: str = "",
    projects: list[Project] | tuple[Project, ...] = (),
    env: str | None = None,
) -> tuple[ApiKey, str]:
    """Create a key and return (key, secret). The secret `jc_<env>_<40 base62 chars>` (~238
    bits) is never stored; only its SHA-256 is. The key is pinned to the newest API version.
    Raises 400 for an unknown role or a project of another account.

    Emits: audit api_key.created; events none.
    """
    if role not in Role.values:
        raise InvalidRequest(
            f"Unknown role '{role}'. Roles: {', '.join(Role.values)}.", param="role"
        )
    for project in projects:
        if project.account_id != account.pk:
            raise InvalidRequest(
                f"Project {project.pk} belongs to another account.", param="project"
            )
    env = env or settings.JOBCOST_API_KEY_ENV
    secret = f"jc_{env}_" + "".join(secrets.choice(_ALPHABET) for _ in range(40))
    key = save_audited(
        ApiKey(
            account=account,
            name=name,
            role=role,
            secret_hash=hash_secret(secret),
            secret_hint=f"jc_{env}_…{secret[-4:]}",
            api_version=settings.JOBCOST_API_VERSIONS[-1],
        )
    )
    if projects:
        key.projects.set(projects)
    return key, secret


@service
def api_key_revoke(*, api_key_id: str) -> ApiKey:
    """Revoke a key: every later request with it is 401 `api_key_revoked` (in another web
    process within a second: jobcost/api/authentication.py). Idempotent.

    Emits: audit api_key.revoked; events none.
    """
    key = lock(ApiKey, api_key_id)
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        save_audited(key, action="revoked")
    return key
