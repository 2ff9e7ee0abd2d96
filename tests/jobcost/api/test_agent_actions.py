"""Agent actions through the API (docs/resources.md, agent_action, §2 roles).

An agent key (or any writer) proposes `invoice.code`, `change_order.create`, `rfi.create`,
`daily_log.create` or `budget.update` with the body the real endpoint takes; nothing changes
until a manager or admin approves, which runs that body through the real endpoint's code and
rules in one transaction. A rule failure at approval writes nothing of the change and marks
the action `failed` with the error object.

The job (tests.factories.make_job): an active project, contract 10,000,000 cents; cost codes
01-000 (budget 1,800,000), 03-000 (4,500,000), 09-000 (2,700,000); vendor "Acme Concrete";
executed subcontract SC-001 of 1,000,000 on 03-000."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from jobcost.models import (
    AgentAction,
    BudgetLine,
    ChangeOrder,
    ChangeOrderLine,
    DailyLog,
    DailyLogManpower,
    Invoice,
    InvoiceLine,
    Project,
    Rfi,
)
from tests.conftest import error_of
from tests.factories import AccountFactory, ProjectFactory, make_invoice, make_job
from tests.jobcost.api.state import db_state
from webhooks.models import Event

ACTIONS = "/v1/agents/actions"


@pytest.fixture
def job(account):
    return make_job(account)


@pytest.fixture
def agent(account, make_api):
    return make_api(account, "agent")


@pytest.fixture
def manager(account, make_api):
    return make_api(account, "manager")


def world() -> dict:
    """`db_state()` (every domain row, agent actions included, and the audit count) plus the
    events (type, object) in order."""
    state = db_state()
    state["events"] = list(
        Event.objects.order_by("created_at", "id").values_list("type", "object_id")
    )
    return state


def _without(state: dict, *names: str) -> dict:
    return {name: rows for name, rows in state.items() if name not in names}


def assert_only_the_action_moved(before: dict, after: dict, action_id: str, event: str):
    """Between `before` and `after` only the agent action `action_id` was written (new or
    changed), with one audit entry and the one event `event` about it."""
    assert _without(after, "AgentAction", "audit_entries", "events") == _without(
        before, "AgentAction", "audit_entries", "events"
    )
    old = {row["id"]: row for row in before["AgentAction"]}
    new = {row["id"]: row for row in after["AgentAction"]}
    assert set(new) == set(old) | {action_id}
    assert {k: v for k, v in new.items() if k != action_id} == {
        k: v for k, v in old.items() if k != action_id
    }
    assert after["audit_entries"] == before["audit_entries"] + 1
    assert after["events"] == before["events"] + [(event, action_id)]


def trail(api, action_id) -> list[str]:
    response = api.get(f"{ACTIONS}/{action_id}/audit")
    assert response.status_code == 200, response.content
    return [entry["action"] for entry in response.json()["data"]]


def actor(api) -> dict:
    return {"type": "api_key", "id": api.key.pk, "role": api.key.role}


def propose(api, action, payload, target=None, rationale="", **extra):
    body = {"action": action, "payload": payload, "rationale": rationale, **extra}
    if target is not None:
        body["target"] = target
    return api.post(ACTIONS, body)


def proposed_id(api, action, payload, target=None, **extra) -> str:
    response = propose(api, action, payload, target, **extra)
    assert response.status_code == 201, response.content
    return response.json()["id"]


def invoice_lines(job, split=(("03-000", 45_000), ("09-000", 15_000))):
    return [{"cost_code": job.codes[code].pk, "amount": amount} for code, amount in split]


def change_order_body(job, amount=250_000, **extra):
    return {
        "project": job.project.pk,
        "kind": "owner",
        "title": "Added footing",
        "description": "Owner asked for a deeper footing",
        "amount": amount,
        "lines": [
            {"cost_code": job.codes["03-000"].pk, "amount": 200_000, "budget_amount": 180_000},
            {"cost_code": job.codes["09-000"].pk, "amount": amount - 200_000},
        ],
        **extra,
    }


def rfi_body(job, **extra):
    return {
        "project": job.project.pk,
        "subject": "Footing depth",
        "question": "Is the footing 1.2 m or 1.5 m deep at grid C?",
        "due_date": "2026-12-01",
        "cost_impact": True,
        **extra,
    }


def daily_log_body(job, date="2026-11-03", hours=48):
    return {
        "project": job.project.pk,
        "date": date,
        "weather": "Rain, 8 °C",
        "manpower": [
            {"trade": "Concrete", "vendor": job.vendor.pk, "headcount": 6, "hours": hours},
            {"trade": "Laborers", "headcount": 2, "hours": 16},
        ],
        "notes": "Poured footings C1-C4",
        "delays": "Rain stopped work at 14:00",
    }


# --- 1. Each action: proposal writes nothing; approval makes the real change ---------------


@dataclass
class Case:
    """One action: its target and payload, the real endpoint (method, path, body) to compare
    with, where the result is read, the event the change emits, the fields that must match
    the real endpoint's result, and a check of the result against the payload."""

    target: str | None
    payload: dict
    real: tuple[str, str, dict]
    resource: str
    event: str
    same: tuple[str, ...]
    check: Callable[[dict], None]


def _invoice_code(job) -> Case:
    invoice = make_invoice(job.commitment, amount=60_000, number="AG-1")
    twin = make_invoice(job.commitment, amount=60_000, number="AG-2")
    lines = invoice_lines(job)

    def check(result):
        assert (result["id"], result["status"], result["amount"]) == (invoice.pk, "coded", 60_000)
        assert result["lines"] == lines
        assert Invoice.objects.get(pk=invoice.pk).status == "coded"
        assert list(
            InvoiceLine.objects.filter(invoice=invoice)
            .order_by("position")
            .values_list("cost_code_id", "amount")
        ) == [(job.codes["03-000"].pk, 45_000), (job.codes["09-000"].pk, 15_000)]

    return Case(
        target=invoice.pk,
        payload={"lines": lines},
        real=("patch", f"/v1/invoices/{twin.pk}", {"lines": lines}),
        resource="/v1/invoices",
        event="invoice.coded",
        same=("status", "amount", "lines", "retainage_amount", "net_amount", "commitment"),
        check=check,
    )


def _change_order_create(job) -> Case:
    body = change_order_body(job)

    def check(result):
        assert result["id"].startswith("co_")
        assert (result["status"], result["kind"], result["amount"], result["number"]) == (
            "draft",
            "owner",
            250_000,
            "CO-001",
        )
        assert result["lines"] == [
            {
                "cost_code": job.codes["03-000"].pk,
                "description": "",
                "amount": 200_000,
                "budget_amount": 180_000,
            },
            {
                "cost_code": job.codes["09-000"].pk,
                "description": "",
                "amount": 50_000,
                "budget_amount": 50_000,
            },
        ]
        assert ChangeOrder.objects.filter(pk=result["id"]).count() == 1
        assert ChangeOrderLine.objects.filter(change_order_id=result["id"]).count() == 2

    return Case(
        target=None,
        payload=body,
        real=("post", "/v1/change-orders", body),
        resource="/v1/change-orders",
        event="change_order.created",
        same=(
            "project",
            "kind",
            "status",
            "title",
            "description",
            "amount",
            "lines",
            "commitment",
            "rfi",
        ),
        check=check,
    )


def _rfi_create(job) -> Case:
    body = rfi_body(job)

    def check(result):
        assert result["id"].startswith("rfi_")
        assert (result["number"], result["status"], result["subject"]) == (
            "RFI-001",
            "open",
            "Footing depth",
        )
        assert (result["due_date"], result["cost_impact"], result["answer"]) == (
            "2026-12-01",
            True,
            "",
        )
        assert Rfi.objects.filter(pk=result["id"], project=job.project).count() == 1

    return Case(
        target=None,
        payload=body,
        real=("post", "/v1/rfis", body),
        resource="/v1/rfis",
        event="rfi.created",
        same=(
            "project",
            "status",
            "subject",
            "question",
            "answer",
            "due_date",
            "cost_impact",
            "change_orders",
        ),
        check=check,
    )


def _daily_log_create(job) -> Case:
    def check(result):
        assert result["id"].startswith("dl_")
        assert (result["date"], result["weather"], result["total_headcount"]) == (
            "2026-11-03",
            "Rain, 8 °C",
            8,
        )
        assert result["total_hours"] == 64
        assert [(m["trade"], m["vendor"], m["headcount"]) for m in result["manpower"]] == [
            ("Concrete", job.vendor.pk, 6),
            ("Laborers", None, 2),
        ]
        assert DailyLogManpower.objects.filter(daily_log_id=result["id"]).count() == 2

    return Case(
        target=None,
        payload=daily_log_body(job),
        # One log per project and day: the real endpoint logs the next day.
        real=("post", "/v1/daily-logs", daily_log_body(job, date="2026-11-04")),
        resource="/v1/daily-logs",
        event="daily_log.created",
        same=(
            "project",
            "weather",
            "manpower",
            "total_headcount",
            "total_hours",
            "notes",
            "delays",
        ),
        check=check,
    )


def _budget_update(job) -> Case:
    line = job.codes["01-000"].budget_line
    twin = job.codes["09-000"].budget_line

    def check(result):
        assert (result["id"], result["cost_to_complete"]) == (line.pk, 1_234_500)
        assert result["cost_to_complete_is_estimate"] is True
        assert result["projected_cost"] == 1_234_500
        assert BudgetLine.objects.get(pk=line.pk).cost_to_complete_estimate == 1_234_500

    return Case(
        target=line.pk,
        payload={"cost_to_complete": 1_234_500},
        real=("patch", f"/v1/budgets/{twin.pk}", {"cost_to_complete": 1_234_500}),
        resource="/v1/budgets",
        event="budget.updated",
        same=("cost_to_complete", "cost_to_complete_is_estimate", "projected_cost", "actual"),
        check=check,
    )


CASES = {
    "invoice.code": _invoice_code,
    "change_order.create": _change_order_create,
    "rfi.create": _rfi_create,
    "daily_log.create": _daily_log_create,
    "budget.update": _budget_update,
}


@pytest.mark.parametrize("action", list(CASES))
def test_proposal_writes_nothing_and_approval_makes_the_real_change(action, job, agent, manager):
    case = CASES[action](job)
    before = world()
    response = propose(agent, action, case.payload, case.target, rationale="Seen on site")
    assert response.status_code == 201, response.content
    proposed = response.json()
    action_id = proposed["id"]
    assert action_id.startswith("aa_") and proposed["object"] == "agent_action"
    assert (proposed["action"], proposed["status"], proposed["project"]) == (
        action,
        "proposed",
        job.project.pk,
    )
    assert (proposed["target"], proposed["payload"], proposed["rationale"]) == (
        case.target,
        case.payload,
        "Seen on site",
    )
    assert proposed["proposed_by"] == {"type": "api_key", "id": agent.key.pk, "role": "agent"}
    assert (proposed["result"], proposed["failure"], proposed["decided_by"]) == (None, None, None)
    assert (proposed["decided_at"], proposed["rejection_reason"]) == (None, "")
    assert_only_the_action_moved(before, world(), action_id, "agent_action.proposed")
    assert manager.get(f"{ACTIONS}/{action_id}").json() == proposed

    events_before = Event.objects.count()
    response = manager.post(f"{ACTIONS}/{action_id}/approve", idem=f"approve-{action_id}")
    assert response.status_code == 200, response.content
    approved = response.json()
    assert approved["status"] == "approved" and approved["failure"] is None
    assert approved["decided_by"] == {"type": "api_key", "id": manager.key.pk, "role": "manager"}
    assert approved["decided_at"] and approved["proposed_by"] == proposed["proposed_by"]
    result_id = approved["result"]
    assert result_id and (case.target is None or result_id == case.target)

    result = manager.get(f"{case.resource}/{result_id}")
    assert result.status_code == 200, result.content
    case.check(result.json())

    # The change emits its own event, then the approval's; both carry the approve request.
    new_events = list(
        Event.objects.order_by("created_at", "id").values_list("type", "object_id", "request_id")[
            events_before:
        ]
    )
    request_id = response["Request-Id"]
    assert new_events == [
        (case.event, result_id, request_id),
        ("agent_action.approved", action_id, request_id),
    ]
    assert trail(manager, action_id) == ["proposed", "approved"]
    shown = manager.get("/v1/events", {"type": case.event}).json()["data"]
    assert [
        (e["data"]["object"]["id"], e["request"]["idempotency_key"])
        for e in shown
        if e["request"] and e["request"]["id"] == request_id
    ] == [(result_id, f"approve-{action_id}")]
    # The change itself is on the changed object's audit trail, made by the approver.
    changed = manager.get(f"{case.resource}/{result_id}/audit").json()["data"][-1]
    assert (changed["actor"], changed["request_id"]) == (actor(manager), request_id)

    # The real endpoint, given the same body, ends with the same fields.
    method, path, body = case.real
    real = getattr(manager, method)(path, body)
    assert real.status_code == (201 if method == "post" else 200), real.content
    assert {f: result.json()[f] for f in case.same} == {f: real.json()[f] for f in case.same}


def test_budget_update_original_amount_while_bid(account, agent, manager):
    """While the project is in bid an approved budget.update moves original_amount (and so
    revised_amount), exactly as PATCH /v1/budgets/{id} does."""
    job = make_job(account)
    Project.objects.filter(pk=job.project.pk).update(status="bid")
    line, twin = job.codes["01-000"].budget_line, job.codes["09-000"].budget_line
    payload = {"original_amount": 2_100_000, "cost_to_complete": 400_000}
    action_id = proposed_id(agent, "budget.update", payload, line.pk)
    assert BudgetLine.objects.get(pk=line.pk).original_amount == 1_800_000
    approved = manager.post(f"{ACTIONS}/{action_id}/approve")
    assert approved.status_code == 200, approved.content
    assert (approved.json()["status"], approved.json()["result"]) == ("approved", line.pk)
    after = manager.get(f"/v1/budgets/{line.pk}").json()
    assert (after["original_amount"], after["revised_amount"], after["cost_to_complete"]) == (
        2_100_000,
        2_100_000,
        400_000,
    )
    real = manager.patch(f"/v1/budgets/{twin.pk}", payload).json()
    fields = ("original_amount", "revised_amount", "cost_to_complete", "projected_cost")
    assert {f: after[f] for f in fields} == {f: real[f] for f in fields}


def test_an_empty_budget_update_is_accepted_as_the_real_patch_is(job, agent, manager):
    """PATCH /v1/budgets/{id} takes `{}` and changes nothing; so does a budget.update
    proposed with the empty payload, and approved (found by schemathesis's stateful phase,
    which the model's "cannot be blank" answered with a 400 the schema did not allow)."""
    line = job.codes["01-000"].budget_line
    before = manager.get(f"/v1/budgets/{line.pk}").json()
    assert manager.patch(f"/v1/budgets/{line.pk}", {}).status_code == 200
    action_id = proposed_id(agent, "budget.update", {}, line.pk)
    approved = manager.post(f"{ACTIONS}/{action_id}/approve")
    assert approved.status_code == 200, approved.content
    assert (approved.json()["status"], approved.json()["payload"]) == ("approved", {})
    after = manager.get(f"/v1/budgets/{line.pk}").json()
    assert {k: v for k, v in after.items() if k != "updated_at"} == {
        k: v for k, v in before.items() if k != "updated_at"
    }


@pytest.mark.parametrize(
    ("action", "param"),
    [
        ("invoice.code", "payload.lines"),
        ("change_order.create", "payload.project"),
        ("rfi.create", "payload.project"),
        ("daily_log.create", "payload.project"),
    ],
)
def test_an_empty_payload_is_refused_where_the_real_endpoint_needs_fields(
    job, agent, action, param
):
    """Only budget.update's endpoint takes `{}`; every other action's empty payload gets the
    400 its endpoint gives, naming the missing field under `payload.`, and records nothing."""
    invoice = (
        make_invoice(job.commitment, amount=60_000, number="AG-0")
        if action == "invoice.code"
        else None
    )
    before = AgentAction.objects.count()
    response = propose(agent, action, {}, invoice.pk if invoice else None)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["param"] == param
    assert AgentAction.objects.count() == before


def test_fractional_numbers_in_a_payload_survive_proposal_and_approval(job, agent, manager):
    """POST /v1/daily-logs takes hours of 48.5 (exact, two decimals); the same body proposed
    as daily_log.create must be accepted and, approved, log 48.5 + 16 = 64.5 hours."""
    body = daily_log_body(job, hours=48.5)
    real = manager.post("/v1/daily-logs", daily_log_body(job, date="2026-11-04", hours=48.5))
    assert real.status_code == 201, real.content
    assert real.json()["total_hours"] == 64.5
    proposed = propose(agent, "daily_log.create", body)
    assert proposed.status_code == 201, proposed.content
    assert proposed.json()["payload"]["manpower"][0]["hours"] == 48.5
    action_id = proposed.json()["id"]
    approved = manager.post(f"{ACTIONS}/{action_id}/approve")
    assert approved.json()["status"] == "approved", approved.content
    log = manager.get(f"/v1/daily-logs/{approved.json()['result']}").json()
    assert (log["total_hours"], log["manpower"][0]["hours"]) == (64.5, 48.5)


# --- 2. Propose-time validation: the real endpoint's errors, nothing written ----------------


def _other_job():
    return make_job(AccountFactory())


PROPOSE_ERRORS = {
    "unknown payload field": (
        lambda j: {"action": "change_order.create", "payload": change_order_body(j, colour="red")},
        (400, "parameter_unknown", "payload.colour"),
    ),
    "bad amount type": (
        lambda j: {
            "action": "change_order.create",
            "payload": {**change_order_body(j), "amount": "lots"},
        },
        (400, "parameter_invalid", "payload.amount"),
    ),
    "float amount": (
        lambda j: {
            "action": "change_order.create",
            "payload": {**change_order_body(j), "amount": 10.5},
        },
        (400, "parameter_invalid", "payload.amount"),
    ),
    "whole amount written with a decimal point": (
        lambda j: {
            "action": "change_order.create",
            "payload": {**change_order_body(j), "amount": 250_000.0},
        },
        (400, "parameter_invalid", "payload.amount"),
    ),
    "bad nested cost code": (
        lambda j: {
            "action": "invoice.code",
            "target": make_invoice(j.commitment, amount=1_000, number="N-1").pk,
            "payload": {"lines": [{"cost_code": "cc_nope", "amount": 1_000}]},
        },
        (404, "resource_missing", "payload.lines[0].cost_code"),
    ),
    "payload project missing": (
        lambda j: {"action": "rfi.create", "payload": {"subject": "S", "question": "Q"}},
        (400, "parameter_missing", "payload.project"),
    ),
    "payload project of another account": (
        lambda j: {"action": "rfi.create", "payload": rfi_body(_other_job())},
        (404, "resource_missing", "payload.project"),
    ),
    "payload field missing": (
        lambda j: {"action": "daily_log.create", "payload": {"project": j.project.pk}},
        (400, "parameter_missing", "payload.date"),
    ),
    "target missing for invoice.code": (
        lambda j: {"action": "invoice.code", "payload": {"lines": invoice_lines(j)}},
        (400, "parameter_missing", "target"),
    ),
    "target null for budget.update": (
        lambda j: {"action": "budget.update", "target": None, "payload": {"cost_to_complete": 1}},
        (400, "parameter_missing", "target"),
    ),
    "target on a create": (
        lambda j: {
            "action": "rfi.create",
            "target": j.codes["03-000"].budget_line.pk,
            "payload": rfi_body(j),
        },
        (400, "parameter_invalid", "target"),
    ),
    "target of the wrong prefix": (
        lambda j: {
            "action": "invoice.code",
            "target": j.codes["03-000"].budget_line.pk,
            "payload": {"lines": invoice_lines(j)},
        },
        (404, "resource_missing", "target"),
    ),
    "unknown target": (
        lambda j: {
            "action": "budget.update",
            "target": "bl_doesnotexist",
            "payload": {"cost_to_complete": 1},
        },
        (404, "resource_missing", "target"),
    ),
    "other account's invoice": (
        lambda j: {
            "action": "invoice.code",
            "target": make_invoice(_other_job().commitment, amount=1_000, number="X-1").pk,
            "payload": {"lines": invoice_lines(j, [("03-000", 1_000)])},
        },
        (404, "resource_missing", "target"),
    ),
    "other account's budget line": (
        lambda j: {
            "action": "budget.update",
            "target": _other_job().codes["03-000"].budget_line.pk,
            "payload": {"cost_to_complete": 1},
        },
        (404, "resource_missing", "target"),
    ),
    "invoice.code without lines": (
        lambda j: {
            "action": "invoice.code",
            "target": make_invoice(j.commitment, amount=1_000, number="L-1").pk,
            "payload": {"number": "L-1b"},
        },
        (400, "parameter_missing", "payload.lines"),
    ),
    "invoice.code with empty lines": (
        lambda j: {
            "action": "invoice.code",
            "target": make_invoice(j.commitment, amount=1_000, number="L-2").pk,
            "payload": {"lines": []},
        },
        (400, "parameter_invalid", "payload.lines"),
    ),
    "read-only budget field": (
        lambda j: {
            "action": "budget.update",
            "target": j.codes["03-000"].budget_line.pk,
            "payload": {"actual": 5},
        },
        (400, "parameter_read_only", "payload.actual"),
    ),
    "payload a list": (
        lambda j: {"action": "rfi.create", "payload": [rfi_body(j)]},
        (400, "parameter_invalid", "payload"),
    ),
    "payload a string": (
        lambda j: {"action": "rfi.create", "payload": "create an RFI"},
        (400, "parameter_invalid", "payload"),
    ),
    "payload missing": (
        lambda j: {"action": "rfi.create"},
        (400, "parameter_missing", "payload"),
    ),
    "unknown action": (
        lambda j: {"action": "invoice.approve", "payload": {}},
        (400, "parameter_invalid", "action"),
    ),
    "unknown top-level field": (
        lambda j: {"action": "rfi.create", "payload": rfi_body(j), "priority": "high"},
        (400, "parameter_unknown", "priority"),
    ),
    "project that does not match the payload": (
        lambda j: {
            "action": "rfi.create",
            "payload": rfi_body(j),
            "project": ProjectFactory(account=j.project.account).pk,
        },
        (400, "parameter_invalid", "project"),
    ),
    "project that does not match the target": (
        lambda j: {
            "action": "budget.update",
            "target": j.codes["03-000"].budget_line.pk,
            "payload": {"cost_to_complete": 1},
            "project": ProjectFactory(account=j.project.account).pk,
        },
        (400, "parameter_invalid", "project"),
    ),
}


@pytest.mark.parametrize("name", list(PROPOSE_ERRORS))
def test_invalid_proposals_are_refused_and_write_nothing(name, job, agent):
    make_body, (status, code, param) = PROPOSE_ERRORS[name]
    body = make_body(job)
    before = world()
    response = agent.post(ACTIONS, body)
    assert response.status_code == status, response.content
    error = error_of(response)
    assert (error["code"], error["param"]) == (code, param), error
    assert world() == before
    assert AgentAction.objects.count() == 0


def test_a_matching_project_is_accepted(job, agent):
    response = propose(agent, "rfi.create", rfi_body(job), project=job.project.pk)
    assert response.status_code == 201, response.content
    assert response.json()["project"] == job.project.pk


@pytest.mark.parametrize("action", list(CASES))
def test_proposal_on_a_closed_project_is_409_project_closed(action, job, agent):
    case = CASES[action](job)
    Project.objects.filter(pk=job.project.pk).update(status="closed")
    before = world()
    response = propose(agent, action, case.payload, case.target)
    assert response.status_code == 409, response.content
    error = error_of(response)
    assert (error["code"], error["object"]) == ("project_closed", job.project.pk)
    assert world() == before


def test_viewer_cannot_propose(account, job, make_api):
    viewer = make_api(account, "viewer")
    before = world()
    response = propose(viewer, "rfi.create", rfi_body(job))
    assert response.status_code == 403
    assert error_of(response)["code"] == "role_forbidden"
    assert world() == before


@pytest.mark.parametrize("role", ["member", "manager", "admin", "agent"])
def test_every_writer_can_propose(role, account, job, make_api):
    api = make_api(account, role)
    response = propose(api, "rfi.create", rfi_body(job))
    assert response.status_code == 201, response.content
    assert response.json()["proposed_by"] == {"type": "api_key", "id": api.key.pk, "role": role}
    assert Rfi.objects.count() == 0


# --- 3. Approval hits a rule: the action fails, nothing of the change is written ------------


def approve_fails(manager, action_id, code, param, object_id, error_type):
    """Approve; assert 200 `failed` with the error object and that only the action moved."""
    before = world()
    response = manager.post(f"{ACTIONS}/{action_id}/approve")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["result"]) == ("failed", None)
    assert body["failure"] == {
        "type": error_type,
        "code": code,
        "message": body["failure"]["message"],
        "param": param,
        "object": object_id,
        "request_id": response["Request-Id"],
    }
    assert body["failure"]["message"]
    assert body["decided_by"] == actor(manager) and body["decided_at"]
    assert_only_the_action_moved(before, world(), action_id, "agent_action.failed")
    failed = Event.objects.get(type="agent_action.failed", object_id=action_id)
    assert (failed.request_id, failed.data["object"]) == (response["Request-Id"], body)
    assert trail(manager, action_id) == ["proposed", "failed"]
    assert manager.get(f"{ACTIONS}/{action_id}").json() == body
    return body


def test_invoice_lines_that_no_longer_sum_fail_at_approval(job, agent, manager):
    """Lines of 45,000 + 15,000 fit the 60,000 invoice when proposed; the invoice is then
    changed to 70,000, so approval hits 422 lines_sum_mismatch and the invoice stays
    received and uncoded."""
    invoice = make_invoice(job.commitment, amount=60_000, number="F-1")
    action_id = proposed_id(agent, "invoice.code", {"lines": invoice_lines(job)}, invoice.pk)
    changed = manager.patch(f"/v1/invoices/{invoice.pk}", {"amount": 70_000})
    assert changed.status_code == 200, changed.content
    invoice_trail = manager.get(f"/v1/invoices/{invoice.pk}/audit").json()["data"]
    body = approve_fails(
        manager, action_id, "lines_sum_mismatch", "payload.lines", invoice.pk, "validation_failed"
    )
    assert body["target"] == invoice.pk
    invoice.refresh_from_db()
    assert (invoice.status, invoice.amount, invoice.lines.count()) == ("received", 70_000, 0)
    assert manager.get(f"/v1/invoices/{invoice.pk}/audit").json()["data"] == invoice_trail


def test_change_order_lines_that_do_not_sum_fail_at_approval(job, agent, manager):
    """The serializer accepts lines of 200,000 + 50,000 for an amount of 260,000; the
    service's sum rule refuses them at approval: no change order, no lines."""
    payload = change_order_body(job)
    payload["amount"] = 260_000
    action_id = proposed_id(agent, "change_order.create", payload)
    approve_fails(
        manager, action_id, "lines_sum_mismatch", "payload.lines", None, "validation_failed"
    )
    assert ChangeOrder.objects.count() == 0 and ChangeOrderLine.objects.count() == 0


def test_budget_original_amount_fails_once_the_project_is_active(account, agent, manager):
    """Proposed while bid; the project goes active before approval, so the original budget
    is locked (409 budget_locked) and neither figure of the payload is written."""
    job = make_job(account)
    Project.objects.filter(pk=job.project.pk).update(status="bid")
    line = job.codes["01-000"].budget_line
    payload = {"original_amount": 2_100_000, "cost_to_complete": 400_000}
    action_id = proposed_id(agent, "budget.update", payload, line.pk)
    activated = manager.patch(f"/v1/projects/{job.project.pk}", {"status": "active"})
    assert activated.status_code == 200, activated.content
    line_trail = manager.get(f"/v1/budgets/{line.pk}/audit").json()["data"]
    approve_fails(
        manager, action_id, "budget_locked", "payload.original_amount", line.pk, "conflict"
    )
    line.refresh_from_db()
    assert (line.original_amount, line.cost_to_complete_estimate) == (1_800_000, None)
    assert manager.get(f"/v1/budgets/{line.pk}/audit").json()["data"] == line_trail


def test_rfi_number_taken_before_approval_fails(job, agent, manager):
    action_id = proposed_id(agent, "rfi.create", rfi_body(job, number="RFI-900"))
    taken = manager.post("/v1/rfis", rfi_body(job, number="RFI-900"))
    assert taken.status_code == 201, taken.content
    approve_fails(manager, action_id, "resource_already_exists", "payload.number", None, "conflict")
    assert Rfi.objects.count() == 1


def test_daily_log_day_taken_before_approval_fails(job, agent, manager):
    action_id = proposed_id(agent, "daily_log.create", daily_log_body(job))
    taken = manager.post("/v1/daily-logs", daily_log_body(job))
    assert taken.status_code == 201, taken.content
    approve_fails(
        manager,
        action_id,
        "resource_already_exists",
        "payload.date",
        taken.json()["id"],
        "conflict",
    )
    assert DailyLog.objects.count() == 1 and DailyLogManpower.objects.count() == 2


def test_a_coded_invoice_approved_before_the_action_fails(job, agent, manager):
    """The invoice is approved through the API before the coding proposal is: editing an
    approved invoice is 409 invalid_state_transition, so the action fails."""
    invoice = make_invoice(job.commitment, amount=60_000, number="F-2", status="coded")
    action_id = proposed_id(agent, "invoice.code", {"lines": invoice_lines(job)}, invoice.pk)
    assert manager.post(f"/v1/invoices/{invoice.pk}/approve").status_code == 200
    approve_fails(manager, action_id, "invalid_state_transition", None, invoice.pk, "conflict")
    assert list(invoice.lines.values_list("cost_code_id", "amount")) == [
        (job.codes["03-000"].pk, 60_000)
    ]


# --- 4. Transitions and events ---------------------------------------------------------------


def _decided(job, agent, manager, how) -> str:
    if how == "failed":
        payload = change_order_body(job)
        payload["amount"] = 1
        action_id = proposed_id(agent, "change_order.create", payload)
        assert manager.post(f"{ACTIONS}/{action_id}/approve").json()["status"] == "failed"
        return action_id
    action_id = proposed_id(agent, "rfi.create", rfi_body(job))
    if how == "approved":
        assert manager.post(f"{ACTIONS}/{action_id}/approve").json()["status"] == "approved"
    else:
        assert manager.post(f"{ACTIONS}/{action_id}/reject").json()["status"] == "rejected"
    return action_id


@pytest.mark.parametrize("how", ["approved", "rejected", "failed"])
@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_a_decided_action_cannot_be_decided_again(how, verb, job, agent, manager):
    action_id = _decided(job, agent, manager, how)
    shown = manager.get(f"{ACTIONS}/{action_id}").json()
    before = world()
    response = manager.post(
        f"{ACTIONS}/{action_id}/{verb}", {"reason": "Again"} if verb == "reject" else {}
    )
    assert response.status_code == 409, response.content
    error = error_of(response)
    assert (error["code"], error["object"]) == ("invalid_state_transition", action_id)
    assert world() == before
    assert manager.get(f"{ACTIONS}/{action_id}").json() == shown


def test_reject_records_who_and_why(job, agent, manager):
    action_id = proposed_id(agent, "rfi.create", rfi_body(job))
    before = world()
    response = manager.post(f"{ACTIONS}/{action_id}/reject", {"reason": "Already asked in RFI-003"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["rejection_reason"], body["result"]) == (
        "rejected",
        "Already asked in RFI-003",
        None,
    )
    assert body["decided_by"] == actor(manager) and body["decided_at"]
    assert_only_the_action_moved(before, world(), action_id, "agent_action.rejected")
    entries = manager.get(f"{ACTIONS}/{action_id}/audit").json()["data"]
    assert [e["action"] for e in entries] == ["proposed", "rejected"]
    assert entries[0]["actor"] == actor(agent)
    assert (entries[1]["actor"], entries[1]["note"]) == (actor(manager), "Already asked in RFI-003")
    assert Rfi.objects.count() == 0


def test_reject_without_a_reason(job, agent, manager):
    action_id = proposed_id(
        agent, "budget.update", {"cost_to_complete": 5}, job.codes["03-000"].budget_line.pk
    )
    response = manager.post(f"{ACTIONS}/{action_id}/reject")
    assert response.status_code == 200, response.content
    assert (response.json()["status"], response.json()["rejection_reason"]) == ("rejected", "")
    assert BudgetLine.objects.get(cost_code=job.codes["03-000"]).cost_to_complete_estimate is None


def test_each_step_emits_its_agent_action_event(job, agent, manager):
    """proposed on every proposal; approved / rejected / failed on the decision; each event's
    object is the action as GET shows it and its request is the call that made it."""
    approved = _decided(job, agent, manager, "approved")
    rejected = _decided(job, agent, manager, "rejected")
    failed = _decided(job, agent, manager, "failed")
    by_action = {
        action_id: list(
            Event.objects.filter(object_id=action_id)
            .order_by("created_at", "id")
            .values_list("type", flat=True)
        )
        for action_id in (approved, rejected, failed)
    }
    assert by_action == {
        approved: ["agent_action.proposed", "agent_action.approved"],
        rejected: ["agent_action.proposed", "agent_action.rejected"],
        failed: ["agent_action.proposed", "agent_action.failed"],
    }
    for action_id in (approved, rejected, failed):
        last = Event.objects.filter(object_id=action_id).order_by("created_at", "id").last()
        assert last.project_id == job.project.pk
        assert last.data["object"] == manager.get(f"{ACTIONS}/{action_id}").json()
        assert last.data["previous_attributes"]["status"] == "proposed"
    events = manager.get("/v1/events", {"type": "agent_action.failed"}).json()["data"]
    assert [e["data"]["object"]["id"] for e in events] == [failed]


def test_approval_in_a_closed_project_is_409_and_writes_nothing(job, agent, manager):
    action_id = proposed_id(agent, "rfi.create", rfi_body(job))
    Project.objects.filter(pk=job.project.pk).update(status="closed")
    before = world()
    for verb in ("approve", "reject"):
        response = manager.post(f"{ACTIONS}/{action_id}/{verb}")
        assert response.status_code == 409, response.content
        assert error_of(response)["code"] == "project_closed"
    assert world() == before
    assert AgentAction.objects.get(pk=action_id).status == "proposed"


# --- 5. Roles ---------------------------------------------------------------------------------


@pytest.mark.parametrize("verb", ["approve", "reject"])
@pytest.mark.parametrize(
    "role,code",
    [("agent", "agent_cannot_approve"), ("member", "role_forbidden"), ("viewer", "role_forbidden")],
)
def test_only_managers_and_admins_decide(verb, role, code, account, job, agent, make_api):
    action_id = proposed_id(agent, "change_order.create", change_order_body(job))
    api = agent if role == "agent" else make_api(account, role)
    before = world()
    response = api.post(
        f"{ACTIONS}/{action_id}/{verb}", {"reason": "x"} if verb == "reject" else {}
    )
    assert response.status_code == 403, response.content
    assert error_of(response)["code"] == code
    assert world() == before
    assert AgentAction.objects.get(pk=action_id).status == "proposed"


def test_the_agent_cannot_decide_even_with_a_bad_body(job, agent):
    """The role check runs before the body is read (docs/keys.md, "Who may call what")."""
    action_id = proposed_id(agent, "rfi.create", rfi_body(job))
    response = agent.post(f"{ACTIONS}/{action_id}/approve", {"nonsense": True})
    assert response.status_code == 403
    assert error_of(response)["code"] == "agent_cannot_approve"


def test_project_restricted_keys_propose_and_decide_only_in_their_projects(account, job, make_api):
    other = make_job(account)
    agent = make_api(account, "agent", projects=[job.project])
    manager = make_api(account, "manager", projects=[other.project])
    before = world()
    foreign_payload = propose(agent, "rfi.create", rfi_body(other))
    assert foreign_payload.status_code == 404
    assert error_of(foreign_payload)["param"] == "payload.project"
    foreign_target = propose(
        agent, "budget.update", {"cost_to_complete": 1}, other.codes["03-000"].budget_line.pk
    )
    assert foreign_target.status_code == 404 and error_of(foreign_target)["param"] == "target"
    assert world() == before
    action_id = proposed_id(agent, "rfi.create", rfi_body(job))
    before = world()
    hidden = manager.post(f"{ACTIONS}/{action_id}/approve")
    assert hidden.status_code == 404 and error_of(hidden)["code"] == "resource_missing"
    assert manager.get(ACTIONS).json()["data"] == []
    assert world() == before


def test_an_admin_approves(account, job, agent, make_api):
    admin = make_api(account, "admin")
    action_id = proposed_id(agent, "rfi.create", rfi_body(job))
    response = admin.post(f"{ACTIONS}/{action_id}/approve")
    assert response.status_code == 200, response.content
    assert response.json()["decided_by"] == {"type": "api_key", "id": admin.key.pk, "role": "admin"}
    assert Rfi.objects.get().pk == response.json()["result"]


def test_another_account_cannot_see_or_decide_the_action(job, agent, make_api):
    action_id = proposed_id(agent, "rfi.create", rfi_body(job))
    stranger = make_api(AccountFactory(), "manager")
    before = world()
    assert stranger.get(f"{ACTIONS}/{action_id}").status_code == 404
    response = stranger.post(f"{ACTIONS}/{action_id}/approve")
    assert response.status_code == 404 and error_of(response)["code"] == "resource_missing"
    assert stranger.get(ACTIONS).json()["data"] == []
    assert world() == before


# --- 6. List, filters, retrieve, audit ------------------------------------------------------


def test_list_filters_retrieve_and_audit(account, job, agent, manager):
    other = make_job(account)
    rfi = proposed_id(agent, "rfi.create", rfi_body(job))
    log = proposed_id(agent, "daily_log.create", daily_log_body(job))
    budget = proposed_id(
        agent, "budget.update", {"cost_to_complete": 7}, other.codes["03-000"].budget_line.pk
    )
    other_rfi = proposed_id(agent, "rfi.create", rfi_body(other))
    assert manager.post(f"{ACTIONS}/{log}/approve").json()["status"] == "approved"
    assert (
        manager.post(f"{ACTIONS}/{budget}/reject", {"reason": "No"}).json()["status"] == "rejected"
    )

    def ids(**params):
        response = manager.get(ACTIONS, params)
        assert response.status_code == 200, response.content
        return [a["id"] for a in response.json()["data"]]

    assert ids() == [other_rfi, budget, log, rfi]
    assert ids(project=job.project.pk) == [log, rfi]
    assert ids(project=other.project.pk) == [other_rfi, budget]
    assert ids(status="proposed") == [other_rfi, rfi]
    assert ids(status="approved") == [log]
    assert ids(status="rejected") == [budget]
    assert ids(status="failed") == []
    assert ids(action="rfi.create") == [other_rfi, rfi]
    assert ids(action="budget.update") == [budget]
    assert ids(action="rfi.create", project=job.project.pk, status="proposed") == [rfi]
    bad = manager.get(ACTIONS, {"status": "pending"})
    assert bad.status_code == 400 and error_of(bad)["param"] == "status"

    listed = {a["id"]: a for a in manager.get(ACTIONS).json()["data"]}
    for action_id in (rfi, log, budget, other_rfi):
        one = agent.get(f"{ACTIONS}/{action_id}")
        assert one.status_code == 200 and one.json() == listed[action_id]
    assert listed[log]["result"] == DailyLog.objects.get().pk
    assert listed[budget]["target"] == other.codes["03-000"].budget_line.pk

    entries = agent.get(f"{ACTIONS}/{log}/audit").json()["data"]
    assert [(e["action"], e["actor"]) for e in entries] == [
        ("proposed", actor(agent)),
        ("approved", actor(manager)),
    ]
    assert {e["target"] for e in entries} == {log}
    assert trail(agent, rfi) == ["proposed"]
    assert trail(agent, budget) == ["proposed", "rejected"]
    assert manager.get(f"{ACTIONS}/inv_{log[3:]}").status_code == 404


# --- 7. Idempotency -----------------------------------------------------------------------------


def test_replayed_approve_runs_once(job, agent, manager):
    action_id = proposed_id(agent, "change_order.create", change_order_body(job))
    first = manager.post(f"{ACTIONS}/{action_id}/approve", idem="approve-once")
    assert first.status_code == 200, first.content
    events = Event.objects.count()
    again = manager.post(f"{ACTIONS}/{action_id}/approve", idem="approve-once")
    assert again.status_code == 200
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert ChangeOrder.objects.count() == 1 and ChangeOrderLine.objects.count() == 2
    assert Event.objects.filter(type="change_order.created").count() == 1
    assert Event.objects.count() == events
    assert trail(manager, action_id) == ["proposed", "approved"]
    fresh = manager.post(f"{ACTIONS}/{action_id}/approve", idem="approve-twice")
    assert fresh.status_code == 409 and error_of(fresh)["code"] == "invalid_state_transition"
    assert ChangeOrder.objects.count() == 1


def test_replayed_failed_approve_returns_the_same_failure(job, agent, manager):
    payload = change_order_body(job)
    payload["amount"] = 1
    action_id = proposed_id(agent, "change_order.create", payload)
    first = manager.post(f"{ACTIONS}/{action_id}/approve", idem="approve-fail")
    assert first.json()["status"] == "failed"
    again = manager.post(f"{ACTIONS}/{action_id}/approve", idem="approve-fail")
    assert (again.status_code, again.json()) == (200, first.json())
    assert again.json()["failure"]["request_id"] == first["Request-Id"]
    assert Event.objects.filter(type="agent_action.failed").count() == 1


def test_replayed_proposal_records_one_action(job, agent):
    body = {"action": "rfi.create", "payload": rfi_body(job)}
    first = agent.post(ACTIONS, body, idem="propose-once")
    again = agent.post(ACTIONS, body, idem="propose-once")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert AgentAction.objects.count() == 1
