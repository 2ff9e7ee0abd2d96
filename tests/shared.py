"""Rows built once for all the tests of a module, as Django's `TestCase.setUpTestData` does:
inside an outer transaction that is rolled back after the module's last test. Each test's own
transaction (pytest-django's `db`) is then a savepoint inside it, rolled back after the test,
so every test starts from the same rows and none sees another's changes.

For tests in a transaction only (`db`): a transactional test (`transaction=True`,
`live_server`) would commit through the outer transaction and must build its own rows."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction


@contextmanager
def rows_for_the_module(django_db_blocker) -> Iterator[None]:
    """Open the module's outer transaction (database access allowed while it is open); the
    caller builds its rows inside, yields them to the module's tests, and everything is
    rolled back on exit."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield
        transaction.set_rollback(True)
