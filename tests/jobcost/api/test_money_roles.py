"""Who may move money (docs/keys.md, "Who may call what") and who may see it: agent keys get 403
`agent_cannot_approve` on every approve, reject, void, execute, close and mark-paid endpoint,
members `role_forbidden`, viewers `role_forbidden` on every write — checked before the body,
the object's state or even its existence, and writing nothing. Another account's change
orders, invoices, waivers and pay apps are 404 and absent from lists."""

import pytest

from audit.models import AuditEntry
from jobcost.models import ChangeOrder, Commitment, IdempotencyRecord, Invoice, PayApp
from jobcost.services import change_orders as co_services
from jobcost.services import commitments as cmt_services
from tests.conftest import error_of
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    make_change_order,
    make_invoice,
    make_job,
    make_pay_app,
)


def _co(job, status):
    co = make_change_order(
        job.project,
        cost_code=job.codes["03-000"],
        amount=1_000,
        status="pending" if status == "void" else status,
    )
    if status == "void":
        co = co_services.change_order_void(change_order_id=co.pk)
    return co


def _inv(job, status):
    return make_invoice(job.commitment, amount=1_000, number="R-1", status=status)


def _pa(job, status):
    return make_pay_app(job.project, "2026-01-01", "2026-01-31", status=status)


def _cmt(job, status):
    commitment = CommitmentFactory(project=job.project, vendor=job.vendor, executed=True)
    if status == "draft":
        return CommitmentFactory(project=job.project, vendor=job.vendor)
    if status == "closed":
        return cmt_services.commitment_close(commitment_id=commitment.pk)
    return commitment


# endpoint → (collection, model, builder, state where it is legal, state where it is not)
ENDPOINTS = {
    "change-orders/approve": ("change-orders", ChangeOrder, _co, "draft", "void"),
    "change-orders/reject": ("change-orders", ChangeOrder, _co, "pending", "draft"),
    "change-orders/void": ("change-orders", ChangeOrder, _co, "draft", "approved"),
    "invoices/approve": ("invoices", Invoice, _inv, "coded", "received"),
    "invoices/void": ("invoices", Invoice, _inv, "received", "approved"),
    "invoices/mark-paid": ("invoices", Invoice, _inv, "approved", "coded"),
    "pay-apps/approve": ("pay-apps", PayApp, _pa, "submitted", "draft"),
    "pay-apps/reject": ("pay-apps", PayApp, _pa, "submitted", "approved"),
    "pay-apps/mark-paid": ("pay-apps", PayApp, _pa, "approved", "submitted"),
    "commitments/execute": ("commitments", Commitment, _cmt, "draft", "executed"),
    "commitments/close": ("commitments", Commitment, _cmt, "executed", "draft"),
    "commitments/void": ("commitments", Commitment, _cmt, "draft", "closed"),
}


def _refused(make_api, account, role, endpoint, legal, body):
    """Build the object, call the endpoint as `role`, assert nothing was written; return
    the error."""
    collection, model, build, good, bad = ENDPOINTS[endpoint]
    job = make_job(account)
    obj = build(job, good if legal else bad)
    client = make_api(account, role)
    before = model.objects.values("status", "updated_at").get(pk=obj.pk)
    audit_before, idem_before = AuditEntry.objects.count(), IdempotencyRecord.objects.count()
    response = client.post(f"/v1/{collection}/{obj.pk}/{endpoint.split('/')[1]}", body)
    assert response.status_code == 403, response.content
    assert model.objects.values("status", "updated_at").get(pk=obj.pk) == before
    assert AuditEntry.objects.count() == audit_before
    assert IdempotencyRecord.objects.count() == idem_before
    return error_of(response)


@pytest.mark.parametrize("legal", [True, False], ids=["legal-state", "wrong-state"])
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_agent_cannot_approve_anything(make_api, account, endpoint, legal):
    """Even with a body of unknown fields, and whether or not the transition would be legal."""
    error = _refused(make_api, account, "agent", endpoint, legal, {"bogus": True})
    assert (error["type"], error["code"]) == ("forbidden", "agent_cannot_approve")


@pytest.mark.parametrize("role", ["member", "viewer"])
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_members_and_viewers_cannot_approve(make_api, account, endpoint, role):
    error = _refused(make_api, account, role, endpoint, True, {})
    assert (error["type"], error["code"]) == ("forbidden", "role_forbidden")


def test_agent_refusal_precedes_existence_and_idempotency(make_api, account):
    """A missing object or a missing Idempotency-Key still answers agent_cannot_approve, and
    the 403 is not stored as an idempotent response (docs/conventions.md)."""
    agent = make_api(account, "agent")
    missing = agent.post("/v1/invoices/inv_doesnotexist/approve")
    assert error_of(missing)["code"] == "agent_cannot_approve"
    no_key = agent.post("/v1/pay-apps/pa_doesnotexist/approve", idem=None)
    assert error_of(no_key)["code"] == "agent_cannot_approve"
    job = make_job(account)
    invoice = _inv(job, "coded")
    assert agent.post(f"/v1/invoices/{invoice.pk}/approve", idem="same").status_code == 403
    assert IdempotencyRecord.objects.filter(key="same").count() == 0


def test_agent_and_member_may_do_the_ordinary_writes(make_api, account):
    """Create and code invoices, draft change orders, enter and submit pay apps."""
    job = make_job(account)
    for role in ("agent", "member"):
        client = make_api(account, role)
        number = f"{role}-1"
        invoice = client.post(
            "/v1/invoices",
            {
                "commitment": job.commitment.pk,
                "number": number,
                "invoice_date": "2026-01-05",
                "amount": 1_000,
            },
        )
        assert invoice.status_code == 201, invoice.content
        coded = client.patch(
            f"/v1/invoices/{invoice.json()['id']}",
            {"lines": [{"cost_code": job.codes["03-000"].pk, "amount": 1_000}]},
        )
        assert coded.json()["status"] == "coded"
        co = make_change_order(job.project, cost_code=job.codes["01-000"], amount=5)
        assert client.post(f"/v1/change-orders/{co.pk}/submit").status_code == 200
    agent = make_api(account, "agent")
    pay_app = agent.post(
        "/v1/pay-apps",
        {"project": job.project.pk, "period_start": "2026-01-01", "period_end": "2026-01-31"},
    ).json()
    assert (
        agent.patch(f"/v1/pay-apps/{pay_app['id']}", {"lines": [{"item": "1"}]}).status_code == 200
    )
    assert agent.post(f"/v1/pay-apps/{pay_app['id']}/submit").json()["status"] == "submitted"


def test_viewer_cannot_write_money_records(make_api, account):
    job = make_job(account)
    co = _co(job, "draft")
    invoice = _inv(job, "received")
    pay_app = _pa(job, "draft")
    waiver = make_invoice(
        job.commitment, amount=5, number="W", status="approved"
    ).lien_waivers.get()
    viewer = make_api(account, "viewer")
    writes = [
        ("post", "/v1/change-orders", {"project": job.project.pk}),
        ("patch", f"/v1/change-orders/{co.pk}", {"title": "x"}),
        ("post", f"/v1/change-orders/{co.pk}/submit", {}),
        ("post", "/v1/invoices", {"commitment": job.commitment.pk}),
        ("patch", f"/v1/invoices/{invoice.pk}", {"number": "x"}),
        ("post", "/v1/lien-waivers", {"project": job.project.pk}),
        ("patch", f"/v1/lien-waivers/{waiver.pk}", {"status": "received"}),
        ("post", "/v1/pay-apps", {"project": job.project.pk}),
        ("patch", f"/v1/pay-apps/{pay_app.pk}", {"lines": [{"item": "1", "this_period": 1}]}),
        ("post", f"/v1/pay-apps/{pay_app.pk}/submit", {}),
    ]
    audit_before = AuditEntry.objects.count()
    for method, path, body in writes:
        response = getattr(viewer, method)(path, body)
        assert response.status_code == 403, path
        assert error_of(response)["code"] == "role_forbidden", path
    assert AuditEntry.objects.count() == audit_before
    assert viewer.get(f"/v1/pay-apps/{pay_app.pk}").status_code == 200


def test_another_accounts_money_records_are_invisible(api, account):
    theirs = make_job(AccountFactory())
    co = _co(theirs, "pending")
    invoice = _inv(theirs, "approved")
    waiver = invoice.lien_waivers.get()
    pay_app = _pa(theirs, "draft")
    for collection, pk, steps in (
        ("change-orders", co.pk, ["approve", "reject", "void", "submit", "audit"]),
        ("invoices", invoice.pk, ["mark-paid", "void", "audit"]),
        ("lien-waivers", waiver.pk, ["audit"]),
        ("pay-apps", pay_app.pk, ["submit", "lines", "audit"]),
    ):
        assert api.get(f"/v1/{collection}/{pk}").status_code == 404, collection
        assert error_of(api.patch(f"/v1/{collection}/{pk}", {}))["code"] == "resource_missing"
        for step in steps:
            call = api.get if step in ("audit", "lines") else api.post
            assert call(f"/v1/{collection}/{pk}/{step}").status_code == 404, (collection, step)
        assert api.get(f"/v1/{collection}").json()["data"] == [], collection
    assert ChangeOrder.objects.get(pk=co.pk).status == "pending"
    assert PayApp.objects.get(pk=pay_app.pk).status == "draft"
    refused = api.post(
        "/v1/invoices",
        {
            "commitment": theirs.commitment.pk,
            "number": "X",
            "invoice_date": "2026-01-05",
            "amount": 1,
        },
    )
    assert refused.status_code == 404 and error_of(refused)["param"] == "commitment"


def test_project_restricted_key_sees_only_its_projects_money(make_api, account):
    mine, other = make_job(account), make_job(account)
    visible = _inv(mine, "received")
    hidden = _inv(other, "received")
    client = make_api(account, "manager", projects=[mine.project])
    assert [i["id"] for i in client.get("/v1/invoices").json()["data"]] == [visible.pk]
    assert client.get(f"/v1/invoices/{hidden.pk}").status_code == 404
    assert client.post(f"/v1/invoices/{hidden.pk}/void").status_code == 404
    assert Invoice.objects.get(pk=hidden.pk).status == "received"
