"""docs/conventions.md under concurrency (PostgreSQL): identical POSTs racing with one
Idempotency-Key create exactly one row; every twin gets the same 201 or 409
`idempotency_key_in_use`."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from audit.models import AuditEntry
from jobcost.models import Commitment, IdempotencyRecord
from tests.conftest import Api, error_of
from tests.jobcost.api.conventions_support import make_job

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
