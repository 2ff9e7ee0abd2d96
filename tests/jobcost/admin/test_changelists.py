"""Every model has a list page that loads with data, shows money as dollars, and costs the
same number of queries whatever the number of rows (list_select_related, docs/architecture.md)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEntry
from jobcost.models import IdempotencyRecord
from jobcost.services.commitments import commitment_execute
from jobcost.services.cost_codes import budget_line_update
from tests.conftest import Api
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    CostCodeFactory,
    OwnerFactory,
    ProjectFactory,
    VendorFactory,
    make_key,
)
from tests.jobcost.admin.pages import text

LISTS = [
    "/admin/jobcost/account/",
    "/admin/jobcost/apikey/",
    "/admin/jobcost/owner/",
    "/admin/jobcost/vendor/",
    "/admin/jobcost/project/",
    "/admin/jobcost/costcode/",
    "/admin/jobcost/budgetline/",
    "/admin/jobcost/commitment/",
    "/admin/jobcost/idempotencyrecord/",
    "/admin/audit/auditentry/",
]


def _api_write(account):
    """One API POST, so an idempotency record and an api_key-actor audit entry exist."""
    _key, secret = make_key(account, "admin")
    response = Api(secret).post("/v1/vendors", {"name": "Summit Steel"}, idem="list-pages-1")
    assert response.status_code == 201, response.content


@pytest.mark.parametrize("path", LISTS)
def test_every_list_page_loads_with_data(web, job, path):
    _api_write(job.account)
    shown = {
        "/admin/jobcost/account/": "Harbor Build Co",
        "/admin/jobcost/apikey/": "jc_test_…",
        "/admin/jobcost/owner/": "Bayview Hospital District",
        "/admin/jobcost/vendor/": "Summit Steel",
        "/admin/jobcost/project/": "Bayview Clinic",
        "/admin/jobcost/costcode/": "Cast-in-place concrete",
        "/admin/jobcost/budgetline/": "03-300",
        "/admin/jobcost/commitment/": "SC-001",
        "/admin/jobcost/idempotencyrecord/": "list-pages-1",
        "/admin/audit/auditentry/": job.project.pk,
    }[path]
    response = web.get(path)
    assert response.status_code == 200
    assert shown in text(response)
    assert "0 results" not in text(response)


def test_admin_index_lists_every_model(web):
    page = text(web.get("/admin/"))
    for name in [
        "Accounts",
        "API keys",
        "Owners",
        "Vendors",
        "Projects",
        "Cost codes",
        "Budget lines",
        "Commitments",
        "Idempotency records",
        "Audit entries",
    ]:
        assert name in page


def test_money_is_shown_in_dollars(web, job):
    commitment_execute(commitment_id=job.subcontract.pk)
    # Projected cost above the revised budget makes the variance negative.
    line = job.electrical.budget_line
    budget_line_update(
        budget_line_id=line.pk, changes={"cost_to_complete": 2_500_000_00 + 1_234_50}
    )

    projects = text(web.get("/admin/jobcost/project/"))
    assert "$8,400,000.00" in projects
    budgets = text(web.get("/admin/jobcost/budgetline/"))
    assert "$5,200,000.00" in budgets  # committed on 03-300
    assert "$2,501,234.50" in budgets  # cost to complete on 26-000
    assert "($1,234.50)" in budgets  # its variance
    commitments = text(web.get("/admin/jobcost/commitment/"))
    assert "$5,200,000.00" in commitments
    assert "520000000" not in commitments


def _more_rows(account):
    """Three more of everything, in a second account too."""
    for acct in (account, AccountFactory()):
        owner = OwnerFactory(account=acct)
        vendor = VendorFactory(account=acct)
        for _ in range(2):
            project = ProjectFactory(account=acct, owner=owner)
            code = CostCodeFactory(project=project)
            CommitmentFactory(project=project, vendor=vendor, cost_code=code, executed=True)
        make_key(acct, "viewer")
        _api_write(acct)


def _queries(web, path) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert web.get(path).status_code == 200
    return len(captured)


def test_list_pages_cost_the_same_queries_whatever_the_rows(web, job):
    _api_write(job.account)
    before = {path: _queries(web, path) for path in LISTS}
    _more_rows(job.account)
    assert IdempotencyRecord.objects.count() == 3
    after = {path: _queries(web, path) for path in LISTS}
    assert after == before


def test_search_and_filters(web, job):
    other = ProjectFactory(account=job.account, owner=job.owner, number="J-9999", name="Depot")
    found = text(web.get("/admin/jobcost/project/", {"q": "J-2401"}))
    assert "Bayview Clinic" in found and "Depot" not in found
    by_name = text(web.get("/admin/jobcost/project/", {"q": "depot"}))
    assert "Depot" in by_name and "Bayview Clinic" not in by_name

    codes = text(web.get("/admin/jobcost/costcode/", {"q": "26-000"}))
    assert "Electrical" in codes and "Cast-in-place concrete" not in codes
    by_project = text(web.get("/admin/jobcost/costcode/", {"project__id__exact": other.pk}))
    assert "Electrical" not in by_project

    CommitmentFactory(project=job.project, vendor=job.vendor, cost_code=job.electrical)
    commitment_execute(commitment_id=job.subcontract.pk)
    executed = text(web.get("/admin/jobcost/commitment/", {"status__exact": "executed"}))
    assert "SC-001" in executed and "SC-002" not in executed
    by_number = text(web.get("/admin/jobcost/commitment/", {"q": "SC-002"}))
    assert "SC-002" in by_number and "SC-001" not in by_number

    active = text(web.get("/admin/jobcost/project/", {"status__exact": "bid"}))
    assert "Bayview Clinic" not in active

    entries = text(web.get("/admin/audit/auditentry/", {"q": job.subcontract.pk}))
    assert job.subcontract.pk in entries and job.project.pk not in entries
    assert AuditEntry.objects.filter(target_id=job.subcontract.pk).count() == 2
