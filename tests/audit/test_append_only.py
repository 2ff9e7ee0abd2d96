"""Audit entries are append-only (docs/resources.md, audit_entry): the database itself refuses
UPDATE and DELETE of audit rows (a trigger on PostgreSQL and on SQLite) and, on PostgreSQL, TRUNCATE
of the
table; the ORM refuses them before they reach it (`AppendOnlyError`)."""

import uuid

import pytest
from django.db import DatabaseError, connection, transaction

from audit.models import AppendOnlyError, AuditEntry
from tests.factories import OwnerFactory

TABLE = AuditEntry._meta.db_table


@pytest.fixture
def entry(account):
    owner = OwnerFactory(account=account, name="Original")
    return AuditEntry.objects.get(target_id=owner.pk, action="created")


def _raw(sql, params, role: str | None = None):
    """Run raw SQL in a savepoint so a refusal leaves the test's transaction usable; as
    `role` (SET LOCAL ROLE first) when given. One statement per `execute`: the connection
    binds parameters on the server, where a statement cannot hold two commands."""
    with transaction.atomic(), connection.cursor() as cursor:
        if role is not None:
            cursor.execute(f"SET LOCAL ROLE {role}")
        cursor.execute(sql, params)


def _unchanged(entry):
    row = AuditEntry.objects.get(pk=entry.pk)
    assert (row.action, row.changes, row.actor_type) == (
        entry.action,
        entry.changes,
        entry.actor_type,
    )


@pytest.mark.parametrize(
    "sql",
    [
        f"UPDATE {TABLE} SET action = 'deleted' WHERE id = %s",
        f"UPDATE {TABLE} SET changes = '{{}}' WHERE id = %s",
        f"DELETE FROM {TABLE} WHERE id = %s",
    ],
)
def test_database_refuses_update_and_delete(entry, sql):
    """Runs on whichever database is configured: the trigger exists on both vendors."""
    assert connection.vendor in {"postgresql", "sqlite"}
    with pytest.raises(DatabaseError, match="append-only"):
        _raw(sql, [entry.pk])
    _unchanged(entry)
    assert AuditEntry.objects.filter(pk=entry.pk).exists()


def test_database_refuses_bulk_delete_of_every_row(entry):
    count = AuditEntry.objects.count()
    with pytest.raises(DatabaseError, match="append-only"):
        _raw(f"DELETE FROM {TABLE} WHERE 1 = %s", [1])
    assert AuditEntry.objects.count() == count


@pytest.mark.postgres
def test_postgres_trigger_refuses_with_insufficient_privilege(entry):
    """On PostgreSQL the refusal is SQLSTATE 42501 (insufficient_privilege) from a row
    trigger, for UPDATE and DELETE alike."""
    for sql in (
        f"UPDATE {TABLE} SET note = 'edited' WHERE id = %s",
        f"DELETE FROM {TABLE} WHERE id = %s",
    ):
        with pytest.raises(DatabaseError) as excinfo:
            _raw(sql, [entry.pk])
        assert excinfo.value.__cause__.sqlstate == "42501"
    _unchanged(entry)


def test_database_still_accepts_inserts(entry):
    before = AuditEntry.objects.count()
    AuditEntry.objects.create(
        account_id=entry.account_id,
        target_type="owner",
        target_id=entry.target_id,
        action="updated",
        actor_type="system",
        changes={"name": {"before": "Original", "after": "New"}},
    )
    assert AuditEntry.objects.count() == before + 1


def test_orm_queryset_update_and_delete_raise(entry):
    with pytest.raises(AppendOnlyError):
        AuditEntry.objects.filter(pk=entry.pk).update(action="deleted")
    with pytest.raises(AppendOnlyError):
        AuditEntry.objects.all().update(note="x")
    with pytest.raises(AppendOnlyError):
        AuditEntry.objects.filter(pk=entry.pk).delete()
    with pytest.raises(AppendOnlyError):
        AuditEntry.objects.all().delete()
    _unchanged(entry)


def test_orm_instance_save_and_delete_raise(entry):
    entry.note = "tampered"
    with pytest.raises(AppendOnlyError):
        entry.save()
    with pytest.raises(AppendOnlyError):
        entry.save(update_fields=["note"])
    with pytest.raises(AppendOnlyError):
        entry.delete()
    row = AuditEntry.objects.get(pk=entry.pk)
    assert row.note == ""


def _sqlstate(sql: str, params=(), role: str | None = None) -> str | None:
    """Run `sql` in a savepoint (as `role`, when given); the SQLSTATE it was refused with,
    or None if it ran."""
    try:
        _raw(sql, params, role)
    except DatabaseError as exc:
        return exc.__cause__.sqlstate
    return None


@pytest.mark.postgres
def test_postgres_refuses_truncate_of_the_audit_table(entry):
    """A statement-level trigger refuses TRUNCATE, even for the table's owner; only a
    database that sets `jobcost.allow_audit_truncate` (the test database, for teardown)
    lets it through, so the test turns that off for its own transaction."""
    count = AuditEntry.objects.count()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL jobcost.allow_audit_truncate = 'off'")
        with pytest.raises(DatabaseError, match=r"append-only \(TRUNCATE refused\)") as excinfo:
            _raw(f"TRUNCATE {TABLE}", [])
        assert excinfo.value.__cause__.sqlstate == "42501"
        with pytest.raises(DatabaseError, match="append-only"):
            _raw(f"TRUNCATE {TABLE} CASCADE", [])
    assert AuditEntry.objects.count() == count
    _unchanged(entry)


@pytest.mark.postgres
def test_service_role_cannot_drop_disable_or_bypass_the_triggers(entry):
    """The service role of docs/operations/production.md ("Database roles":
    SELECT/INSERT/UPDATE/DELETE, no ownership, no TRIGGER or TRUNCATE privilege) can neither drop
    nor disable the audit triggers, nor truncate, nor switch triggers off for its session."""
    role = f"jobcost_service_{uuid.uuid4().hex[:8]}"
    with transaction.atomic():  # CREATE ROLE is transactional: rolled back with the test
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE ROLE {role} NOLOGIN")
            cursor.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {TABLE} TO {role}")
        refused = {}
        for name, sql in {
            "drop trigger": f"DROP TRIGGER audit_entry_append_only ON {TABLE}",
            "drop truncate trigger": f"DROP TRIGGER audit_entry_no_truncate ON {TABLE}",
            "disable triggers": f"ALTER TABLE {TABLE} DISABLE TRIGGER ALL",
            "drop function": "DROP FUNCTION audit_entry_append_only() CASCADE",
            "truncate": f"TRUNCATE {TABLE}",
            "replica mode": "SET LOCAL session_replication_role = replica",
            "delete": f"DELETE FROM {TABLE} WHERE id = %s",
        }.items():
            params = [entry.pk] if "%s" in sql else []
            refused[name] = _sqlstate(sql, params, role)
        assert refused == dict.fromkeys(refused, "42501"), refused
        assert _sqlstate(f"SELECT count(*) FROM {TABLE}", role=role) is None
        transaction.set_rollback(True)
    _unchanged(entry)
