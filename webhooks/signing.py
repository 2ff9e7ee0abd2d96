"""Standard Webhooks signatures (docs/webhooks.md; standardwebhooks.com).

`webhook-signature` = space-separated `v1,<base64 HMAC-SHA256>` of "{id}.{timestamp}.{body}",
keyed with each live secret's base64-decoded bytes (after the `whsec_` prefix).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

PREFIX = "whsec_"


def new_secret() -> str:
    """`whsec_` + base64 of 32 random bytes."""
    return PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """One `v1,<signature>` for one secret."""
    key = base64.b64decode(secret.removeprefix(PREFIX))
    payload = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(key, payload, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(secrets_: list[str], msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The three Standard Webhooks headers plus the content type."""
    return {
        "content-type": "application/json",
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(sign(s, msg_id, timestamp, body) for s in secrets_),
        "user-agent": "jobcost-webhooks/1",
    }
