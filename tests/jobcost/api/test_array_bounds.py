"""Every array in a request body has a documented maximum (docs/operations/limits.md,
jobcost/limits.py): one element past it is 400 `parameter_invalid` naming the array, before any
element is read, with nothing written; the schema carries the bound. A maximum-size create or
approve costs the same number of queries as a small one (bulk writes), and still moves every budget
line under its lock with its audit entry and `budget.updated` event."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEntry
from bench.management.commands.bench_bounds import CODE_VALUE, big_project
from jobcost.limits import (
    CHANGE_ORDER_LINES_MAX,
    INVOICE_LINES_MAX,
    MANPOWER_ROWS_MAX,
    PAY_APP_LINE_ENTRIES_MAX,
    WEBHOOK_EVENTS_MAX,
)
from jobcost.models import (
    AgentAction,
    BudgetLine,
    ChangeOrder,
    CostCode,
    DailyLog,
    DailyLogManpower,
    InvoiceLine,
)
from tests.conftest import Api, error_of
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    VendorFactory,
    make_invoice,
    make_key,
)
from tests.shared import rows_for_the_module
from webhooks.models import EndpointStatus, Event, WebhookDelivery, WebhookEndpoint

# Query counts are those of a request that reads its key (the first of a key in a second).
pytestmark = pytest.mark.usefixtures("cold_keys")

SIZE = max(CHANGE_ORDER_LINES_MAX, INVOICE_LINES_MAX, PAY_APP_LINE_ENTRIES_MAX)


@pytest.fixture(scope="module")
def shared_big(django_db_setup, django_db_blocker):
    """`big` and its account's admin key, built once for the module (each test's changes
    rolled back, tests/shared.py)."""
    with rows_for_the_module(django_db_blocker):
        account = AccountFactory()
        yield _big(account), make_key(account, "admin")


@pytest.fixture
def big(shared_big, db):
    return shared_big[0]


@pytest.fixture
def account(big):
    return big.account


@pytest.fixture
def api(shared_big, db):
    key, secret = shared_big[1]
    return Api(secret, key)


def _big(account):
    """A project of SIZE cost codes, a vendor with an executed subcontract on the first, and
    an endpoint subscribed to every event (so each event also writes a delivery)."""
    project = big_project(account, SIZE, number="BIG-1")
    codes = list(CostCode.objects.filter(project=project).order_by("code"))
    vendor = VendorFactory(account=account)
    commitment = CommitmentFactory(
        project=project, vendor=vendor, cost_code=codes[0], original_amount=10**9, executed=True
    )
    WebhookEndpoint.objects.create(
        account=account,
        url="https://hooks.example.com/all",  # a public name (tests/webhooks/resolvers.py)
        events=["*"],
        api_version=settings.JOBCOST_API_VERSIONS[-1],
        secret="whsec_" + "x" * 32,
        status=EndpointStatus.ENABLED,
    )
    project.codes, project.vendor, project.commitment = codes, vendor, commitment
    return project


def _counted(call):
    """The response's JSON and the number of statements the request ran. On SQLite a run of
    writes to one table counts once: its backend splits a bulk write into batches of at most
    999 parameters (Django's `bulk_create`, `bulk_update`), so there a large write is one
    statement per batch, where PostgreSQL takes it in one."""
    with CaptureQueriesContext(connection) as ctx:
        response = call()
    assert response.status_code in (200, 201), response.content[:300]
    statements = [query["sql"] for query in ctx.captured_queries]
    if connection.vendor == "sqlite":
        statements = _batches_joined(statements)
    return response.json(), len(statements)


_WRITE = re.compile(r'(INSERT INTO|UPDATE|DELETE FROM) "(\w+)"')


def _batches_joined(statements: list[str]) -> list:
    """`statements` with each run of consecutive writes of one kind to one table as one."""
    joined = []
    for sql in statements:
        write = _WRITE.match(sql)
        kind = write.groups() if write else sql
        if not (write and joined and joined[-1] == kind):
            joined.append(kind)
    return joined


def _change_order(api, project, codes):
    return api.post(
        "/v1/change-orders",
        {
            "project": project.pk,
            "kind": "owner",
            "title": f"{len(codes)} lines",
            "amount": 100 * len(codes),
            "lines": [{"cost_code": c.pk, "amount": 100, "budget_amount": 90} for c in codes],
        },
    )


# --- the bounds ---------------------------------------------------------------------------------
def _junk(n):
    """n elements that would each fail validation: a bound checked first names the array."""
    return [{"nonsense": True}] * n


CASES = [
    ("post", "/v1/change-orders", "lines", CHANGE_ORDER_LINES_MAX),
    ("patch", "/v1/change-orders/{co}", "lines", CHANGE_ORDER_LINES_MAX),
    ("patch", "/v1/invoices/{inv}", "lines", INVOICE_LINES_MAX),
    ("patch", "/v1/pay-apps/{pa}", "lines", PAY_APP_LINE_ENTRIES_MAX),
    ("post", "/v1/daily-logs", "manpower", MANPOWER_ROWS_MAX),
    ("patch", "/v1/daily-logs/{dl}", "manpower", MANPOWER_ROWS_MAX),
    ("post", "/v1/webhooks", "events", WEBHOOK_EVENTS_MAX),
    ("patch", "/v1/webhooks/{we}", "events", WEBHOOK_EVENTS_MAX),
]


@pytest.fixture
def targets(api, big):
    codes = big.codes
    co = _change_order(api, big, codes[:1]).json()
    invoice = make_invoice(big.commitment, amount=100, number="T-1", invoice_date="2026-01-10")
    pay_app = api.post(
        "/v1/pay-apps",
        {"project": big.pk, "period_start": "2026-02-01", "period_end": "2026-02-28"},
    ).json()
    log = api.post("/v1/daily-logs", {"project": big.pk, "date": "2026-01-05"}).json()
    hook = api.post("/v1/webhooks", {"url": "https://hooks.example.com/x", "events": ["*"]}).json()
    return {
        "co": co["id"],
        "inv": invoice.pk,
        "pa": pay_app["id"],
        "dl": log["id"],
        "we": hook["id"],
    }


def _other_fields(method: str, path: str, project_id: str) -> dict:
    """The rest of a valid body, so the array is the only thing wrong."""
    if method == "patch":
        return {}
    if path == "/v1/change-orders":
        return {"project": project_id, "kind": "owner", "title": "x", "amount": 0}
    if path == "/v1/daily-logs":
        return {"project": project_id, "date": "2026-01-06"}
    return {"url": "https://hooks.example.com/y"}


@pytest.mark.parametrize("method,path,field,maximum", CASES, ids=[f"{m} {p}" for m, p, *_ in CASES])
def test_one_past_the_maximum_is_400_naming_the_array(
    api, big, targets, method, path, field, maximum
):
    body = _other_fields(method, path, big.pk)
    body[field] = ["*"] * (maximum + 1) if field == "events" else _junk(maximum + 1)
    before = AuditEntry.objects.count()

    response = getattr(api, method)(path.format(**targets), body)

    assert response.status_code == 400, response.content[:300]
    error = error_of(response)
    assert (error["code"], error["param"]) == ("parameter_invalid", field)
    assert f"at most {maximum} " in error["message"]
    assert AuditEntry.objects.count() == before  # nothing written


def test_an_agent_proposal_inherits_the_real_endpoints_bound(api, big):
    response = api.post(
        "/v1/agents/actions",
        {
            "action": "change_order.create",
            "payload": {
                "project": big.pk,
                "kind": "owner",
                "title": "Too long",
                "amount": 0,
                "lines": _junk(CHANGE_ORDER_LINES_MAX + 1),
            },
        },
    )
    assert response.status_code == 400
    error = error_of(response)
    assert (error["code"], error["param"]) == ("parameter_invalid", "payload.lines")
    assert not AgentAction.objects.exists()


def test_the_schema_states_every_bound(db):
    schemas = Client().get("/v1/openapi.json").json()["components"]["schemas"]
    bounds = {
        (name, prop): (spec.get("minItems"), spec.get("maxItems"))
        for name, component in schemas.items()
        for prop, spec in (component.get("properties") or {}).items()
        if spec.get("type") == "array" and name.endswith("Request")
    }
    assert bounds == {
        ("ChangeOrderCreateRequest", "lines"): (1, CHANGE_ORDER_LINES_MAX),
        ("PatchedChangeOrderUpdateRequest", "lines"): (1, CHANGE_ORDER_LINES_MAX),
        ("PatchedInvoiceUpdateRequest", "lines"): (1, INVOICE_LINES_MAX),
        ("PatchedPayAppUpdateRequest", "lines"): (1, PAY_APP_LINE_ENTRIES_MAX),
        ("DailyLogCreateRequest", "manpower"): (None, MANPOWER_ROWS_MAX),
        ("PatchedDailyLogUpdateRequest", "manpower"): (None, MANPOWER_ROWS_MAX),
        ("WebhookEndpointCreateRequest", "events"): (1, WEBHOOK_EVENTS_MAX),
        ("PatchedWebhookEndpointUpdateRequest", "events"): (1, WEBHOOK_EVENTS_MAX),
    }


# --- maximum-size writes: constant queries, every line moved and audited -------------------------
def test_change_order_create_and_approve_of_the_maximum_cost_what_a_small_one_costs(api, big):
    small, small_create = _counted(lambda: _change_order(api, big, big.codes[:2]))
    _, small_approve = _counted(lambda: api.post(f"/v1/change-orders/{small['id']}/approve"))
    codes = big.codes[:CHANGE_ORDER_LINES_MAX]
    earlier_events = set(Event.objects.values_list("pk", flat=True))
    large, large_create = _counted(lambda: _change_order(api, big, codes))
    _, large_approve = _counted(lambda: api.post(f"/v1/change-orders/{large['id']}/approve"))

    assert (large_create, large_approve) == (small_create, small_approve)
    assert len(large["lines"]) == CHANGE_ORDER_LINES_MAX
    # Every budget line moved (90 per change order; the first two were in both).
    moved = dict(
        BudgetLine.objects.filter(project=big).values_list("cost_code_id", "approved_changes")
    )
    assert [moved[c.pk] for c in codes] == [180, 180] + [90] * (CHANGE_ORDER_LINES_MAX - 2)
    assert sum(moved.values()) == 90 * (CHANGE_ORDER_LINES_MAX + 2)
    # …each with its audit entry and event, as one save per line wrote them.
    number = ChangeOrder.objects.get(pk=large["id"]).number
    entries = AuditEntry.objects.filter(
        target_type="budget_line", note=f"Change order {number} approved."
    )
    assert entries.count() == CHANGE_ORDER_LINES_MAX
    entry = entries.get(target_id=BudgetLine.objects.get(cost_code=codes[-1]).pk)
    assert entry.action == "updated"
    assert entry.changes == {"approved_changes": {"before": 0, "after": 90}}
    assert entry.actor_type == "api_key"
    events = Event.objects.filter(type="budget.updated").exclude(pk__in=earlier_events)
    assert events.count() == CHANGE_ORDER_LINES_MAX
    event = events.get(object_id=entry.target_id)
    assert event.data["object"]["approved_changes"] == 90
    assert event.data["previous_attributes"] == {"approved_changes": 0}
    assert WebhookDelivery.objects.filter(event__in=events).count() == CHANGE_ORDER_LINES_MAX
    project = api.get(f"/v1/projects/{big.pk}").json()
    assert project["approved_changes"] == 100 * (CHANGE_ORDER_LINES_MAX + 2)


def test_invoice_coding_and_approval_of_the_maximum_cost_what_a_small_one_costs(api, big):
    def code_and_approve(n, number):
        invoice = make_invoice(big.commitment, amount=n, number=number, invoice_date="2026-01-10")
        lines = [{"cost_code": c.pk, "amount": 1} for c in big.codes[:n]]
        _, coding = _counted(lambda: api.patch(f"/v1/invoices/{invoice.pk}", {"lines": lines}))
        _, approval = _counted(lambda: api.post(f"/v1/invoices/{invoice.pk}/approve"))
        return coding, approval

    small = code_and_approve(2, "S-1")
    large = code_and_approve(INVOICE_LINES_MAX, "L-1")

    assert large == small
    assert InvoiceLine.objects.filter(invoice__number="L-1").count() == INVOICE_LINES_MAX
    actual = dict(BudgetLine.objects.filter(project=big).values_list("cost_code_id", "actual"))
    assert [actual[c.pk] for c in big.codes[:3]] == [2, 2, 1]
    assert sum(actual.values()) == INVOICE_LINES_MAX + 2
    entries = AuditEntry.objects.filter(target_type="budget_line", note="Invoice L-1 approved.")
    assert entries.count() == INVOICE_LINES_MAX
    assert entries.get(target_id=BudgetLine.objects.get(cost_code=big.codes[0]).pk).changes == {
        "actual": {"before": 1, "after": 2}
    }


def test_pay_app_patch_of_the_maximum_costs_what_a_small_one_costs(api, big):
    pay_app = api.post(
        "/v1/pay-apps",
        {"project": big.pk, "period_start": "2026-02-01", "period_end": "2026-02-28"},
    ).json()

    def patch(n, cents):
        entries = [{"item": str(i), "this_period": cents} for i in range(1, n + 1)]
        return _counted(lambda: api.patch(f"/v1/pay-apps/{pay_app['id']}", {"lines": entries}))

    _, small = patch(2, 100)
    data, large = patch(PAY_APP_LINE_ENTRIES_MAX, 200)

    assert large == small
    assert data["total_completed_and_stored"] == 200 * PAY_APP_LINE_ENTRIES_MAX
    entry = AuditEntry.objects.filter(target_id=pay_app["id"], action="lines_updated").latest(
        "created_at"
    )
    assert len(entry.changes) == PAY_APP_LINE_ENTRIES_MAX
    assert entry.changes["lines.1"] == {
        "before": {"this_period": 100, "materials_stored": 0},
        "after": {"this_period": 200, "materials_stored": 0},
    }
    over = api.patch(
        f"/v1/pay-apps/{pay_app['id']}",
        {"lines": [{"item": "1", "this_period": 0}, {"item": "2", "this_period": CODE_VALUE + 1}]},
    )
    assert error_of(over)["param"] == "lines[1]"  # nothing of the refused PATCH landed
    assert api.get(f"/v1/pay-apps/{pay_app['id']}").json()["total_completed_and_stored"] == (
        200 * PAY_APP_LINE_ENTRIES_MAX
    )


def test_daily_log_of_the_maximum_costs_what_a_small_one_costs(api, big):
    def create(n, day):
        rows = [
            {"trade": f"Trade {i}", "vendor": big.vendor.pk, "headcount": 2, "hours": 16}
            for i in range(n)
        ]
        return _counted(
            lambda: api.post("/v1/daily-logs", {"project": big.pk, "date": day, "manpower": rows})
        )

    _, small = create(1, "2026-01-05")
    data, large = create(MANPOWER_ROWS_MAX, "2026-01-06")

    assert large == small
    assert data["total_headcount"] == 2 * MANPOWER_ROWS_MAX
    log = DailyLog.objects.get(pk=data["id"])
    assert DailyLogManpower.objects.filter(daily_log=log).count() == MANPOWER_ROWS_MAX
