"""Rendering an event at an API version (docs/conventions.md, §10). One version exists today, so the
stored event is the payload; a later version adds its transform here."""

from __future__ import annotations

from audit.values import format_timestamp

TRANSFORMS: dict = {}


def render_payload(event, api_version: str) -> dict:
    """The event object as JSON data, as an endpoint pinned to `api_version` receives it."""
    payload = {
        "id": event.id,
        "object": "event",
        "type": event.type,
        "api_version": api_version,
        "created_at": format_timestamp(event.created_at),
        "project": event.project_id,
        "data": event.data,
        "request": (
            {"id": event.request_id, "idempotency_key": event.idempotency_key}
            if event.request_id
            else None
        ),
    }
    transform = TRANSFORMS.get(api_version)
    return transform(payload) if transform else payload
