"""`jobcost.selectors.instances.run`, the one place the prepared reads reach PostgreSQL: outside
Django's query log it runs on a psycopg cursor kept with the connection (docs/architecture.md,
"Prepared reads run on a kept cursor"); these prove it behaves as Django's cursor does."""

import pytest
from django.db import DatabaseError, DataError, connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from jobcost.selectors.instances import run
from tests.factories import OwnerFactory

pytestmark = pytest.mark.postgres

OWNER_NAME = 'SELECT "name" FROM "jobcost_owner" WHERE "id" = %s'


def test_the_same_rows_whether_or_not_django_counts_the_query(account):
    owner = OwnerFactory(account=account, name="Harbor Owner")
    assert not connection.queries_logged
    outside = run(OWNER_NAME, [owner.pk], "default")
    with CaptureQueriesContext(connection) as counted:
        inside = run(OWNER_NAME, [owner.pk], "default")
    assert outside == inside == [("Harbor Owner",)]
    assert [query["sql"] for query in counted.captured_queries] == [
        OWNER_NAME.replace("%s", f"'{owner.pk}'")
    ]


def test_a_failing_statement_raises_djangos_error_and_the_next_one_runs(account):
    owner = OwnerFactory(account=account, name="Harbor Owner")
    with pytest.raises(DataError), transaction.atomic():
        run("SELECT 1 / %s", [0], "default")
    assert run(OWNER_NAME, [owner.pk], "default") == [("Harbor Owner",)]


def test_a_transaction_marked_for_rollback_is_refused_before_the_statement(account):
    owner = OwnerFactory(account=account)
    with transaction.atomic():
        transaction.set_rollback(True)
        with pytest.raises(TransactionManagementError):
            run(OWNER_NAME, [owner.pk], "default")


@pytest.mark.django_db(transaction=True)
def test_a_closed_connection_is_opened_again_with_a_new_cursor(account):
    owner = OwnerFactory(account=account, name="Harbor Owner")
    assert run(OWNER_NAME, [owner.pk], "default") == [("Harbor Owner",)]
    before = connection.connection
    connection.close()
    assert run(OWNER_NAME, [owner.pk], "default") == [("Harbor Owner",)]
    assert connection.connection is not before
    # The server dropping the session (a restart, a pooler) is Django's error, then recovered.
    with pytest.raises(DatabaseError), connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")
    with pytest.raises(DatabaseError):
        run(OWNER_NAME, [owner.pk], "default")
    connection.close_if_unusable_or_obsolete()
    assert run(OWNER_NAME, [owner.pk], "default") == [("Harbor Owner",)]
