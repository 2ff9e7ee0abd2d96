"""`expand[]` (docs/conventions.md): ID fields become objects on retrieve, list (`data.` paths) and
write responses, two levels at most, and only with objects the key may see."""

import pytest

from jobcost.models import Commitment
from tests.conftest import error_of
from tests.factories import CommitmentFactory, CostCodeFactory, ProjectFactory, VendorFactory


@pytest.fixture
def job(account):
    project = ProjectFactory(account=account)
    cost_code = CostCodeFactory(project=project)
    vendor = VendorFactory(account=account, name="Acme Steel")
    commitment = CommitmentFactory(project=project, vendor=vendor, cost_code=cost_code)
    return {"project": project, "cost_code": cost_code, "vendor": vendor, "cmt": commitment}


def test_expand_owner_on_project(api, job):
    project = job["project"]
    plain = api.get(f"/v1/projects/{project.pk}").json()
    assert plain["owner"] == project.owner_id
    data = api.get(f"/v1/projects/{project.pk}", {"expand[]": "owner"}).json()
    assert data["owner"]["id"] == project.owner_id
    assert data["owner"]["object"] == "owner"
    assert data["owner"]["name"] == project.owner.name
    assert {k: v for k, v in data.items() if k != "owner"} == {
        k: v for k, v in plain.items() if k != "owner"
    }


def test_expand_vendor_and_two_levels_on_commitment(api, job):
    data = api.get(
        f"/v1/commitments/{job['cmt'].pk}", {"expand[]": ["vendor", "cost_code.project"]}
    ).json()
    assert (data["vendor"]["object"], data["vendor"]["name"]) == ("vendor", "Acme Steel")
    assert data["cost_code"]["object"] == "cost_code"
    assert data["cost_code"]["code"] == job["cost_code"].code
    assert data["cost_code"]["project"]["object"] == "project"
    assert data["cost_code"]["project"]["id"] == job["project"].pk
    assert data["project"] == job["project"].pk


def test_expand_on_list_uses_data_paths(api, account, job):
    other_vendor = VendorFactory(account=account, name="Bolt Supply")
    CommitmentFactory(project=job["project"], vendor=other_vendor, cost_code=job["cost_code"])
    rows = api.get("/v1/commitments", {"expand[]": "data.vendor"}).json()["data"]
    assert [r["vendor"]["name"] for r in rows] == ["Bolt Supply", "Acme Steel"]
    assert all(isinstance(r["cost_code"], str) for r in rows)
    deep = api.get("/v1/commitments", {"expand[]": "data.cost_code.project"}).json()["data"]
    assert {r["cost_code"]["project"]["id"] for r in deep} == {job["project"].pk}


def test_expand_on_create_response(api, job):
    resp = api.post(
        "/v1/commitments?expand[]=vendor",
        {
            "project": job["project"].pk,
            "vendor": job["vendor"].pk,
            "type": "purchase_order",
            "original_amount": 1_00,
        },
    )
    assert resp.status_code == 201, resp.content
    assert resp.json()["vendor"]["name"] == "Acme Steel"


@pytest.mark.parametrize(
    "path,params,code",
    [
        ("commitments/{cmt}", {"expand[]": "cost_code.project.owner"}, "expand_too_deep"),
        ("commitments", {"expand[]": "data.cost_code.project.owner"}, "expand_too_deep"),
        ("commitments/{cmt}", {"expand[]": "number"}, "expand_invalid"),
        ("commitments/{cmt}", {"expand[]": "vendor.name"}, "expand_invalid"),
        ("commitments", {"expand[]": "vendor"}, "expand_invalid"),
        ("projects/{prj}", {"expand[]": "data.owner"}, "expand_invalid"),
    ],
)
def test_bad_expand_paths_are_400(api, job, path, params, code):
    url = "/v1/" + path.format(cmt=job["cmt"].pk, prj=job["project"].pk)
    resp = api.get(url, params)
    assert resp.status_code == 400
    assert (error_of(resp)["code"], error_of(resp)["param"]) == (code, "expand[]")


def test_expansion_respects_visibility(api, job):
    """Point the commitment at another account's vendor behind the API's back (the services
    never allow it): the key must still see only an ID, never the foreign object."""
    foreign = VendorFactory(name="Not yours")
    Commitment.objects.filter(pk=job["cmt"].pk).update(vendor=foreign)
    one = api.get(f"/v1/commitments/{job['cmt'].pk}", {"expand[]": "vendor"}).json()
    assert one["vendor"] == foreign.pk
    rows = api.get("/v1/commitments", {"expand[]": "data.vendor"}).json()["data"]
    assert [r["vendor"] for r in rows] == [foreign.pk]


def test_restricted_key_cannot_expand_into_a_hidden_project(make_api, account, job):
    """A cost code moved (behind the API's back) under a project the key cannot see."""
    hidden = ProjectFactory(account=account)
    key_api = make_api(account, "member", projects=[job["project"]])
    Commitment.objects.filter(pk=job["cmt"].pk).update(cost_code=CostCodeFactory(project=hidden))
    data = key_api.get(f"/v1/commitments/{job['cmt'].pk}", {"expand[]": "cost_code"}).json()
    assert isinstance(data["cost_code"], str)
    project = key_api.get(f"/v1/commitments/{job['cmt'].pk}", {"expand[]": "project"}).json()
    assert project["project"]["id"] == job["project"].pk
