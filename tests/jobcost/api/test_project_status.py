"""The project status machine and the closed-project rule (docs/resources.md, project): bid→active,
active→closeout, closeout→active, closeout→closed; every other move is 409
`invalid_state_transition`; a closed project refuses every write to it or its children with
409 `project_closed`, and nothing is written."""

import itertools

import pytest

from audit.models import AuditEntry
from jobcost.models import BudgetLine
from tests.conftest import error_of
from tests.factories import CommitmentFactory, CostCodeFactory, ProjectFactory, VendorFactory
from tests.jobcost.api.state import db_state

STATUSES = ["bid", "active", "closeout", "closed"]
ALLOWED = {
    ("bid", "active"),
    ("active", "closeout"),
    ("closeout", "active"),
    ("closeout", "closed"),
}
REFUSED = [
    (a, b)
    for a, b in itertools.permutations(STATUSES, 2)
    if (a, b) not in ALLOWED and a != "closed"
]


@pytest.mark.parametrize("start,end", sorted(ALLOWED))
def test_allowed_status_moves(api, account, start, end):
    project = ProjectFactory(account=account, status=start)
    resp = api.patch(f"/v1/projects/{project.pk}", {"status": end})
    assert resp.status_code == 200, resp.content
    assert resp.json()["status"] == end
    project.refresh_from_db()
    assert project.status == end
    entry = AuditEntry.objects.filter(target_id=project.pk).latest("created_at")
    assert entry.changes["status"] == {"before": start, "after": end}


@pytest.mark.parametrize("start,end", REFUSED)
def test_unlisted_status_moves_are_409(api, account, start, end):
    project = ProjectFactory(account=account, status=start)
    before = db_state()
    resp = api.patch(f"/v1/projects/{project.pk}", {"status": end, "name": "Changed"})
    assert resp.status_code == 409
    error = error_of(resp)
    assert (error["code"], error["param"], error["object"]) == (
        "invalid_state_transition",
        "status",
        project.pk,
    )
    assert db_state() == before


def test_refused_moves_cover_every_other_pair():
    assert len(ALLOWED) + len(REFUSED) + 3 == len(STATUSES) * (len(STATUSES) - 1)


@pytest.mark.parametrize("end", ["bid", "active", "closeout"])
def test_closed_project_refuses_status_moves(api, account, end):
    project = ProjectFactory(account=account, status="closed")
    before = db_state()
    resp = api.patch(f"/v1/projects/{project.pk}", {"status": end})
    assert resp.status_code == 409
    assert error_of(resp)["code"] == "project_closed"
    assert db_state() == before


@pytest.mark.parametrize(
    "change", [{"name": "New"}, {"number": "J-NEW"}, {"retainage_pct": 5}, {"status": "closed"}]
)
def test_closed_project_refuses_patch_of_itself(api, account, change):
    project = ProjectFactory(account=account, status="closed")
    before = db_state()
    resp = api.patch(f"/v1/projects/{project.pk}", change)
    assert resp.status_code == 409
    error = error_of(resp)
    assert (error["code"], error["object"]) == ("project_closed", project.pk)
    assert db_state() == before


@pytest.fixture
def closed_job(account):
    """A project with a cost code, a draft and an executed commitment, then closed."""
    project = ProjectFactory(account=account, status="active")
    cost_code = CostCodeFactory(project=project)
    vendor = VendorFactory(account=account)
    draft = CommitmentFactory(project=project, vendor=vendor, cost_code=cost_code)
    executed = CommitmentFactory(project=project, vendor=vendor, cost_code=cost_code, executed=True)
    project.status = "closed"
    project.save()
    return {
        "project": project,
        "cost_code": cost_code,
        "budget": BudgetLine.objects.get(cost_code=cost_code),
        "vendor": vendor,
        "draft": draft,
        "executed": executed,
    }


CHILD_WRITES = {
    "cost_code_create": lambda j: (
        "post",
        "/v1/cost-codes",
        {"project": j["project"].pk, "code": "99-999", "name": "X", "cost_type": "other"},
    ),
    "cost_code_patch": lambda j: ("patch", f"/v1/cost-codes/{j['cost_code'].pk}", {"name": "Y"}),
    "budget_patch_ctc": lambda j: (
        "patch",
        f"/v1/budgets/{j['budget'].pk}",
        {"cost_to_complete": 1_00},
    ),
    "budget_patch_ctc_null": lambda j: (
        "patch",
        f"/v1/budgets/{j['budget'].pk}",
        {"cost_to_complete": None},
    ),
    "commitment_create": lambda j: (
        "post",
        "/v1/commitments",
        {
            "project": j["project"].pk,
            "vendor": j["vendor"].pk,
            "type": "subcontract",
            "original_amount": 1_00,
        },
    ),
    "commitment_patch": lambda j: (
        "patch",
        f"/v1/commitments/{j['draft'].pk}",
        {"description": "late edit"},
    ),
    "commitment_execute": lambda j: ("post", f"/v1/commitments/{j['draft'].pk}/execute", {}),
    "commitment_void_draft": lambda j: ("post", f"/v1/commitments/{j['draft'].pk}/void", {}),
    "commitment_close": lambda j: ("post", f"/v1/commitments/{j['executed'].pk}/close", {}),
    "commitment_void_executed": lambda j: (
        "post",
        f"/v1/commitments/{j['executed'].pk}/void",
        {},
    ),
}


@pytest.mark.parametrize("write", sorted(CHILD_WRITES))
def test_closed_project_refuses_child_writes(api, closed_job, write):
    method, path, payload = CHILD_WRITES[write](closed_job)
    before = db_state()
    resp = getattr(api, method)(path, payload)
    assert resp.status_code == 409, resp.content
    error = error_of(resp)
    assert (error["code"], error["object"]) == ("project_closed", closed_job["project"].pk)
    assert db_state() == before


def test_closed_project_is_still_readable(api, closed_job):
    project = closed_job["project"]
    assert api.get(f"/v1/projects/{project.pk}").json()["status"] == "closed"
    listed = api.get("/v1/commitments", {"project": project.pk}).json()["data"]
    assert {c["id"] for c in listed} == {closed_job["draft"].pk, closed_job["executed"].pk}
