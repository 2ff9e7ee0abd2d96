"""Owners and vendors: create, list, retrieve, PATCH (docs/resources.md, owner, vendor)."""

import pytest

from jobcost.models import Owner, Vendor
from tests.conftest import error_of
from tests.factories import OwnerFactory, VendorFactory
from tests.jobcost.api.state import db_state


def test_create_owner_returns_the_object(api, account):
    resp = api.post("/v1/owners", {"name": "City of Springfield", "email": "ap@springfield.gov"})
    assert resp.status_code == 201, resp.content
    data = resp.json()
    assert data["id"].startswith("own_")
    assert data["object"] == "owner"
    assert data["name"] == "City of Springfield"
    assert data["email"] == "ap@springfield.gov"
    assert data["address"] == ""
    assert data["audit_trail"] == f"/v1/owners/{data['id']}/audit"
    assert data["created_at"].endswith("Z") and data["updated_at"].endswith("Z")
    owner = Owner.objects.get(pk=data["id"])
    assert (owner.account_id, owner.name) == (account.pk, "City of Springfield")


def test_create_owner_requires_a_name(api):
    before = db_state()
    resp = api.post("/v1/owners", {"email": "ap@example.com"})
    assert resp.status_code == 400
    error = error_of(resp)
    assert (error["code"], error["param"]) == ("parameter_missing", "name")
    assert db_state() == before


def test_list_owners_newest_first(api, account):
    first = OwnerFactory(account=account)
    second = OwnerFactory(account=account)
    resp = api.get("/v1/owners")
    assert resp.status_code == 200
    data = resp.json()
    assert data["object"] == "list"
    assert [o["id"] for o in data["data"]] == [second.pk, first.pk]


def test_retrieve_and_patch_owner(api, account):
    owner = OwnerFactory(account=account, name="Old name")
    got = api.get(f"/v1/owners/{owner.pk}")
    assert got.status_code == 200
    assert got.json()["name"] == "Old name"
    resp = api.patch(f"/v1/owners/{owner.pk}", {"name": "New name", "address": "1 Main St"})
    assert resp.status_code == 200, resp.content
    assert resp.json()["name"] == "New name"
    assert resp.json()["address"] == "1 Main St"
    owner.refresh_from_db()
    assert (owner.name, owner.address) == ("New name", "1 Main St")


def test_create_vendor_with_tax_id_last4(api, account):
    resp = api.post(
        "/v1/vendors",
        {"name": "Acme Concrete", "email": "ar@acme.test", "tax_id_last4": "0123", "trade": "03"},
    )
    assert resp.status_code == 201, resp.content
    data = resp.json()
    assert data["id"].startswith("vnd_")
    assert data["object"] == "vendor"
    assert (data["tax_id_last4"], data["trade"]) == ("0123", "03")
    assert Vendor.objects.get(pk=data["id"]).account_id == account.pk


@pytest.mark.parametrize("bad", ["123", "12345", "12a4", "abcd", " 123"])
def test_create_vendor_refuses_tax_id_that_is_not_4_digits(api, bad):
    before = db_state()
    resp = api.post("/v1/vendors", {"name": "Acme", "tax_id_last4": bad})
    assert resp.status_code == 400
    error = error_of(resp)
    assert (error["code"], error["param"]) == ("parameter_invalid", "tax_id_last4")
    assert db_state() == before


@pytest.mark.parametrize("bad", ["999", "99999", "x999"])
def test_patch_vendor_refuses_tax_id_that_is_not_4_digits(api, account, bad):
    vendor = VendorFactory(account=account, tax_id_last4="1111")
    before = db_state()
    resp = api.patch(f"/v1/vendors/{vendor.pk}", {"tax_id_last4": bad})
    assert resp.status_code == 400
    assert error_of(resp)["param"] == "tax_id_last4"
    assert db_state() == before


def test_list_retrieve_and_patch_vendor(api, account):
    older = VendorFactory(account=account)
    vendor = VendorFactory(account=account, name="Steel Co", trade="Steel")
    listed = api.get("/v1/vendors").json()["data"]
    assert [v["id"] for v in listed] == [vendor.pk, older.pk]
    assert api.get(f"/v1/vendors/{vendor.pk}").json()["name"] == "Steel Co"
    resp = api.patch(f"/v1/vendors/{vendor.pk}", {"tax_id_last4": "4321", "trade": "Metals"})
    assert resp.status_code == 200, resp.content
    assert (resp.json()["tax_id_last4"], resp.json()["trade"]) == ("4321", "Metals")
    vendor.refresh_from_db()
    assert (vendor.tax_id_last4, vendor.trade, vendor.name) == ("4321", "Metals", "Steel Co")


def test_list_vendors_filters_by_trade(api, account):
    concrete = VendorFactory(account=account, trade="Concrete")
    VendorFactory(account=account, trade="Electrical")
    data = api.get("/v1/vendors", {"trade": "concrete"}).json()["data"]
    assert [v["id"] for v in data] == [concrete.pk]


def test_patch_vendor_refuses_unknown_field(api, account):
    vendor = VendorFactory(account=account)
    before = db_state()
    resp = api.patch(f"/v1/vendors/{vendor.pk}", {"iban": "DE00"})
    assert resp.status_code == 400
    assert (error_of(resp)["code"], error_of(resp)["param"]) == ("parameter_unknown", "iban")
    assert db_state() == before


@pytest.mark.parametrize("collection,prefix", [("owners", "own"), ("vendors", "vnd")])
def test_retrieve_unknown_or_wrong_prefix_id_is_404(api, collection, prefix):
    for pk in (f"{prefix}_doesnotexist", "prj_doesnotexist"):
        resp = api.get(f"/v1/{collection}/{pk}")
        assert resp.status_code == 404
        assert error_of(resp)["code"] == "resource_missing"
