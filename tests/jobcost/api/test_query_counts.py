"""Reads cost a bounded number of queries whatever their size (docs/computations.md):
every list costs the same for a page of 1 row and a page of 25+, every project retrieve the same
with 0
or many budget lines and commitments, and `expand[]` adds one query per level, not per row.

Each count covers the whole request (key lookup, key's projects, then the read itself).
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.services import audit_record
from jobcost import models
from jobcost.models import BudgetLine
from tests.factories import (
    CommitmentFactory,
    CostCodeFactory,
    OwnerFactory,
    ProjectFactory,
    VendorFactory,
)

# Query counts are those of a request that reads its key (the first of a key in a second).
pytestmark = pytest.mark.usefixtures("cold_keys")

# The API key (with its account), the key's projects, the rows; a detail route's audit trail
# also reads its target first.
MAX_QUERIES = 4
MANY = 30


def _count(api, path, params=None, expected_rows=None):
    with CaptureQueriesContext(connection) as ctx:
        resp = api.get(path, params)
    assert resp.status_code == 200, resp.content
    if expected_rows is not None:
        assert len(resp.json()["data"]) == expected_rows
    return len(ctx.captured_queries)


def _rich_project(account, vendors=1, codes=1):
    """A project with `codes` cost codes (and budget lines), each with an executed and a
    draft commitment from rotating vendors."""
    project = ProjectFactory(account=account)
    pool = [VendorFactory(account=account) for _ in range(vendors)]
    for n in range(codes):
        code = CostCodeFactory(project=project)
        common = {"project": project, "cost_code": code, "vendor": pool[n % vendors]}
        CommitmentFactory(**common, executed=True)
        CommitmentFactory(**common)
    return project


MAKERS = {
    "owners": lambda account: OwnerFactory(account=account),
    "vendors": lambda account: VendorFactory(account=account),
    "projects": lambda account: _rich_project(account, codes=2),
    "cost-codes": lambda account: CostCodeFactory(project=ProjectFactory(account=account)),
    "budgets": lambda account: CostCodeFactory(project=ProjectFactory(account=account)),
    "commitments": lambda account: CommitmentFactory(
        project=ProjectFactory(account=account), vendor=VendorFactory(account=account)
    ),
}


def _grow(collection, account, upto):
    """Add rows of the collection until the account has `upto` of them."""
    model = {
        "owners": models.Owner,
        "vendors": models.Vendor,
        "projects": models.Project,
        "cost-codes": models.CostCode,
        "budgets": models.BudgetLine,
        "commitments": models.Commitment,
    }[collection]
    while model.objects.filter(account=account).count() < upto:
        MAKERS[collection](account)


@pytest.mark.parametrize("collection", sorted(MAKERS))
def test_list_query_count_does_not_grow_with_the_page(api, account, collection):
    _grow(collection, account, 1)
    api.get(f"/v1/{collection}")  # warm any per-process caches
    small = _count(api, f"/v1/{collection}", expected_rows=1)
    _grow(collection, account, MANY)
    page = _count(api, f"/v1/{collection}", expected_rows=25)
    full = _count(api, f"/v1/{collection}", {"limit": 100}, expected_rows=MANY)
    assert small == page == full
    assert small <= MAX_QUERIES


@pytest.mark.parametrize("path", ["owners", "projects"])
def test_second_page_costs_the_same(api, account, path):
    _grow("owners" if path == "owners" else "projects", account, MANY)
    first = api.get(f"/v1/{path}", {"limit": 10}).json()
    with CaptureQueriesContext(connection) as ctx:
        resp = api.get(f"/v1/{path}", {"limit": 10, "cursor": first["next_cursor"]})
    assert resp.status_code == 200 and len(resp.json()["data"]) == 10
    assert len(ctx.captured_queries) == _count(api, f"/v1/{path}", {"limit": 10})


def test_audit_trail_query_count_does_not_grow(api, account):
    owner = OwnerFactory(account=account)
    path = f"/v1/owners/{owner.pk}/audit"
    api.get(path)
    small = _count(api, path, expected_rows=1)
    for n in range(MANY):
        audit_record(
            target_type="owner",
            target_id=owner.pk,
            account_id=account.pk,
            action="updated",
            changes={"name": {"before": str(n), "after": str(n + 1)}},
        )
    page = _count(api, path, expected_rows=25)
    full = _count(api, path, {"limit": 100}, expected_rows=MANY + 1)
    assert small == page == full
    assert small <= MAX_QUERIES


def test_project_retrieve_costs_the_same_empty_or_large(api, account):
    empty = ProjectFactory(account=account)
    large = _rich_project(account, vendors=5, codes=MANY)
    assert BudgetLine.objects.filter(project=large).count() == MANY
    api.get(f"/v1/projects/{empty.pk}")
    with CaptureQueriesContext(connection) as ctx_empty:
        assert api.get(f"/v1/projects/{empty.pk}").status_code == 200
    with CaptureQueriesContext(connection) as ctx_large:
        resp = api.get(f"/v1/projects/{large.pk}")
    assert resp.status_code == 200
    assert resp.json()["projected_cost"] > 0
    assert len(ctx_empty.captured_queries) == len(ctx_large.captured_queries) <= MAX_QUERIES


@pytest.mark.parametrize(
    "expand,levels",
    [("data.vendor", 1), ("data.project", 1), ("data.cost_code.project", 2)],
)
def test_list_expand_costs_one_query_per_level(api, account, expand, levels):
    def commitments(n):
        project = ProjectFactory(account=account)
        for _ in range(n):
            code = CostCodeFactory(project=project)
            CommitmentFactory(
                project=project, cost_code=code, vendor=VendorFactory(account=account)
            )

    commitments(1)
    api.get("/v1/commitments", {"expand[]": expand})
    plain = _count(api, "/v1/commitments", expected_rows=1)
    small = _count(api, "/v1/commitments", {"expand[]": expand}, expected_rows=1)
    for _ in range(5):
        commitments(6)
    page = _count(api, "/v1/commitments", {"expand[]": expand}, expected_rows=25)
    full = _count(api, "/v1/commitments", {"expand[]": expand, "limit": 100}, expected_rows=31)
    assert small == page == full == plain + levels
    assert full <= MAX_QUERIES + levels
