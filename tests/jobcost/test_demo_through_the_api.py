"""The demo job that `manage.py seed_demo` loads, read through the API: the buyout, three
billing periods of change orders, invoices, lien waivers and pay apps, the field records (RFIs,
daily logs, the agent's pending proposals), all consistent, and docs/demo-job.md row by row.

The demo is seeded once for the module (seconds of services and audit), inside an outer
transaction rolled back at the end (tests/shared.py); each test's changes are rolled back
after it. Seeding itself (twice, onto older demo databases, outside development) is tested
on an empty database in test_seed_demo.py.
"""

from __future__ import annotations

import datetime
from collections import Counter, defaultdict
from decimal import Decimal

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from jobcost.demo import field_records, progress, school_addition
from jobcost.models import (
    AgentAction,
    ApiKey,
    BudgetLine,
    ChangeOrder,
    Commitment,
    CostCode,
    DailyLog,
    Invoice,
    InvoiceStatus,
    LienWaiver,
    PayApp,
    Project,
    Rfi,
    Vendor,
)
from jobcost.money import HUNDRED
from jobcost.selectors.reports.payables import bucket
from tests.conftest import Api
from tests.factories import make_key
from tests.jobcost.test_seed_demo import (
    CHANGE_ORDER_RFIS,
    progress_rows_of_the_page,
    seed,
    usd,
)
from tests.shared import rows_for_the_module

pytestmark = pytest.mark.django_db

PROJECT_CENTS = (
    "revised_contract", "cost_to_date", "projected_cost", "billed_to_date", "earned_revenue",
    "over_under_billing",
)  # fmt: skip
PROJECT_PERCENTS = ("percent_complete", "projected_margin_pct")
BUDGET_CENTS = ("revised_amount", "committed", "actual", "projected_cost", "variance")


def demo_project() -> Project:
    return Project.objects.get(account__name="Demo Builders", number="2026-014")


def pct(value) -> str:
    return f"{Decimal(str(value)):.2f} %"


@pytest.fixture(scope="module")
def shared_seed(django_db_setup, django_db_blocker):
    with rows_for_the_module(django_db_blocker):
        yield seed()


@pytest.fixture
def seeded(shared_seed, db) -> str:
    """The demo job seeded; the output of `manage.py seed_demo` that loaded it."""
    return shared_seed


class Demo:
    """Everything the API shows of the seeded demo job, read with an admin key."""

    def __init__(self):
        project = demo_project()
        _key, secret = make_key(project.account, "admin")
        self.api = Api(secret)
        self.project = self.get(f"/v1/projects/{project.pk}")
        scoped = {"project": project.pk}
        self.vendors = {v["id"]: v for v in self.listing("/v1/vendors")}
        self.codes = {c["id"]: c for c in self.listing("/v1/cost-codes", scoped)}
        self.budgets = self.listing("/v1/budgets", scoped)
        self.commitments = {c["id"]: c for c in self.listing("/v1/commitments", scoped)}
        self.change_orders = self.listing("/v1/change-orders", scoped)
        self.invoices = self.listing("/v1/invoices", scoped)
        self.waivers = self.listing("/v1/lien-waivers", scoped)
        pay_apps = sorted(self.listing("/v1/pay-apps", scoped), key=lambda p: p["number"])
        self.pay_apps = {p["number"]: p for p in pay_apps}
        self.by_id = {p["id"]: p for p in pay_apps}
        self.lines = {p["number"]: self.listing(p["lines_url"]) for p in pay_apps}

    def get(self, path: str, params=None) -> dict:
        response = self.api.get(path, params)
        assert response.status_code == 200, response.content
        return response.json()

    def listing(self, path: str, params=None) -> list[dict]:
        body = self.get(path, {**(params or {}), "limit": 100})
        assert not body["has_more"]
        return body["data"]

    def code_of_invoice(self, invoice: dict) -> str:
        return self.codes[self.commitments[invoice["commitment"]]["cost_code"]]["code"]

    def pay_app_number(self, pay_app_id: str | None) -> str:
        return f"#{self.by_id[pay_app_id]['number']}" if pay_app_id else "—"

    def waiver_of(self, invoice: dict) -> str:
        found = [w for w in self.waivers if w["invoice"] == invoice["id"]]
        if not found:
            return "—"
        (waiver,) = found
        return " ".join(filter(None, [waiver["status"], waiver["received_on"]]))


def page_rows(demo: Demo) -> list[str]:
    """The table rows docs/demo-job.md must contain, rendered from the API's answers."""
    project = demo.project
    rows = [f"| `{name}` | {usd(project[name])} |" for name in PROJECT_CENTS]
    rows += [f"| `{name}` | {pct(project[name])} |" for name in PROJECT_PERCENTS]
    for n, p in demo.pay_apps.items():
        missing = ", ".join(sorted(demo.vendors[v]["name"] for v in p["lien_waivers_missing"]))
        rows.append(
            f"| #{n} | {p['period_start']} – {p['period_end']} | {p['status']} | "
            f"{usd(p['contract_sum_to_date'])} | {usd(p['total_completed_and_stored'])} | "
            f"{usd(p['total_retainage'])} | {usd(p['total_earned_less_retainage'])} | "
            f"{usd(p['less_previous_certificates'])} | {usd(p['current_payment_due'])} | "
            f"{missing or 'none'} |"
        )
    for n, p in demo.pay_apps.items():
        if p["amount_certified"] is None:
            continue
        receipts = "; ".join(
            f"{r['received_on']} {r['reference']} {usd(r['amount'])}"
            for r in reversed(demo.listing(f"/v1/pay-apps/{p['id']}/payments"))
        )
        rows.append(
            f"| #{n} | {usd(p['amount_certified'])} | {usd(p['amount_paid'])} | "
            f"{usd(p['amount_remaining'])} | {receipts or '—'} |"
        )
    for line in demo.lines[3]:
        rows.append(
            f"| {line['item']} | {line['description']} | {usd(line['scheduled_value'])} | "
            f"{usd(line['previous'])} | {usd(line['this_period'])} | "
            f"{usd(line['materials_stored'])} | {usd(line['total_completed_and_stored'])} | "
            f"{pct(line['percent_complete'])} | {usd(line['retainage'])} |"
        )
    for co in demo.change_orders:
        commitment = demo.commitments[co["commitment"]]["number"] if co["commitment"] else "—"
        budget = sum(line["budget_amount"] for line in co["lines"])
        rows.append(
            f"| {co['number']} | {co['kind']} | {co['title']} | {commitment} | "
            f"{usd(co['amount'])} | {usd(budget)} | {co['status']} | "
            f"{demo.pay_app_number(co['pay_app'])} |"
        )
    by_state = defaultdict(list)
    for inv in demo.invoices:
        by_state[inv["status"]].append(inv["amount"])
        rows.append(
            f"| {demo.vendors[inv['vendor']]['name']} | {inv['number']} | {inv['invoice_date']} | "
            f"{demo.code_of_invoice(inv)} | {usd(inv['amount'])} | "
            f"{usd(inv['retainage_amount'])} | {inv['status']} | "
            f"{demo.pay_app_number(inv['pay_app'])} | {demo.waiver_of(inv)} |"
        )
    for status, amounts in by_state.items():
        rows.append(f"| {status} | {len(amounts)} | {usd(sum(amounts))} |")
    for line in demo.budgets:
        figures = " | ".join(usd(line[name]) for name in BUDGET_CENTS)
        rows.append(f"| {demo.codes[line['cost_code']]['code']} | {figures} |")
    totals = " | ".join(f"**{usd(sum(b[name] for b in demo.budgets))}**" for name in BUDGET_CENTS)
    rows.append(f"| **Total** | {totals} |")
    return rows


def test_demo_job_contents(seeded):
    output = seeded
    project = demo_project()
    assert project.name == "Lincoln Elementary Two-Storey Classroom Addition"
    assert project.owner.name == "Cedar Valley Unified School District"
    assert project.status == "active"
    assert project.contract_amount == 840_000_000
    assert project.retainage_pct == 10
    assert project.currency == "usd"

    vendors = Vendor.objects.filter(account_id=project.account_id)
    assert vendors.count() == 12
    assert all(len(v.tax_id_last4) == 4 and v.tax_id_last4.isdigit() for v in vendors)
    assert all(v.trade for v in vendors)

    codes = list(CostCode.objects.filter(project=project).select_related("budget_line"))
    assert 15 <= len(codes) <= 25
    assert sum(c.scheduled_value for c in codes) == project.contract_amount
    for code in codes:
        budget = code.budget_line.original_amount
        assert budget < code.scheduled_value, code.code
        assert 88 * code.scheduled_value <= 100 * budget <= 92 * code.scheduled_value, code.code

    statuses = Counter(Commitment.objects.filter(project=project).values_list("status", flat=True))
    assert statuses == {"executed": 18, "draft": 2}
    for commitment in Commitment.objects.filter(project=project).select_related("cost_code"):
        assert commitment.original_amount < commitment.cost_code.budget_line.original_amount
    numbers = set(Commitment.objects.filter(project=project).values_list("number", flat=True))
    assert {"SC-001", "PO-001"} <= numbers

    # The only key is the demo agent's, whose secret was dropped unseen.
    (key,) = ApiKey.objects.all()
    assert (key.name, key.role, key.revoked_at) == (field_records.AGENT_KEY_NAME, "agent", None)
    assert list(key.projects.all()) == [project]
    assert "jc_" not in output
    assert "$8,400,000.00" in output
    assert "#1 paid, #2 approved, #3 draft" in output
    assert "1 received, 2 coded, 13 approved, 7 paid, 1 void" in output


def test_every_demo_row_was_written_by_the_system_through_audited_services(seeded):
    project = demo_project()
    created_targets = [
        project.account_id,
        project.owner_id,
        project.pk,
        *Vendor.objects.values_list("id", flat=True),
        *CostCode.objects.values_list("id", flat=True),
        *BudgetLine.objects.values_list("id", flat=True),
        *Commitment.objects.values_list("id", flat=True),
        *ChangeOrder.objects.values_list("id", flat=True),
        *Invoice.objects.values_list("id", flat=True),
        *PayApp.objects.values_list("id", flat=True),
        *Rfi.objects.values_list("id", flat=True),
        *DailyLog.objects.values_list("id", flat=True),
        *ApiKey.objects.values_list("id", flat=True),
    ]
    created = AuditEntry.objects.filter(action="created", target_id__in=created_targets)
    assert created.count() == len(created_targets)
    waivers = list(LienWaiver.objects.values_list("id", flat=True))
    assert AuditEntry.objects.filter(action="requested", target_id__in=waivers).count() == len(
        waivers
    )
    # Everything is the system's but the proposals, which the demo's agent key made.
    (agent_key,) = ApiKey.objects.values_list("id", flat=True)
    by_key = AuditEntry.objects.exclude(actor_type="system")
    assert (
        sorted(by_key.values_list("target_type", "action", "actor_type", "actor_id"))
        == [("agent_action", "proposed", "api_key", agent_key)] * 4
    )
    assert set(by_key.values_list("actor_role", flat=True)) == {"agent"}
    assert sorted(by_key.values_list("target_id", flat=True)) == sorted(
        AgentAction.objects.values_list("id", flat=True)
    )
    project_actions = list(
        AuditEntry.objects.filter(target_id=project.pk)
        .order_by("created_at", "id")
        .values_list("action", "changes")
    )
    assert project_actions[0][0] == "created"
    assert project_actions[0][1]["status"] == {"before": None, "after": "bid"}
    assert project_actions[1][0] == "updated"
    assert project_actions[1][1]["status"] == {"before": "bid", "after": "active"}
    actions = Counter(AuditEntry.objects.values_list("target_type", "action"))
    assert actions["commitment", "executed"] == 18
    assert actions["invoice", "approved"] == 20
    assert actions["invoice", "paid"] == 7
    assert actions["pay_app", "submitted"] == 2
    assert actions["pay_app", "waiver_override"] == 1
    assert actions["rfi", "answered"] == 4
    assert actions["rfi", "closed"] == 3


def test_the_money_flow_story_through_the_api(seeded):
    demo = Demo()
    names = {v["name"]: v["id"] for v in demo.vendors.values()}

    assert {inv["status"] for inv in demo.invoices} == set(InvoiceStatus.values)
    assert [(n, p["status"]) for n, p in demo.pay_apps.items()] == [
        (1, "paid"),
        (2, "approved"),
        (3, "draft"),
    ]
    first, second, draft = demo.pay_apps[1], demo.pay_apps[2], demo.pay_apps[3]
    assert first["lien_waivers_missing"] == second["lien_waivers_missing"] == []
    missing = ["Clearview Door & Glazing", "Granite Ridge Concrete, Inc.", "Keystone Masonry Co."]
    assert draft["lien_waivers_missing"] == sorted(names[name] for name in missing)
    open_waivers = {w["vendor"] for w in demo.waivers if w["status"] != "received"}
    assert open_waivers == set(draft["lien_waivers_missing"])
    override = [e for e in demo.listing(second["audit_trail"]) if e["action"] == "waiver_override"]
    assert len(override) == 1
    ampere = names["Ampere Electric, Inc."]
    assert override[0]["changes"]["lien_waivers_missing"]["after"] == [ampere]

    # The owner's side: both certified in full on the day the demo was loaded; #1 paid by the
    # district's check, recorded through the receipt service; #2 owed, in the AR aging.
    loaded = datetime.date.fromisoformat(first["approved_at"][:10])
    for p in (first, second):
        assert (p["amount_certified"], p["certified_on"], p["certification_note"]) == (
            p["current_payment_due"],
            loaded.isoformat(),
            "",
        )
    (receipt,) = demo.listing(f"/v1/pay-apps/{first['id']}/payments")
    assert (receipt["amount"], receipt["received_on"], receipt["reference"]) == (
        first["amount_certified"],
        progress.OWNER_RECEIPTS[0].received_on.isoformat(),
        "CVUSD check 20417",
    )
    assert (first["amount_paid"], first["amount_remaining"]) == (first["amount_certified"], 0)
    assert demo.listing(f"/v1/pay-apps/{second['id']}/payments") == []
    assert (second["amount_paid"], second["amount_remaining"]) == (0, second["current_payment_due"])
    (aging,) = demo.get("/v1/reports/ar-aging", {"project": demo.project["id"]})["data"]
    days = (timezone.localdate() - loaded).days
    assert aging["total"] == second["amount_remaining"]
    assert aging[bucket(days)] == aging["total"] and aging["pay_apps"] == 1
    assert aging["owner_name"] == school_addition.OWNER["name"]
    assert aging["retainage_held"] == second["total_retainage"]

    assert demo.project["billed_to_date"] == second["total_completed_and_stored"]
    assert first["less_previous_certificates"] == 0
    for n in (2, 3):
        previous = demo.pay_apps[n - 1]["total_earned_less_retainage"]
        assert demo.pay_apps[n]["less_previous_certificates"] == previous
    for p in demo.pay_apps.values():
        assert p["current_payment_due"] == (
            p["total_earned_less_retainage"] - p["less_previous_certificates"]
        )
        assert p["contract_sum_to_date"] == sum(
            line["scheduled_value"] for line in demo.lines[p["number"]]
        )

    orders = {co["number"]: co for co in demo.change_orders}
    assert {n: (co["status"], demo.pay_app_number(co["pay_app"])) for n, co in orders.items()} == {
        "CO-001": ("approved", "#2"),
        "CO-002": ("approved", "#3"),
        "CO-003": ("pending", "—"),
        "CCO-001": ("approved", "—"),
        "CCO-002": ("approved", "—"),
    }
    assert second["change_orders"] == [orders["CO-001"]["id"]]
    approved_owner = [
        co for co in orders.values() if co["kind"] == "owner" and co["status"] == "approved"
    ]
    assert draft["net_change_by_change_orders"] == sum(co["amount"] for co in approved_owner)
    assert demo.project["approved_changes"] == sum(co["amount"] for co in approved_owner)

    def holding(day: str) -> str | None:
        found = [
            p["id"] for p in demo.pay_apps.values() if p["period_start"] <= day <= p["period_end"]
        ]
        return found[0] if found else None

    assert all(inv["pay_app"] == holding(inv["invoice_date"]) is not None for inv in demo.invoices)
    assert all(w["pay_app"] == holding(w["through_date"]) is not None for w in demo.waivers)
    waived = Counter(w["invoice"] for w in demo.waivers)
    for inv in demo.invoices:
        expected = 1 if inv["status"] in ("approved", "paid") else 0
        assert waived[inv["id"]] == expected, inv["number"]
    for waiver in demo.waivers:
        invoice = next(inv for inv in demo.invoices if inv["id"] == waiver["invoice"])
        assert (waiver["type"], waiver["amount"]) == ("conditional_progress", invoice["amount"])

    entered = {
        (demo.codes[line["cost_code"]]["code"] if line["cost_code"] else line["item"]): (
            line["this_period"],
            line["materials_stored"],
        )
        for line in demo.lines[3]
        if line["this_period"] or line["materials_stored"]
    }
    keys = set(progress.NOVEMBER.this_period) | set(progress.NOVEMBER.stored)
    assert entered == {
        key: (progress.NOVEMBER.this_period.get(key, 0), progress.NOVEMBER.stored.get(key, 0))
        for key in keys
    }


def test_every_figure_through_the_api_is_consistent(seeded):
    demo = Demo()
    project, budgets = demo.project, demo.budgets
    code_of = {c_id: c["code"] for c_id, c in demo.codes.items()}

    posted = Counter()
    billed = Counter()
    for inv in demo.invoices:
        if inv["status"] in ("approved", "paid"):
            billed[inv["commitment"]] += inv["amount"]
            for line in inv["lines"]:
                posted[line["cost_code"]] += line["amount"]
    committed = Counter()
    for commitment in demo.commitments.values():
        assert commitment["billed_to_date"] == billed[commitment["id"]]
        assert commitment["remaining"] == commitment["revised_amount"] - billed[commitment["id"]]
        if commitment["status"] == "executed":
            committed[commitment["cost_code"]] += commitment["revised_amount"]
    changes = Counter()
    for co in demo.change_orders:
        if co["kind"] == "owner" and co["status"] == "approved":
            for line in co["lines"]:
                changes[line["cost_code"]] += line["budget_amount"]
    for line in budgets:
        assert line["actual"] == posted[line["cost_code"]], code_of[line["cost_code"]]
        assert line["committed"] == committed[line["cost_code"]], code_of[line["cost_code"]]
        assert line["approved_changes"] == changes[line["cost_code"]], code_of[line["cost_code"]]

    assert sum(line["actual"] for line in budgets) == project["cost_to_date"]
    assert sum(line["projected_cost"] for line in budgets) == project["projected_cost"]
    percent = Decimal(str(project["percent_complete"]))
    assert percent == (
        Decimal(project["cost_to_date"]) * HUNDRED / project["projected_cost"]
    ).quantize(Decimal("0.01"))
    assert 25 <= percent <= 35
    assert 8 <= project["projected_margin_pct"] <= 12
    # Exact, rounded once (docs/decisions.md): revised × cost / projected, half away from 0.
    exact = Decimal(project["revised_contract"] * project["cost_to_date"]) / Decimal(
        project["projected_cost"]
    )
    assert abs(project["earned_revenue"] - exact) <= Decimal("0.5")
    assert project["earned_revenue"] == 227_691_023  # 843,650,000 × 205,655,476 / 762,003,000
    assert project["over_under_billing"] == project["billed_to_date"] - project["earned_revenue"]

    # Billing tracks cost-to-cost progress on every bought-out code (the draft's G703 against
    # each code's actual / revised budget), within two points.
    revised = {line["cost_code"]: line["revised_amount"] for line in budgets}
    for line in demo.lines[3]:
        if line["cost_code"] in committed and posted[line["cost_code"]]:
            cost_pct = Decimal(posted[line["cost_code"]]) * HUNDRED / revised[line["cost_code"]]
            billed_pct = Decimal(str(line["percent_complete"]))
            assert abs(billed_pct - cost_pct) <= 2, (line["description"], billed_pct, cost_pct)


def test_demo_job_page_matches_the_api(seeded):
    expected, on_page = page_rows(Demo()), progress_rows_of_the_page()
    missing = [row for row in expected if row not in on_page]
    assert not missing, "docs/demo-job.md is stale; expected rows:\n" + "\n".join(missing)
    stale = [row for row in on_page if row not in expected]
    assert not stale, "docs/demo-job.md has rows the API does not show:\n" + "\n".join(stale)
    assert len(on_page) == len(expected) == len(set(expected))


class Field:
    """The demo job's field records as the API shows them, read with an admin key."""

    def __init__(self):
        self.demo = Demo()
        project = self.demo.project["id"]
        scoped = {"project": project}
        rfis = sorted(self.demo.listing("/v1/rfis", scoped), key=lambda r: r["number"])
        self.rfis = {r["number"]: r for r in rfis}
        self.logs = sorted(self.demo.listing("/v1/daily-logs", scoped), key=lambda log: log["date"])
        self.actions = {a["action"]: a for a in self.demo.listing("/v1/agents/actions", scoped)}


def weekdays(first: datetime.date, last: datetime.date) -> list[str]:
    days = (first + datetime.timedelta(days=n) for n in range((last - first).days + 1))
    return [day.isoformat() for day in days if day.weekday() < 5]


def test_the_rfis_and_their_change_orders_through_the_api(seeded):
    field = Field()
    rfis, orders = field.rfis, {co["number"]: co for co in field.demo.change_orders}

    assert list(rfis) == [f"RFI-00{n}" for n in range(1, 7)]
    assert Counter(r["status"] for r in rfis.values()) == {"open": 2, "answered": 1, "closed": 3}
    for rfi in rfis.values():
        assert rfi["subject"] and rfi["question"] and rfi["due_date"]
        assert bool(rfi["answer"]) == (rfi["status"] != "open"), rfi["number"]
        assert bool(rfi["answered_at"]) == bool(rfi["answer"])
        assert bool(rfi["closed_at"]) == (rfi["status"] == "closed")

    # Each change order names the RFI that led to it, and that RFI lists it back.
    assert {n: co["rfi"] for n, co in orders.items()} == {
        n: rfis[number]["id"] for n, number in CHANGE_ORDER_RFIS.items()
    }
    listed = {n: sorted(r["change_orders"]) for n, r in rfis.items() if r["change_orders"]}
    assert listed == {
        "RFI-002": sorted([orders["CO-001"]["id"], orders["CCO-001"]["id"]]),
        "RFI-003": sorted([orders["CO-002"]["id"], orders["CCO-002"]["id"]]),
        "RFI-004": [orders["CO-003"]["id"]],
    }
    assert all(rfis[n]["cost_impact"] for n in listed)
    # The rock: CO-003 is pending on an answered RFI-004; the settled changes' RFIs are closed.
    assert (rfis["RFI-004"]["status"], orders["CO-003"]["status"]) == ("answered", "pending")
    assert {rfis[n]["status"] for n in ("RFI-002", "RFI-003")} == {"closed"}
    assert "to be linked" not in orders["CO-003"]["description"]

    # One open RFI is overdue on the demo's timeline (due before its last daily log).
    last_day = field.logs[-1]["date"]
    overdue = [
        r["number"] for r in rfis.values() if r["status"] == "open" and r["due_date"] < last_day
    ]
    assert overdue == ["RFI-005"]


def test_the_daily_logs_through_the_api(seeded):
    field = Field()
    logs, demo = field.logs, field.demo
    names = {v["id"]: v["name"] for v in demo.vendors.values()}
    on_site = {c["vendor"] for c in demo.commitments.values() if c["status"] == "executed"}

    # Every working day of the three weeks before the agent's proposed log of Friday the 20th,
    # inside pay app #3's period.
    dates = [log["date"] for log in logs]
    assert dates == weekdays(datetime.date(2026, 11, 2), datetime.date(2026, 11, 19))
    assert len(dates) == 14
    november = demo.pay_apps[3]
    assert november["period_start"] <= dates[0] and dates[-1] <= november["period_end"]

    vendors_seen = set()
    for log in logs:
        rows = log["manpower"]
        assert log["weather"] and log["notes"] and rows, log["date"]
        assert log["total_headcount"] == sum(row["headcount"] for row in rows) > 0
        assert Decimal(str(log["total_hours"])) == sum(Decimal(str(r["hours"])) for r in rows)
        assert any(row["vendor"] is None for row in rows), log["date"]  # the GC's own forces
        for row in rows:
            assert row["trade"] and row["headcount"] > 0 and row["hours"] > 0
            vendors_seen.add(row["vendor"])
    vendors_seen.discard(None)
    # Crews are the demo's subcontractors with executed commitments, most of them on site.
    assert vendors_seen <= on_site
    assert {names[v] for v in vendors_seen} >= {
        "Cascade Site Works, LLC",
        "Granite Ridge Concrete, Inc.",
        "Keystone Masonry Co.",
        "Ironline Steel Erectors",
        "Valley Mechanical Contractors",
        "Ampere Electric, Inc.",
    }
    delayed = {log["date"]: log["delays"] for log in logs if log["delays"]}
    assert "2026-11-13" in delayed and "Rain day" in delayed["2026-11-13"]
    assert "RFI-004" in delayed["2026-11-04"]
    assert len(delayed) >= 3
    hours = sum(Decimal(str(log["total_hours"])) for log in logs)
    assert f"({hours:,.0f} worker-hours)" in seed()


def test_the_agents_pending_proposals_through_the_api(seeded):
    field = Field()
    actions, demo = field.actions, field.demo
    key = ApiKey.objects.get(role="agent")

    assert set(actions) == {"invoice.code", "rfi.create", "daily_log.create", "budget.update"}
    for action in actions.values():
        assert action["status"] == "proposed"
        assert action["proposed_by"] == {"type": "api_key", "id": key.pk, "role": "agent"}
        assert action["decided_by"] is None and action["result"] is None
        assert action["project"] == demo.project["id"] and action["rationale"]

    # Code the invoice received on the 20th, wholly to its commitment's cost code.
    coding = actions["invoice.code"]
    invoice = next(inv for inv in demo.invoices if inv["id"] == coding["target"])
    assert (invoice["number"], invoice["status"]) == ("AE-5621", "received")
    lines = coding["payload"]["lines"]
    assert sum(line["amount"] for line in lines) == invoice["amount"]
    coded_to = {demo.codes[line["cost_code"]]["code"] for line in lines}
    assert coded_to == {demo.code_of_invoice(invoice)} == {"26-000"}

    # Friday's log, the working day after the last one filed, with crews of the demo vendors.
    log = actions["daily_log.create"]["payload"]
    assert log["date"] == "2026-11-20"
    assert log["date"] > field.logs[-1]["date"]
    assert {row["vendor"] for row in log["manpower"]} - {None} <= set(demo.vendors)

    # The RFI raised in the log of the 19th.
    rfi = actions["rfi.create"]["payload"]
    assert "control joints" in rfi["subject"]
    assert "control joints" in field.logs[-1]["notes"]

    # The HVAC forecast: the subcontract's remaining balance plus the RFI-005 curb adapters,
    # above the default cost to complete.
    forecast = actions["budget.update"]
    line = next(b for b in demo.budgets if b["id"] == forecast["target"])
    assert demo.codes[line["cost_code"]]["code"] == "23-000"
    hvac = next(c for c in demo.commitments.values() if c["cost_code"] == line["cost_code"])
    ctc = forecast["payload"]["cost_to_complete"]
    assert ctc == hvac["remaining"] + field_records.CURB_ADAPTERS
    assert not line["cost_to_complete_is_estimate"]
    assert ctc > line["cost_to_complete"]


def test_approving_the_proposals_applies_them(seeded):
    """The proposals are what the real endpoints accept: an admin approves each one and the
    change lands."""
    field = Field()
    api = field.demo.api
    for action in field.actions.values():
        response = api.post(f"/v1/agents/actions/{action['id']}/approve")
        assert response.status_code == 200, response.content
        body = response.json()
        assert (body["status"], body["failure"]) == ("approved", None), body
        assert body["result"]

    after = Field()
    results = {name: a["result"] for name, a in after.actions.items()}
    invoice = field.demo.get(f"/v1/invoices/{results['invoice.code']}")
    assert (invoice["number"], invoice["status"]) == ("AE-5621", "coded")
    assert after.rfis["RFI-007"]["id"] == results["rfi.create"]
    assert after.rfis["RFI-007"]["status"] == "open"
    assert after.logs[-1]["id"] == results["daily_log.create"]
    assert after.logs[-1]["date"] == "2026-11-20" and after.logs[-1]["manpower"]
    line = field.demo.get(f"/v1/budgets/{results['budget.update']}")
    assert line["cost_to_complete"] == field_records.HVAC_FORECAST.cost_to_complete
    assert line["cost_to_complete_is_estimate"]
