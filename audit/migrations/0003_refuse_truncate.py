"""The database refuses TRUNCATE of the audit table too (docs/resources.md, audit_entry;
docs/operations/production.md, "Database roles").

PostgreSQL: a statement-level BEFORE TRUNCATE trigger that raises, unless the setting
`jobcost.allow_audit_truncate` is `on`. Only the test databases set it (`ALTER DATABASE … SET`,
in `tests/conftest.py`), so that the teardown of transactional tests can empty every table;
a production database never has it, and the service's role has no TRUNCATE privilege anyway.
SQLite has no TRUNCATE (its `DELETE FROM` without WHERE is refused by migration 0002).
"""

from django.db import migrations

PG_UP = """
CREATE OR REPLACE FUNCTION audit_entry_no_truncate() RETURNS trigger AS $$
BEGIN
  IF coalesce(current_setting('jobcost.allow_audit_truncate', true), '') = 'on' THEN
    RETURN NULL;
  END IF;
  RAISE EXCEPTION 'audit entries are append-only (% refused)', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_entry_no_truncate
  BEFORE TRUNCATE ON audit_auditentry
  FOR EACH STATEMENT EXECUTE FUNCTION audit_entry_no_truncate();
"""
PG_DOWN = """
DROP TRIGGER IF EXISTS audit_entry_no_truncate ON audit_auditentry;
DROP FUNCTION IF EXISTS audit_entry_no_truncate();
"""


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(PG_UP)  # no params: the '%' in RAISE is not a placeholder


def remove(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PG_DOWN)


class Migration(migrations.Migration):
    dependencies = [("audit", "0002_append_only_triggers")]

    operations = [migrations.RunPython(install, remove)]
