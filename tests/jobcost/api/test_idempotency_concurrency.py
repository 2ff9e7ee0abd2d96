"""docs/conventions.md under concurrency (PostgreSQL): identical POSTs racing with one
Idempotency-Key create exactly one row; every twin gets the same 201 or 409
`idempotency_key_in_use`; and a request that fails while a twin holds its key waits a bounded
time to store its error, then answers 409 and stores nothing."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from audit.models import AuditEntry
from jobcost.api import idempotency
from jobcost.models import Commitment, IdempotencyRecord, Invoice
from jobcost.services.common import advisory_lock_id
from tests import factories
from tests.conftest import Api, error_of
from tests.factories import make_invoice, make_key
from tests.jobcost.api.conventions_support import make_job
from tests.waiting import backend_pid, until, until_blocked_by

THREADS = 8


def _race(secret: str, path: str, body: dict, key: str) -> list:
    barrier = threading.Barrier(THREADS)
    responses: list = [None] * THREADS
    failures: list[BaseException] = []

    def run(index: int) -> None:
        try:
            client = Api(secret)
            barrier.wait(timeout=30)
            responses[index] = client.post(path, body, idem=key)
        except BaseException as exc:  # surfaced in the main thread below
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures
    assert all(r is not None for r in responses)
    return responses


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_identical_posts_create_exactly_one_commitment(api, account):
    job = make_job(account)
    body = job.commitment_body(original_amount=7_777_00, number="SC-RACE")
    responses = _race(api.secret, "/v1/commitments", body, "race-1")

    created = [r for r in responses if r.status_code == 201]
    in_use = [r for r in responses if r.status_code == 409]
    assert len(created) + len(in_use) == THREADS, [r.status_code for r in responses]
    assert created, "at least the winner answers 201"
    assert len({r.content for r in created}) == 1
    assert sum(1 for r in created if "Idempotent-Replayed" not in r) == 1
    for response in in_use:
        error = error_of(response)
        assert (error["code"], error["param"]) == ("idempotency_key_in_use", "Idempotency-Key")

    rows = Commitment.objects.filter(project=job.project, number="SC-RACE")
    assert rows.count() == 1
    commitment_id = rows.get().pk
    assert created[0].json()["id"] == commitment_id
    assert AuditEntry.objects.filter(target_id=commitment_id).count() == 1
    assert IdempotencyRecord.objects.filter(key="race-1").count() == 1

    retry = api.post("/v1/commitments", body, idem="race-1")
    assert retry.status_code == 201
    assert retry["Idempotent-Replayed"] == "true"
    assert retry.content == created[0].content
    assert Commitment.objects.filter(project=job.project).count() == 2


def _advisory_waiters(probe) -> int:
    with probe.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
        return cursor.fetchone()[0]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_failed_request_waits_a_bounded_time_for_a_twin_then_answers_409(monkeypatch):
    """docs/conventions.md: a request that fails stores its error in a transaction of its
    own, which waits at most `LOCK_WAIT` for a twin holding the key; past it, 409
    `idempotency_key_in_use` and nothing stored, so a retry still gets the request's own
    outcome. The approval queues on the commitment another transaction holds, the twin
    queues on the key the approval holds, and the other transaction voids the invoice: the
    approval fails, its rollback hands the key to the twin, and its error cannot be stored."""
    monkeypatch.setattr(idempotency, "LOCK_WAIT", "200ms")
    job = factories.make_job(factories.AccountFactory())
    key, secret = make_key(job.project.account, "admin")
    invoice = make_invoice(job.commitment, amount=10_000, number="TW-1", status="coded")
    holder = connections.create_connection("default")
    probe = connections.create_connection("default")
    results = {}

    def approve():
        try:
            results["response"] = Api(secret).post(
                f"/v1/invoices/{invoice.pk}/approve", {}, idem="twin-key"
            )
        finally:
            connection.close()

    release = threading.Event()

    def twin_holds_the_key():
        twin = connections.create_connection("default")
        try:
            twin.set_autocommit(False)
            with twin.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_advisory_xact_lock(%s)", [advisory_lock_id(key.pk, "twin-key")]
                )
            release.wait(timeout=60)
            twin.rollback()
        finally:
            twin.close()

    waiting_twin = threading.Thread(target=twin_holds_the_key)
    try:
        holder.set_autocommit(False)
        commitments = connection.ops.quote_name(Commitment._meta.db_table)
        with holder.cursor() as cursor:
            cursor.execute(
                f"SELECT 1 FROM {commitments} WHERE id = %s FOR UPDATE", [job.commitment.pk]
            )
        approval = threading.Thread(target=approve)
        approval.start()
        until_blocked_by(probe, backend_pid(holder), alive=approval.is_alive)
        waiting_twin.start()
        until(lambda: _advisory_waiters(probe) == 1, what="the twin waiting on the key")
        invoices = connection.ops.quote_name(Invoice._meta.db_table)
        with holder.cursor() as cursor:
            cursor.execute(f"UPDATE {invoices} SET status = 'void' WHERE id = %s", [invoice.pk])
        holder.commit()
        approval.join(timeout=30)
        assert not approval.is_alive()
        response = results["response"]
        assert response.status_code == 409, response.content
        assert error_of(response)["code"] == "idempotency_key_in_use"
        assert not IdempotencyRecord.objects.filter(api_key_id=key.pk, key="twin-key").exists()
    finally:
        release.set()
        for extra in (holder, probe):
            extra.close()
    if waiting_twin.ident is not None:
        waiting_twin.join(timeout=30)
        assert not waiting_twin.is_alive()

    retry = Api(secret).post(f"/v1/invoices/{invoice.pk}/approve", {}, idem="twin-key")
    assert error_of(retry)["code"] == "invalid_state_transition"
    assert IdempotencyRecord.objects.get(api_key_id=key.pk, key="twin-key").response_status == (
        retry.status_code
    )
