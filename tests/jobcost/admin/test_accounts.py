"""Accounts are created through `account_get_or_create`; stored idempotent responses are
read-only."""

from audit.models import AuditEntry
from jobcost.models import Account, IdempotencyRecord
from tests.conftest import Api
from tests.factories import make_key
from tests.jobcost.admin.pages import admin_url, errors_of


def test_account_is_created_through_the_service_and_audited(web):
    response = web.post("/admin/jobcost/account/add/", {"name": "Northwind Builders"})

    assert response.status_code == 302, errors_of(response)
    account = Account.objects.get(name="Northwind Builders")
    entry = AuditEntry.objects.get(target_id=account.pk)
    assert (entry.action, entry.actor_type, entry.actor_id) == ("created", "user", "accountant")
    again = web.post("/admin/jobcost/account/add/", {"name": "Northwind Builders"})
    assert again.status_code == 200
    assert "Account with this Name already exists." in errors_of(again)
    assert Account.objects.filter(name="Northwind Builders").count() == 1


def test_accounts_and_idempotency_records_cannot_be_changed_here(web, job):
    _key, secret = make_key(job.account, "admin")
    assert Api(secret).post("/v1/owners", {"name": "Civic Trust"}).status_code == 201
    record = IdempotencyRecord.objects.get()
    account_url = admin_url(job.account)
    record_url = admin_url(record)

    assert web.get(account_url).status_code == 200
    assert web.get(record_url).status_code == 200
    assert web.post(account_url, {"name": "Renamed"}).status_code == 403
    assert web.post(record_url, {"response_status": "500"}).status_code == 403
    assert web.get("/admin/jobcost/idempotencyrecord/add/").status_code == 403
    assert web.post(admin_url(record, "delete")).status_code == 403
    job.account.refresh_from_db()
    record.refresh_from_db()
    assert (job.account.name, record.response_status) == ("Harbor Build Co", 201)
