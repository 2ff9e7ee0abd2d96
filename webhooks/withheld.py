"""Signing secrets in stored idempotent responses (docs/webhooks.md, "Managing endpoints").

The responses of `POST /v1/webhooks` and `POST /v1/webhooks/{id}/rotate-secret` carry the
full secret, and the idempotency store keeps responses for 24 h to replay them
(jobcost/api/idempotency.py), where the admin shows them. So the stored body never holds the
secret: `withhold` replaces it with `withheld:whsec_…abcd:<fingerprint>` — the masked form and
an HMAC-SHA256 of the secret keyed with SECRET_KEY, which reveals nothing about it — and
`restore`, on a replay (only ever to the API key that made the call), puts back the
endpoint's own secret whose fingerprint matches, if that secret still signs (the current one,
or the previous one during its 24 h overlap). A secret that no longer signs (rotated twice
since, or its overlap over) is replayed masked, `whsec_…abcd`: it is gone.
The full secret lives only in the endpoint's own row.
"""

from __future__ import annotations

import json
import re

from django.utils.crypto import constant_time_compare, salted_hmac

from webhooks.models import WebhookEndpoint

# A full secret as the renderer writes it: `"secret":"whsec_<base64>"` (the masked form holds
# an ellipsis, so it never matches).
FULL_SECRET = re.compile(r'"secret":"(whsec_[A-Za-z0-9+/=]+)"')
WITHHELD = re.compile(r'"secret":"withheld:(whsec_…[A-Za-z0-9+/=]{0,4}):([0-9a-f]{64})"')


def fingerprint(secret: str) -> str:
    """HMAC-SHA256 of `secret` keyed with SECRET_KEY (hex): equal secrets, equal prints."""
    return salted_hmac("webhooks.withheld", secret, algorithm="sha256").hexdigest()


def withhold(body: str) -> str:
    """`body` (a rendered JSON response) with every full secret replaced by its placeholder;
    byte for byte the same otherwise."""

    def placeholder(match: re.Match) -> str:
        secret = match.group(1)
        return f'"secret":"withheld:whsec_…{secret[-4:]}:{fingerprint(secret)}"'

    return FULL_SECRET.sub(placeholder, body)


def restore(body: str) -> str:
    """A stored body with its placeholder replaced by the endpoint's secret that matches it
    and still signs, else by the masked form. Bodies without a placeholder are unchanged."""
    match = WITHHELD.search(body)
    if match is None:
        return body
    endpoint_id = json.loads(body).get("id")
    endpoint = WebhookEndpoint.objects.filter(pk=endpoint_id).first()
    live = endpoint.signing_secrets() if endpoint is not None else []
    found = next((s for s in live if constant_time_compare(fingerprint(s), match.group(2))), None)
    value = found or match.group(1)
    return body[: match.start()] + f'"secret":"{value}"' + body[match.end() :]
