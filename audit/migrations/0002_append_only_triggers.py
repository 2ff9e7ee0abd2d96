"""The database itself refuses UPDATE and DELETE of audit rows (docs/resources.md, audit_entry).

PostgreSQL: a BEFORE UPDATE OR DELETE row trigger that raises. SQLite: BEFORE UPDATE and
BEFORE DELETE triggers that RAISE(ABORT). TRUNCATE (used only by test teardown on
PostgreSQL) is not a row event and is not blocked.
"""

from django.db import migrations

PG_UP = """
CREATE OR REPLACE FUNCTION audit_entry_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'audit entries are append-only (% refused)', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_entry_append_only
  BEFORE UPDATE OR DELETE ON audit_auditentry
  FOR EACH ROW EXECUTE FUNCTION audit_entry_append_only();
"""
PG_DOWN = """
DROP TRIGGER IF EXISTS audit_entry_append_only ON audit_auditentry;
DROP FUNCTION IF EXISTS audit_entry_append_only();
"""
SQLITE_UP = [
    """CREATE TRIGGER audit_entry_no_update BEFORE UPDATE ON audit_auditentry
       BEGIN SELECT RAISE(ABORT, 'audit entries are append-only (UPDATE refused)'); END;""",
    """CREATE TRIGGER audit_entry_no_delete BEFORE DELETE ON audit_auditentry
       BEGIN SELECT RAISE(ABORT, 'audit entries are append-only (DELETE refused)'); END;""",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS audit_entry_no_update;",
    "DROP TRIGGER IF EXISTS audit_entry_no_delete;",
]


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(PG_UP)  # no params: the '%' in RAISE is not a placeholder
    elif schema_editor.connection.vendor == "sqlite":
        for statement in SQLITE_UP:
            schema_editor.execute(statement)


def remove(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PG_DOWN)
    elif schema_editor.connection.vendor == "sqlite":
        for statement in SQLITE_DOWN:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]

    operations = [migrations.RunPython(install, remove)]
