"""The conventions (docs/conventions.md) seen through the API: Request-Id and Jobcost-Version on
every response, UTC `Z` timestamps, integer cents, numeric percentages, prefixed random IDs, the
fields every
object carries, and a wrong-prefix ID being 404."""

from __future__ import annotations

import datetime
import itertools
import math
import re

from django.conf import settings

from jobcost.models import Project
from tests.conftest import Api, error_of
from tests.factories import AccountFactory, OwnerFactory, VendorFactory
from tests.jobcost.api.conventions_support import make_job, row_counts

REQUEST_ID = re.compile(r"^req_[A-Za-z0-9]{14,64}$")
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
BASE62 = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _assert_standard_headers(response) -> str:
    assert REQUEST_ID.match(response["Request-Id"]), response["Request-Id"]
    assert response["Jobcost-Version"] == settings.JOBCOST_API_VERSIONS[-1]
    return response["Request-Id"]


def test_every_kind_of_response_carries_request_id_and_version(api, account):
    job = make_job(account)
    anonymous = Api(None)
    responses = [
        api.get("/v1/projects"),
        api.get(f"/v1/projects/{job.project.pk}"),
        api.post("/v1/owners", {"name": "Harbor Trust"}),
        api.post("/v1/owners", "{not json"),
        api.post("/v1/owners", "name=x", content_type="application/x-www-form-urlencoded"),
        api.post("/v1/owners", {"name": "x" * (1024 * 1024)}),
        api.get("/v1/projects/prj_doesnotexist0000000000"),
        api.client.delete("/v1/projects", headers=api._headers({})),
        anonymous.get("/v1/projects"),
        anonymous.get("/v1/no-such-route"),
        anonymous.get("/no-such-page"),
        anonymous.get("/healthz"),
    ]
    statuses = [r.status_code for r in responses]
    assert statuses == [200, 200, 201, 400, 415, 413, 404, 405, 401, 404, 404, 200]
    ids = [_assert_standard_headers(r) for r in responses]
    assert len(set(ids)) == len(ids)
    for response in responses:
        if response.status_code >= 400:
            assert error_of(response)["request_id"] == response["Request-Id"]


def test_request_ids_differ_for_identical_requests(api):
    ids = {api.get("/v1/owners")["Request-Id"] for _ in range(20)}
    assert len(ids) == 20


def test_timestamps_are_utc_with_z(api, account):
    job = make_job(account)
    executed = api.post(f"/v1/commitments/{job.commitment.pk}/execute")
    assert executed.status_code == 200, executed.content
    body = executed.json()
    for field in ("created_at", "updated_at", "executed_at"):
        assert TIMESTAMP.match(body[field]), (field, body[field])
    parsed = datetime.datetime.fromisoformat(body["executed_at"].replace("Z", "+00:00"))
    now = datetime.datetime.now(datetime.UTC)
    assert abs((now - parsed).total_seconds()) < 60
    assert body["closed_at"] is None
    trail = api.get(f"/v1/commitments/{job.commitment.pk}/audit").json()
    assert all(TIMESTAMP.match(entry["created_at"]) for entry in trail["data"])


def test_money_is_integer_cents_and_percentages_are_numbers(api, account):
    job = make_job(account, retainage_pct="7.25")
    project = api.get(f"/v1/projects/{job.project.pk}").json()
    for field in (
        "contract_amount",
        "approved_changes",
        "revised_contract",
        "cost_to_date",
        "projected_cost",
        "billed_to_date",
        "earned_revenue",
        "over_under_billing",
    ):
        assert type(project[field]) is int, (field, project[field])
    assert project["contract_amount"] == 100_000_00
    assert project["currency"] == "usd"
    assert project["retainage_pct"] == 7.25
    for field in ("retainage_pct", "percent_complete", "projected_margin_pct"):
        assert type(project[field]) in (int, float), (field, project[field])
    commitment = api.get(f"/v1/commitments/{job.commitment.pk}").json()
    for field in ("original_amount", "revised_amount", "billed_to_date", "remaining"):
        assert type(commitment[field]) is int, (field, commitment[field])
    assert commitment["currency"] == "usd"
    budget = api.get(f"/v1/budgets/{job.cost_code.budget_line.pk}").json()
    for field in ("original_amount", "revised_amount", "committed", "actual", "variance"):
        assert type(budget[field]) is int, (field, budget[field])


def test_ids_are_prefixed_url_safe_and_carry_at_least_80_random_bits(api, account):
    job = make_job(account)
    owner = api.post("/v1/owners", {"name": "Harbor Trust"}).json()
    vendors = [api.post("/v1/vendors", {"name": f"V{n}"}).json() for n in range(10)]
    trail = api.get(f"/v1/owners/{owner['id']}/audit").json()["data"]
    ids = {
        "own": [owner["id"]],
        "vnd": [v["id"] for v in vendors],
        "prj": [job.project.pk],
        "cc": [job.cost_code.pk],
        "bl": [job.cost_code.budget_line.pk],
        "cmt": [job.commitment.pk],
        "aud": [entry["id"] for entry in trail],
        "key": [api.key.pk],
        "acct": [account.pk],
    }
    seen = set()
    for prefix, values in ids.items():
        for value in values:
            head, _, opaque = value.partition("_")
            assert head == prefix, value
            assert set(opaque) <= BASE62, value
            assert len(opaque) * math.log2(len(BASE62)) >= 80, value
            seen.add(value)
    assert len(seen) == sum(len(v) for v in ids.values())
    # Not a sequence: consecutive vendors share no long common prefix.
    opaque = sorted(v["id"][4:] for v in vendors)
    assert all(a[:6] != b[:6] for a, b in itertools.pairwise(opaque))


def test_id_with_the_wrong_prefix_for_the_path_is_404(api, account):
    job = make_job(account)
    for path in (
        f"/v1/projects/{job.vendor.pk}",
        f"/v1/commitments/{job.project.pk}",
        f"/v1/cost-codes/{job.cost_code.budget_line.pk}",
        f"/v1/budgets/{job.cost_code.pk}",
        f"/v1/vendors/{job.project.owner_id}",
        "/v1/projects/prj_",
        "/v1/projects/prj_!!!",
    ):
        response = api.get(path)
        assert response.status_code == 404, path
        error = error_of(response)
        assert (error["type"], error["code"], error["param"]) == (
            "not_found",
            "resource_missing",
            "id",
        )
    before = row_counts()
    response = api.patch(f"/v1/projects/{job.commitment.pk}", {"name": "Renamed"})
    assert response.status_code == 404
    assert error_of(response)["code"] == "resource_missing"
    assert row_counts() == before
    assert Project.objects.get(pk=job.project.pk).name == job.project.name


def test_every_object_carries_id_object_timestamps_audit_trail_and_project(api, account):
    job = make_job(account)
    objects = {
        "projects": ("project", job.project.pk, False),
        "cost-codes": ("cost_code", job.cost_code.pk, True),
        "budgets": ("budget_line", job.cost_code.budget_line.pk, True),
        "commitments": ("commitment", job.commitment.pk, True),
        "vendors": ("vendor", job.vendor.pk, False),
        "owners": ("owner", job.project.owner_id, False),
    }
    for collection, (name, pk, child) in objects.items():
        body = api.get(f"/v1/{collection}/{pk}").json()
        assert body["id"] == pk
        assert body["object"] == name
        assert TIMESTAMP.match(body["created_at"]) and TIMESTAMP.match(body["updated_at"])
        assert body["audit_trail"] == f"/v1/{collection}/{pk}/audit"
        assert api.get(body["audit_trail"]).status_code == 200
        if child:
            assert body["project"] == job.project.pk


def test_updated_at_changes_on_every_write(api, account):
    job = make_job(account)
    long_ago = datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)
    Project.objects.filter(pk=job.project.pk).update(updated_at=long_ago)
    before = api.get(f"/v1/projects/{job.project.pk}").json()
    assert before["updated_at"] == "2020-01-01T00:00:00Z"
    patched = api.patch(f"/v1/projects/{job.project.pk}", {"name": "Renamed"}).json()
    assert patched["updated_at"] != before["updated_at"]
    assert patched["created_at"] == before["created_at"]


def test_objects_of_another_account_are_404_and_absent_from_lists(api, account):
    other = AccountFactory()
    vendor = VendorFactory(account=other)
    owner = OwnerFactory(account=other)
    response = api.get(f"/v1/vendors/{vendor.pk}")
    assert response.status_code == 404
    assert error_of(response)["code"] == "resource_missing"
    assert api.get(f"/v1/owners/{owner.pk}/audit").status_code == 404
    assert vendor.pk not in {v["id"] for v in api.get("/v1/vendors").json()["data"]}
