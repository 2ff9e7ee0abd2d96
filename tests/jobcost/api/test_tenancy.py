"""Tenancy (docs/keys.md, "Who may call what"): nothing of another account is ever visible. A key of
account A gets no row of account B from any list, 404 `resource_missing` for B's IDs on every detail
route,
and 404 naming the param for B's objects in a body. Nothing is written: no domain row, audit
entry, webhook endpoint, event or delivery."""

import pytest

from config.urls import V1 as urlpatterns  # every /v1 route, both apps
from jobcost.models import BudgetImport, BudgetLine
from jobcost.scope import Scope
from jobcost.services.agent_actions import agent_action_propose
from jobcost.services.budget_imports import budget_import_start
from jobcost.services.daily_logs import daily_log_create
from jobcost.services.lien_waivers import lien_waiver_create
from jobcost.services.projects import project_update
from jobcost.services.rfis import rfi_create
from tests.conftest import Api, error_of
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    OwnerFactory,
    make_change_order,
    make_invoice,
    make_job,
    make_key,
    make_pay_app,
)
from tests.jobcost.api.state import DOMAIN_MODELS, digest
from tests.shared import rows_for_the_module
from tests.webhooks.support import WEBHOOK_MODELS, make_endpoint
from webhooks.models import Event, WebhookDelivery, WebhookEndpoint

BUDGET_FILE = b"code,name,cost type,scheduled value,budget\n77-000,Imported,other,0,1\n"


def _job(account):
    job = make_job(account)
    project, vendor, cost_code = job.project, job.vendor, job.codes["03-000"]
    draft = CommitmentFactory(project=project, vendor=vendor, cost_code=cost_code)
    invoice = make_invoice(job.commitment, amount=1_000, number=f"T-{account.pk}")
    endpoint = make_endpoint(account, events=["project.updated"])
    # A project.updated event, owed to the endpoint.
    project_update(project_id=project.pk, changes={"name": f"{project.name} (renamed)"})
    return {
        "webhooks": endpoint,
        "events": Event.objects.filter(account=account).latest("created_at"),
        "deliveries": WebhookDelivery.objects.get(endpoint=endpoint),
        "owners": project.owner,
        "vendors": vendor,
        "projects": project,
        "cost-codes": cost_code,
        "budgets": BudgetLine.objects.get(cost_code=cost_code),
        "commitments": draft,
        "executed": job.commitment,
        "change-orders": make_change_order(project, cost_code=cost_code, amount=5_000),
        "invoices": invoice,
        "lien-waivers": lien_waiver_create(
            project=project,
            vendor=vendor,
            type="conditional_progress",
            amount=1_000,
            through_date=invoice.invoice_date,
        ),
        "pay-apps": make_pay_app(project, "2026-11-01", "2026-11-30"),
        "rfis": rfi_create(project=project, subject="Footing depth", question="How deep?"),
        "daily-logs": daily_log_create(project=project, date=invoice.invoice_date),
        "budget-imports": budget_import_start(
            project=project, content=BUDGET_FILE, file_format="csv", dry_run=True
        ),
        "agents/actions": agent_action_propose(
            scope=Scope(account.pk),
            action="rfi.create",
            payload={"project": project.pk, "subject": "S", "question": "Q"},
        ),
    }


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """Two accounts' jobs and an admin key of the first, built once for the module (each
    test's changes rolled back, tests/shared.py)."""
    with rows_for_the_module(django_db_blocker):
        account = AccountFactory()
        key, secret = make_key(account, "admin")
        yield {"mine": _job(account), "theirs": _job(AccountFactory()), "key": (key, secret)}


@pytest.fixture
def api(world, db):
    key, secret = world["key"]
    return Api(secret, key)


@pytest.fixture
def mine(world, db):
    return world["mine"]


@pytest.fixture
def theirs(world, db):
    return world["theirs"]


COLLECTIONS = [
    "owners",
    "vendors",
    "projects",
    "cost-codes",
    "budgets",
    "commitments",
    "change-orders",
    "invoices",
    "lien-waivers",
    "pay-apps",
    "rfis",
    "daily-logs",
    "agents/actions",
    "webhooks",
    "events",
    "budget-imports",
]
# URL name prefix of a collection whose path is not its name.
URL_NAMES = {"agents/actions": "agent-actions"}
AUDITED = [c for c in COLLECTIONS if c != "events"]
PATCHABLE = [c for c in COLLECTIONS if c not in ("events", "agents/actions", "budget-imports")]
PATCH_BODIES = {
    "owners": {"name": "Hijacked"},
    "vendors": {"name": "Hijacked"},
    "projects": {"name": "Hijacked"},
    "cost-codes": {"name": "Hijacked"},
    "budgets": {"cost_to_complete": 1},
    "commitments": {"description": "Hijacked"},
    "change-orders": {"title": "Hijacked"},
    "invoices": {"number": "Hijacked"},
    "lien-waivers": {"document_url": "https://example.com/hijacked.pdf"},
    "pay-apps": {"retainage_pct": 5},
    "rfis": {"answer": "Hijacked"},
    "daily-logs": {"notes": "Hijacked"},
    "webhooks": {"description": "Hijacked"},
}
# The actions under /{id}/ of each collection, beyond retrieve, PATCH and audit.
ACTIONS = {
    "commitments": [("execute", "post"), ("close", "post"), ("void", "post")],
    "change-orders": [
        ("submit", "post"),
        ("approve", "post"),
        ("reject", "post"),
        ("void", "post"),
    ],
    "invoices": [("approve", "post"), ("mark-paid", "post"), ("void", "post")],
    "pay-apps": [
        ("lines", "get"),
        ("pdf", "get"),
        ("submit", "post"),
        ("approve", "post"),
        ("reject", "post"),
        ("mark-paid", "post"),
        ("payments", "get"),
        ("payments", "post"),
    ],
    "rfis": [("close", "post")],
    "projects": [("budget-import", "post")],
    "agents/actions": [("approve", "post"), ("reject", "post")],
    "webhooks": [("rotate-secret", "post"), ("deliveries", "get")],
}
# Routes with a second ID or another method: (collection, suffix, method, URL name).
OTHER_ROUTES = [
    ("webhooks", "", "delete", None),
    ("webhooks", "/deliveries/{delivery}/retry", "post", "webhooks-delivery-retry"),
]
# Report routes hold no object ID of their own: tests/jobcost/api/test_reports.py shows that
# another account's rows never appear in them and that its projects are 404 there.
REPORT_ROUTES = {
    "reports-wip",
    "reports-job-cost",
    "reports-job-cost-transactions",
    "reports-ap-aging",
    "reports-ar-aging",
    "reports-retainage",
}
# Every detail route of the router: (collection, suffix, method).
DETAIL_ROUTES = (
    [(c, "", "get") for c in COLLECTIONS]
    + [(c, "/audit", "get") for c in AUDITED]
    + [(c, "", "patch") for c in PATCHABLE]
    + [(c, f"/{verb}", method) for c, verbs in ACTIONS.items() for verb, method in verbs]
    + [(c, suffix, method) for c, suffix, method, _name in OTHER_ROUTES]
)


def test_every_route_of_the_router_is_covered():
    names = {p.name for p in urlpatterns}

    def name(c: str) -> str:
        return URL_NAMES.get(c, c)

    covered = {f"{name(c)}-list" for c in COLLECTIONS} | {f"{name(c)}-detail" for c in COLLECTIONS}
    covered |= {f"{name(c)}-audit" for c in AUDITED}
    covered |= {f"{name(c)}-{verb}" for c, verbs in ACTIONS.items() for verb, _ in verbs}
    covered |= {name for *_route, name in OTHER_ROUTES if name}
    covered |= REPORT_ROUTES
    assert names == covered


def _state() -> dict:
    return digest((*DOMAIN_MODELS, *WEBHOOK_MODELS))


def _ids_of(account_id: str) -> set[str]:
    """Every object ID the account owns, over all domain models, endpoints and events."""
    return {
        row["id"]
        for model in (*DOMAIN_MODELS, BudgetImport, WebhookEndpoint, Event)
        if hasattr(model, "account_id")
        for row in model.objects.filter(account_id=account_id).values("id")
    }


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_lists_hold_none_of_another_accounts_rows(api, mine, theirs, collection):
    resp = api.get(f"/v1/{collection}", {"limit": 100})
    assert resp.status_code == 200
    ids = {row["id"] for row in resp.json()["data"]}
    assert mine[collection].pk in ids
    assert ids <= _ids_of(mine["projects"].account_id)
    assert not ids & _ids_of(theirs["projects"].account_id)


@pytest.mark.parametrize(
    "collection,param,source",
    [
        ("cost-codes", "project", "projects"),
        ("budgets", "project", "projects"),
        ("budgets", "cost_code", "cost-codes"),
        ("commitments", "project", "projects"),
        ("commitments", "vendor", "vendors"),
        ("commitments", "cost_code", "cost-codes"),
    ],
)
def test_filtering_by_another_accounts_ids_returns_nothing(
    api, mine, theirs, collection, param, source
):
    resp = api.get(f"/v1/{collection}", {param: theirs[source].pk})
    assert resp.status_code == 200
    assert resp.json()["data"] == []


@pytest.mark.parametrize("collection,suffix,method", DETAIL_ROUTES)
def test_detail_routes_are_404_for_another_accounts_ids(
    api, mine, theirs, collection, suffix, method
):
    target = theirs["executed"] if suffix == "/close" else theirs[collection]
    suffix = suffix.replace("{delivery}", theirs["deliveries"].pk)
    path = f"/v1/{collection}/{target.pk}{suffix}"
    before = _state()
    if method == "get":
        resp = api.get(path)
    elif method == "patch":
        resp = api.patch(path, PATCH_BODIES[collection])
    elif method == "delete":
        resp = api.delete(path)
    elif suffix == "/budget-import":  # the one route whose body is a file
        resp = api.post(path, BUDGET_FILE, content_type="text/csv")
    else:
        resp = api.post(path, {})
    assert resp.status_code == 404, resp.content
    error = error_of(resp)
    assert (error["type"], error["code"]) == ("not_found", "resource_missing")
    assert _state() == before


def test_a_delivery_of_another_account_is_404_under_my_endpoint(api, mine, theirs):
    WebhookDelivery.objects.filter(pk=theirs["deliveries"].pk).update(status="failed")
    path = f"/v1/webhooks/{mine['webhooks'].pk}/deliveries/{theirs['deliveries'].pk}/retry"
    before = _state()
    resp = api.post(path, {})
    assert resp.status_code == 404, resp.content
    assert (error_of(resp)["code"], error_of(resp)["param"]) == ("resource_missing", "delivery_id")
    assert _state() == before


def test_an_event_filter_naming_another_accounts_project_returns_nothing(api, mine, theirs):
    resp = api.get("/v1/events", {"project": theirs["projects"].pk})
    assert resp.status_code == 200
    assert resp.json()["data"] == []


def _commitment_body(mine, **override):
    return {
        "project": mine["projects"].pk,
        "vendor": mine["vendors"].pk,
        "cost_code": mine["cost-codes"].pk,
        "type": "subcontract",
        "original_amount": 1_00,
        **override,
    }


BODY_REFERENCES = {
    "project.owner": lambda m, t: (
        "post",
        "/v1/projects",
        {"number": "X-1", "name": "X", "owner": t["owners"].pk, "contract_amount": 1},
        "owner",
    ),
    "cost_code.project": lambda m, t: (
        "post",
        "/v1/cost-codes",
        {"project": t["projects"].pk, "code": "1", "name": "x", "cost_type": "other"},
        "project",
    ),
    "commitment.project": lambda m, t: (
        "post",
        "/v1/commitments",
        _commitment_body(m, project=t["projects"].pk, cost_code=None),
        "project",
    ),
    "commitment.vendor": lambda m, t: (
        "post",
        "/v1/commitments",
        _commitment_body(m, vendor=t["vendors"].pk),
        "vendor",
    ),
    "commitment.cost_code": lambda m, t: (
        "post",
        "/v1/commitments",
        _commitment_body(m, cost_code=t["cost-codes"].pk),
        "cost_code",
    ),
    "commitment_patch.cost_code": lambda m, t: (
        "patch",
        f"/v1/commitments/{m['commitments'].pk}",
        {"cost_code": t["cost-codes"].pk},
        "cost_code",
    ),
}


BODY_REFERENCES.update(
    {
        "rfi.project": lambda m, t: (
            "post",
            "/v1/rfis",
            {"project": t["projects"].pk, "subject": "S", "question": "Q"},
            "project",
        ),
        "change_order.rfi": lambda m, t: (
            "patch",
            f"/v1/change-orders/{m['change-orders'].pk}",
            {"rfi": t["rfis"].pk},
            "rfi",
        ),
        "daily_log.manpower.vendor": lambda m, t: (
            "post",
            "/v1/daily-logs",
            {
                "project": m["projects"].pk,
                "date": "2026-01-05",
                "manpower": [{"trade": "T", "vendor": t["vendors"].pk, "headcount": 1, "hours": 8}],
            },
            "manpower[0].vendor",
        ),
        "agent_action.target": lambda m, t: (
            "post",
            "/v1/agents/actions",
            {
                "action": "invoice.code",
                "target": t["invoices"].pk,
                "payload": {"lines": [{"cost_code": m["cost-codes"].pk, "amount": 1_000}]},
            },
            "target",
        ),
        "agent_action.payload.project": lambda m, t: (
            "post",
            "/v1/agents/actions",
            {
                "action": "rfi.create",
                "payload": {"project": t["projects"].pk, "subject": "S", "question": "Q"},
            },
            "payload.project",
        ),
    }
)


@pytest.mark.parametrize("case", sorted(BODY_REFERENCES))
def test_body_references_to_another_accounts_objects_are_404(api, mine, theirs, case):
    method, path, payload, param = BODY_REFERENCES[case](mine, theirs)
    before = _state()
    resp = getattr(api, method)(path, payload)
    assert resp.status_code == 404, resp.content
    error = error_of(resp)
    assert (error["code"], error["param"]) == ("resource_missing", param)
    assert _state() == before


def test_another_account_sees_none_of_mine_either(make_api, mine, theirs):
    other_api = make_api(AccountFactory(), "admin")
    for collection in COLLECTIONS:
        assert other_api.get(f"/v1/{collection}").json()["data"] == []
    owner = OwnerFactory(account=mine["owners"].account)
    assert other_api.get(f"/v1/owners/{owner.pk}").status_code == 404
