"""Queries per write request (docs/benchmarks.md, "Writes"): the invoice cycle's requests
stay within their counts, whatever the number of lines coded: at most half of what they were
before the writes were made lighter (25 / 29 / 44). The counts here only ever go down. They include
the test transaction's savepoints, as production's BEGIN/COMMIT are in their place."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import CostCodeFactory, make_job

# Query counts are those of a request that reads its key (the first of a key in a second).
pytestmark = pytest.mark.usefixtures("cold_keys")

# create, code, approve: 25 / 29 / 44 on 2026-11-25, before the writes were made lighter; the
# counts measured after it (bench_writes prints the same).
CEILINGS = {"create": 12, "code": 14, "approve": 21}


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


@pytest.mark.postgres
def test_recoding_replaces_the_lines_in_one_statement_and_records_the_old_ones(api, account):
    """The old lines are deleted and the new ones, at the same positions, inserted in one
    statement (the unique (invoice, position) index never sees both); the entry has both."""
    job = make_job(account, commitment_amount=10_000_000)
    first, second = job.codes["03-000"], job.codes["09-000"]
    invoice = api.post(
        "/v1/invoices",
        {
            "commitment": job.commitment.pk,
            "number": "R-1",
            "invoice_date": "2026-11-02",
            "amount": 300,
        },
    ).json()
    path = f"/v1/invoices/{invoice['id']}"
    old = [{"cost_code": first.pk, "amount": 100}, {"cost_code": second.pk, "amount": 200}]
    new = [{"cost_code": second.pk, "amount": 250}, {"cost_code": first.pk, "amount": 50}]
    assert api.patch(path, {"lines": old}).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        response = api.patch(path, {"lines": new})
    assert response.status_code == 200, response.content
    line_writes = [
        q["sql"]
        for q in queries.captured_queries
        if "jobcost_invoiceline" in q["sql"] and ("DELETE" in q["sql"] or "INSERT" in q["sql"])
    ]
    assert len(line_writes) == 1, line_writes
    assert "DELETE" in line_writes[0] and "INSERT" in line_writes[0]
    assert response.json()["lines"] == new
    trail = api.get(f"{path}/audit").json()["data"]
    coded = [entry for entry in trail if entry["action"] == "coded"]
    assert {"before": old, "after": new} in [entry["changes"]["lines"] for entry in coded]
