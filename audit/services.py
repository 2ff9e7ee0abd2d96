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
