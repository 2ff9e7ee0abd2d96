"""Approvals take their row locks in one order (jobcost/services/invoices.py): the commitment,
then the invoice or change order, then the project, then the budget lines. An invoice approval
and a commitment change order's approval on the same commitment therefore queue on the
commitment and can never hold each other's next lock (a deadlock)."""

import threading

import pytest
from django.db import connection, connections

from jobcost.models import ChangeOrder, Commitment, Project
from tests.conftest import Api
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    ProjectFactory,
    make_change_order,
    make_key,
)
from tests.waiting import backend_pid, until_blocked_by


def _lockable_now(probe, model, pk) -> bool:
    """True when `SELECT … FOR UPDATE NOWAIT` gets the row at once (then releases it)."""
    table = connection.ops.quote_name(model._meta.db_table)
    with probe.cursor() as cursor:
        cursor.execute("SAVEPOINT probe")
        try:
            cursor.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE NOWAIT", [pk])
        except Exception:  # psycopg LockNotAvailable, wrapped by Django
            cursor.execute("ROLLBACK TO SAVEPOINT probe")
            return False
        cursor.execute("ROLLBACK TO SAVEPOINT probe")
        return True


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_commitment_change_order_approval_waits_on_the_commitment_before_anything_else():
    """Another transaction holds the commitment (as an invoice approval does first). The
    change order's approval must queue on it holding nothing an invoice approval needs next:
    while it waits, its change order and its project can still be locked by others."""
    account = AccountFactory()
    project = ProjectFactory(account=account)
    commitment = CommitmentFactory(project=project, original_amount=1_000_000, executed=True)
    cco = make_change_order(
        project,
        cost_code=commitment.cost_code,
        amount=50_000,
        kind="commitment",
        commitment=commitment,
    )
    _, secret = make_key(account, "admin")
    holder = connections.create_connection("default")
    probe = connections.create_connection("default")
    results = {}

    def approve():
        try:
            results["response"] = Api(secret).post(f"/v1/change-orders/{cco.pk}/approve")
        finally:
            connection.close()

    try:
        holder.set_autocommit(False)
        with holder.cursor() as cursor:
            table = connection.ops.quote_name(Commitment._meta.db_table)
            cursor.execute(
                f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE",
                [commitment.pk],
            )
        thread = threading.Thread(target=approve)
        thread.start()
        until_blocked_by(probe, backend_pid(holder), alive=thread.is_alive)
        probe.set_autocommit(False)

        assert _lockable_now(probe, Project, project.pk)
        assert _lockable_now(probe, ChangeOrder, cco.pk)

        probe.rollback()
        holder.rollback()  # the commitment is free: the approval goes through
        thread.join(timeout=60)
    finally:
        probe.close()
        holder.close()
    assert results["response"].status_code == 200, results["response"].content
    commitment.refresh_from_db()
    assert commitment.approved_changes == 50_000
