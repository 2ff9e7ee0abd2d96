"""Queries per write request (README "Benchmarks", "Writes"): the invoice cycle's requests
stay within today's counts, whatever the number of lines coded. Issue 13's target is half of
these; the counts here only ever go down. They include the test transaction's savepoints, as
production's BEGIN/COMMIT are in their place."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import CostCodeFactory, make_job

# create, code, approve: the counts measured on 2026-11-25 (bench_writes prints the same).
CEILINGS = {"create": 25, "code": 29, "approve": 44}


def _cycle(api, job, codes) -> dict[str, int]:
    counts = {}

    def call(step, method, path, body):
        with CaptureQueriesContext(connection) as ctx:
            response = getattr(api, method)(path, body)
        assert response.status_code in (200, 201), response.content
        counts[step] = len(ctx.captured_queries)
        return response.json()

    amount = 100 * len(codes)
    invoice = call(
        "create",
        "post",
        "/v1/invoices",
        {
            "commitment": job.commitment.pk,
            "number": f"Q-{len(codes)}",
            "invoice_date": "2026-11-02",
            "amount": amount,
        },
    )
    lines = [{"cost_code": code.pk, "amount": 100} for code in codes]
    call("code", "patch", f"/v1/invoices/{invoice['id']}", {"lines": lines})
    call("approve", "post", f"/v1/invoices/{invoice['id']}/approve", {})
    return counts


@pytest.mark.postgres
def test_the_invoice_cycle_stays_within_its_query_counts_whatever_the_lines(api, account):
    job = make_job(account, commitment_amount=10_000_000)
    extra = [
        CostCodeFactory(project=job.project, code=f"05-{n:03d}", scheduled_value=0)
        for n in range(9)
    ]
    one = _cycle(api, job, [job.codes["03-000"]])
    ten = _cycle(api, job, [job.codes["03-000"], *extra])
    assert one == ten
    assert all(one[step] <= ceiling for step, ceiling in CEILINGS.items()), one
