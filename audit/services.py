"""The audit trail's public calls (docs/audit.md): save an `Audited` row with an action, a note
and extra changes; record an entry about a row without saving it; write the entries of bulk
inserts and updates, which send no signal. Every entry is stamped with the current actor and
request id and is written in the caller's transaction, so it commits or rolls back with the
change it describes.

After writing, `entry_recorded` (one entry) or `entries_recorded` (a list, once per bulk
write) is sent in the same transaction: other apps subscribe (the webhook outbox turns entries
into events); `audit` itself knows nothing of them.

Inside `batch()` (every public job-cost service runs in one) the entries are built when the
change is made — same ID, time, actor and changes — but written at the end of the batch, all
in one INSERT, with one `entries_recorded`: a service that changes four objects writes four
entries, and the outbox their events, in a constant number of queries.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.db import models, transaction
from django.db.models.sql import InsertQuery
from django.dispatch import Signal

from audit.context import current_actor
from audit.models import AuditEntry
from audit.values import snapshot

M = TypeVar("M", bound=models.Model)

# Sent with `entry` and `actor` after every single entry is written.
entry_recorded = Signal()
# Sent once with `entries` (a list) and `actor` after `audit_record_many` wrote them; at the
# end of a `batch()`, once per actor, the first with `insert` (`PendingInsert`): the entries
# are written when the first signal returns.
entries_recorded = Signal()

Changes = dict[str, dict[str, Any]]


def save(
    instance: M,
    *,
    action: str | None = None,
    note: str = "",
    extra: Changes | None = None,
    defer: bool = False,
) -> M:
    """Save an `Audited` row; the signal writes its entry: `action` names a transition
    (`approved`, …; default `created` or `updated`), `note` says why, `extra` adds changes the
    row itself does not hold (its lines: `{"lines": {"before": …, "after": …}}`). An update
    with no change, no note and no action writes nothing. `defer=True` on a new row whose child
    rows come next: its `created` entry waits for `record_created`, so the entry and the event
    that follows describe the whole object. Returns the row."""
    instance._audit_intent = {"action": action, "note": note, "extra": extra, "defer": defer}
    try:
        instance.save()
    finally:
        instance.__dict__.pop("_audit_intent", None)
    return instance


def record_created(instance: models.Model, *, extra: Changes | None = None) -> AuditEntry:
    """The `created` entry of a row saved with `save(…, defer=True)`, once its child rows
    exist; `extra` as for `save`."""
    after = snapshot(instance)
    instance._audit_before = after
    return write_entry(
        instance, action="created", changes={**created_changes(after), **(extra or {})}
    )


def record(
    instance: models.Model, *, action: str, changes: Changes | None = None, note: str = ""
) -> AuditEntry:
    """An entry about a row that is not being saved: a change held by other rows (a pay app's
    G703 lines) or a decision (a waiver override), as `action` with `changes` and `note`."""
    return audit_record(
        target_type=type(instance).OBJECT,
        target_id=instance.pk,
        account_id=_account_id(instance),
        action=action,
        changes=changes,
        note=note,
    )


def record_created_many(instances: list) -> list[AuditEntry]:
    """The `created` entries of new rows inserted with `bulk_create` (which sends no signal):
    for each, the entry a `save()` would have written, all in one INSERT."""
    entries = []
    for instance in instances:
        after = snapshot(instance)
        entries.append(_entry(instance, "created", created_changes(after)))
        instance._audit_before = after
    return audit_record_many(entries)


def record_updated_many(instances: list, *, note: str = "") -> list[AuditEntry]:
    """The `updated` entries of tracked rows (`Audited.track`) changed with a bulk UPDATE
    (which sends no signal): for each, the before/after a `save()` would have written, and
    `note`, all in one INSERT. Rows with no change and no note get no entry."""
    entries = []
    for instance in instances:
        after = snapshot(instance)
        changes = changes_between(instance.__dict__.get("_audit_before") or {}, after)
        if changes or note:
            entries.append(_entry(instance, "updated", changes, note))
        instance._audit_before = after
    return audit_record_many(entries)


def created_changes(after: dict) -> Changes:
    """A creation's changes: every set field but the ID, from nothing to its value."""
    return {
        name: {"before": None, "after": value}
        for name, value in after.items()
        if name != "id" and value not in (None, "")
    }


def changes_between(before: dict, after: dict) -> Changes:
    """The fields whose value differs, as {name: {before, after}}."""
    return {
        name: {"before": before.get(name), "after": value}
        for name, value in after.items()
        if before.get(name) != value
    }


def write_entry(
    instance: models.Model, *, action: str, changes: Changes, note: str = ""
) -> AuditEntry | None:
    """One entry about `instance`; nothing for a plain update that changed nothing."""
    if not changes and action == "updated" and not note:
        return None
    return record(instance, action=action, changes=changes, note=note)


def _account_id(instance) -> str:
    return getattr(instance, "account_id", None) or instance.pk


def _entry(instance, action: str, changes: Changes, note: str = "") -> dict[str, Any]:
    return {
        "target_type": type(instance).OBJECT,
        "target_id": instance.pk,
        "account_id": _account_id(instance),
        "action": action,
        "changes": changes,
        "note": note,
    }


class _Batch:
    """Entries held until the end of the outermost `batch()`; `savepoints` is how many
    savepoints were open when it began."""

    def __init__(self, savepoints: int):
        self.savepoints = savepoints
        self.entries: list[tuple[AuditEntry, Any]] = []


_local = threading.local()


def _savepoints() -> int:
    return sum(1 for sid in transaction.get_connection().savepoint_ids if sid is not None)


def _open_batch() -> _Batch | None:
    """The batch new entries join: the open one, unless a savepoint was opened since it
    began — an entry inside a savepoint is written at once, so a rollback to the savepoint
    takes it away with the change."""
    current = getattr(_local, "batch", None)
    if current is None or current.savepoints != _savepoints():
        return None
    return current


@contextmanager
def batch() -> Iterator[None]:
    """Hold the entries recorded inside (outside any savepoint opened within) and write them
    at the end, in one INSERT, sending `entries_recorded` once per run of entries of one actor
    (even a single entry goes by `entries_recorded`, never `entry_recorded`); an error discards
    the entries recorded inside, as its rollback discards their changes. Nested inside an
    open batch (and in the same savepoint) it joins it. Call it inside the transaction."""
    outer = getattr(_local, "batch", None)
    if outer is not None and outer.savepoints == _savepoints():
        mark = len(outer.entries)
        try:
            yield
        except BaseException:
            del outer.entries[mark:]
            raise
        return
    held = _Batch(_savepoints())
    _local.batch = held
    try:
        yield
    finally:
        _local.batch = outer
    _write(held.entries)


def flush() -> None:
    """Write now what the open batch holds (in the same transaction, at the same savepoint
    level), as its end would: for a service that writes in chunks, so that memory and the
    statements stay the size of a chunk. Nothing outside a batch."""
    current = _open_batch()
    if current is None or not current.entries:
        return
    pending, current.entries = current.entries, []
    _write(pending)


class PendingInsert:
    """The one INSERT of a batch's entries, not yet run, handed to the receivers of
    `entries_recorded` as `insert`: on PostgreSQL a receiver that writes in the same
    transaction may `take()` it — (sql, params) — and run it within its own statement (the
    webhook outbox runs it as a CTE of its events' INSERT: one round trip less); when none
    does, it runs as the signal returns. Either way the entries are written by then."""

    def __init__(self, rows: list[AuditEntry]):
        self.rows = rows
        self.taken = False

    def take(self) -> tuple[str, list] | None:
        if self.taken or transaction.get_connection().vendor != "postgresql":
            return None
        self.taken = True
        connection = transaction.get_connection()
        query = InsertQuery(AuditEntry)
        query.insert_values(AuditEntry._meta.concrete_fields, self.rows)
        ((sql, params),) = query.get_compiler(connection=connection).as_sql()
        for row in self.rows:
            row._state.adding = False
            row._state.db = connection.alias
        return sql, list(params)


def _write(pending: list[tuple[AuditEntry, Any]]) -> None:
    if not pending:
        return
    insert = PendingInsert([entry for entry, _actor in pending])
    start = 0
    for index in range(1, len(pending) + 1):
        if index == len(pending) or pending[index][1] != pending[start][1]:
            rows = [entry for entry, _actor in pending[start:index]]
            entries_recorded.send(
                sender=AuditEntry,
                entries=rows,
                actor=pending[start][1],
                insert=insert if start == 0 else None,
            )
            start = index
            if not insert.taken:
                insert.taken = True
                AuditEntry.objects.bulk_create(insert.rows)


def audit_record(
    *,
    target_type: str,
    target_id: str,
    account_id: str,
    action: str,
    changes: Changes | None = None,
    note: str = "",
) -> AuditEntry:
    """Append one entry stamped with the current actor and request id; sends
    `entry_recorded` (inside a `batch()`, it is held and written at the batch's end). The other
    calls of this module come through here."""
    actor = current_actor()
    entry = AuditEntry(
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
    held = _open_batch()
    if held is not None:
        held.entries.append((entry, actor))
        return entry
    entry.save(force_insert=True)
    entry_recorded.send(sender=AuditEntry, entry=entry, actor=actor)
    return entry


def audit_record_many(entries: list[dict[str, Any]]) -> list[AuditEntry]:
    """Append many entries in one INSERT, each a dict of `audit_record`'s keyword arguments,
    all stamped with the current actor and request id; sends `entries_recorded` once, with the
    list (inside a `batch()`, they join the batch). Used for bulk moves (many budget lines
    under one approval, docs/operations/limits.md)."""
    if not entries:
        return []
    actor = current_actor()
    rows = [
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
    ]
    held = _open_batch()
    if held is not None:
        held.entries.extend((row, actor) for row in rows)
        return rows
    AuditEntry.objects.bulk_create(rows)
    entries_recorded.send(sender=AuditEntry, entries=rows, actor=actor)
    return rows
