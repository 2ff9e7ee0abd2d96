"""The back office's home page is the job's dashboard (docs/backoffice/dashboard.md): each
open project's figures as the API gives them, in dollars, and the work queues, each a count
of exactly the rows its link lists, for the member's account only."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jobcost.admin.display import accounting
from tests.conftest import Api
from tests.factories import (
    AccountFactory,
    make_change_order,
    make_invoice,
    make_job,
    make_key,
    make_pay_app,
)
from tests.jobcost.admin.pages import member_client

HOME = "/admin/"


def _row(page, number: str) -> dict[str, str]:
    body = page.content.decode()
    match = re.search(rf'<tr data-project="{re.escape(number)}">(.*?)</tr>', body, re.S)
    assert match, f"no row for project {number}"
    return dict(re.findall(r'data-figure="(\w+)">([^<]*)</td>', match.group(1)))


def _queues(page) -> dict[str, int]:
    body = page.content.decode()
    return {
        name: int(count)
        for name, count in re.findall(
            r'data-queue="(\w+)"[^>]*><span class="count">(\d+)</span>', body
        )
    }


@pytest.fixture
def books(db):
    """Two accounts' jobs; account A's has an invoice to code, one to approve, a pending
    change order and a draft pay app whose period holds an approved invoice (its waiver is
    missing)."""
    a = AccountFactory(name="Harbor Build Co")
    job = make_job(a)
    make_invoice(job.commitment, amount=100_000, number="R-1", invoice_date="2026-02-03")
    make_invoice(
        job.commitment, amount=200_000, number="C-1", invoice_date="2026-02-04", status="coded"
    )
    make_invoice(
        job.commitment, amount=300_000, number="A-1", invoice_date="2026-02-05", status="approved"
    )
    make_change_order(job.project, cost_code=job.codes["03-000"], amount=50_000, status="pending")
    make_pay_app(job.project, "2026-02-01", "2026-02-28")
    b = AccountFactory(name="Ridgeline Contractors")
    other = make_job(b)
    make_invoice(other.commitment, amount=1_000, number="X-1", invoice_date="2026-02-03")
    return a, job, b, other


def test_each_project_shows_the_apis_figures_in_dollars(books):
    a, job, _b, other = books
    client = member_client(a, "manager")
    api = Api(make_key(a, "viewer")[1]).get(f"/v1/projects/{job.project.pk}").json()

    page = client.get(HOME)

    assert page.status_code == 200
    row = _row(page, job.project.number)
    assert row["contract"] == accounting(api["contract_amount"]) == "$100,000.00"
    assert row["revised_contract"] == accounting(api["revised_contract"])
    assert row["cost_to_date"] == accounting(api["cost_to_date"]) == "$3,000.00"
    assert row["billed_to_date"] == accounting(api["billed_to_date"])
    assert row["over_under_billing"] == accounting(api["over_under_billing"])
    assert row["percent_complete"] == f"{api['percent_complete']}%"
    assert other.project.pk not in page.content.decode()
    assert page.content.decode().count("data-project=") == 1


def test_the_queues_count_exactly_the_rows_their_links_list(books):
    a, _job, _b, _other = books
    client = member_client(a, "manager")

    page = client.get(HOME)
    queues = _queues(page)

    assert queues["invoices_to_code"] == 1
    assert queues["invoices_to_approve"] == 1
    assert queues["pending_change_orders"] == 1
    assert queues["missing_waivers"] == 1
    body = page.content.decode()
    names = ("invoices_to_code", "invoices_to_approve", "pending_change_orders", "missing_waivers")
    for name in names:
        url = re.search(rf'data-queue="{name}" href="([^"]+)"', body).group(1)
        listed = client.get(url.replace("&amp;", "&"))
        assert listed.status_code == 200
        rows = re.findall(r'<tr[^>]*>\s*<td class="action-checkbox">', listed.content.decode())
        assert len(rows) == queues[name], name


def test_a_viewer_sees_no_queue_it_cannot_open_and_no_webhooks(books):
    a, _job, _b, _other = books

    viewer = _queues(member_client(a, "viewer").get(HOME))
    admin = _queues(member_client(a, "admin").get(HOME))

    assert "failing_webhooks" not in viewer
    assert "failing_webhooks" in admin


def test_a_restricted_member_sees_only_their_projects(books):
    a, job, _b, _other = books
    side = make_job(a)
    make_invoice(side.commitment, amount=5_000, number="S-1", invoice_date="2026-02-03")
    client = member_client(a, "member", projects=[side.project])

    page = client.get(HOME)

    assert f'data-project="{side.project.number}"' in page.content.decode()
    assert job.project.pk not in page.content.decode()
    assert _queues(page)["invoices_to_code"] == 1


def _home_queries(client) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(HOME).status_code == 200
    return len(queries)


def test_the_home_page_costs_the_same_queries_for_one_project_or_five(books):
    a, _job, _b, _other = books
    client = member_client(a, "manager")
    one = _home_queries(client)
    for _ in range(4):
        more = make_job(a)
        make_invoice(more.commitment, amount=1_000, number="M-1", invoice_date="2026-02-03")
        make_pay_app(more.project, "2026-02-01", "2026-02-28")
    assert _home_queries(client) == one
