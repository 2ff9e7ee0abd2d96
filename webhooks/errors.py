"""The webhooks' own error codes (docs/errors.md, "Webhooks"); the codes every app shares are
`jobcost.error_codes`. Bottom layer of the webhooks app: imports nothing of the project."""

from __future__ import annotations

from enum import StrEnum


class WebhookErrorCode(StrEnum):
    """Webhook endpoints and their deliveries (docs/webhooks.md, "Managing endpoints")."""

    URL_INVALID = "url_invalid"
