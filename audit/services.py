"""Writing audit entries. Signals call `audit_record` for ORM saves; services call it directly
for changes the ORM save does not see (F() counter updates, overrides with a note)."""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

from audit.context import current_actor
from audit.models import AuditEntry

# Sent with `entry` after every audit entry is written, in the same transaction: the event
# outbox (webhooks.outbox) listens, so every audited change can become an event.
entry_recorded = Signal()
# Sent once with `entries` (a list) after `audit_record_many` wrote them, in the same
# transaction, so the outbox can record their events in a constant number of queries.
entries_recorded = Signal()


def audit_record(
    *,
    target_type: str,
    target_id: str,
    account_id: str,
    action: str,
    changes: dict[str, dict[str, Any]] | None = None,
    note: str = "",
) -> AuditEntry:
    """Append one entry stamped with the current actor and request id. Runs in the caller's
    transaction, so it commits or rolls back with the change it describes."""
    actor = current_actor()
    entry = AuditEntry.objects.create(
        account_id=account_id,
        target_type=target_type,
        target_id=target_id,
        action=action,
        actor_type=actor.type,
        actor_id=actor.id,
        actor_role=actor.role,
        request_id=actor.request_id,
        changes=changes or {},
        note=note,
    )
    entry_recorded.send(sender=AuditEntry, entry=entry, actor=actor)
    return entry


def audit_record_many(entries: list[dict[str, Any]]) -> list[AuditEntry]:
    """Append many entries in one INSERT, each a dict of `audit_record`'s keyword arguments
    (`target_type`, `target_id`, `account_id`, `action`, optional `changes` and `note`), all
    stamped with the current actor and request id; the same rows `audit_record` would write
    one by one, in the caller's transaction. Sends `entries_recorded` once, with the list.
    Used by the services' bulk moves (many budget lines under one approval, README
    "Limits")."""
    if not entries:
        return []
    actor = current_actor()
    rows = AuditEntry.objects.bulk_create(
        AuditEntry(
            account_id=entry["account_id"],
            target_type=entry["target_type"],
            target_id=entry["target_id"],
            action=entry["action"],
            actor_type=actor.type,
            actor_id=actor.id,
            actor_role=actor.role,
            request_id=actor.request_id,
            changes=entry.get("changes") or {},
            note=entry.get("note", ""),
        )
        for entry in entries
    )
    entries_recorded.send(sender=AuditEntry, entries=rows, actor=actor)
    return rows
