"""The walk-through path works end to end through the API."""

from tests.conftest import error_of
from tests.factories import CostCodeFactory, ProjectFactory, VendorFactory


def test_create_commitment_then_replay_and_read_audit(api, account):
    project = ProjectFactory(account=account)
    cost_code = CostCodeFactory(project=project)
    vendor = VendorFactory(account=account)
    body = {
        "project": project.pk,
        "vendor": vendor.pk,
        "type": "subcontract",
        "original_amount": 1_234_00,
        "cost_code": cost_code.pk,
    }
    first = api.post("/v1/commitments", body, idem="walk-1")
    assert first.status_code == 201, first.content
    again = api.post("/v1/commitments", body, idem="walk-1")
    assert again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    commitment_id = first.json()["id"]
    trail = api.get(f"/v1/commitments/{commitment_id}/audit").json()
    assert [e["action"] for e in trail["data"]] == ["created"]
    assert trail["data"][0]["changes"]["original_amount"] == {"before": None, "after": 123400}
    other = api.post("/v1/commitments", {**body, "original_amount": 1}, idem="walk-1")
    assert other.status_code == 409
    assert error_of(other)["code"] == "idempotency_key_reused"
