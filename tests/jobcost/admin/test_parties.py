"""Owners and vendors in the back office, through `services.parties`."""

from audit.models import AuditEntry
from jobcost.models import Owner, Vendor
from tests.jobcost.admin.pages import admin_url, errors_of, form_data


def test_owner_is_added_and_edited_through_the_service(web, job):
    added = web.post(
        "/admin/jobcost/owner/add/",
        {"account": job.account.pk, "name": "Port Authority", "email": "", "address": "Pier 9"},
    )
    assert added.status_code == 302, errors_of(added)
    owner = Owner.objects.get(name="Port Authority")
    url = admin_url(owner)
    data = form_data(web.get(url), "owner_form")
    assert "account" not in data

    changed = web.post(url, {**data, "email": "ap@port.example"})

    assert changed.status_code == 302, errors_of(changed)
    owner.refresh_from_db()
    assert (owner.account_id, owner.email, owner.address) == (
        job.account.pk,
        "ap@port.example",
        "Pier 9",
    )
    trail = list(
        AuditEntry.objects.filter(target_id=owner.pk)
        .order_by("created_at", "id")
        .values_list("action", "actor_type", "actor_id")
    )
    assert trail == [("created", "user", "accountant"), ("updated", "user", "accountant")]


def test_vendor_with_a_bad_tax_id_is_refused_and_nothing_is_written(web, job):
    audit_before = AuditEntry.objects.count()
    response = web.post(
        "/admin/jobcost/vendor/add/",
        {"account": job.account.pk, "name": "Ridge Steel", "tax_id_last4": "12a4", "trade": ""},
    )
    assert response.status_code == 200
    assert errors_of(response) == ["Enter the last four digits of the tax ID."]
    assert not Vendor.objects.filter(name="Ridge Steel").exists()
    assert AuditEntry.objects.count() == audit_before


def test_parties_cannot_be_deleted_in_the_admin(web, job):
    assert web.post(admin_url(job.vendor, "delete")).status_code == 403
    assert web.post(admin_url(job.owner, "delete")).status_code == 403
    assert Vendor.objects.filter(pk=job.vendor.pk).exists()
