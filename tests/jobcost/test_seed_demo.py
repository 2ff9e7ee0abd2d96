"""`manage.py seed_demo` loads the demo job once, through the services, and the API shows it
consistently: budgets carry exactly the executed commitments and nothing is spent yet."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from audit.models import AuditEntry
from jobcost.demo import school_addition as data
from jobcost.management.commands.seed_demo import dollars
from jobcost.models import (
    Account,
    ApiKey,
    BudgetLine,
    Commitment,
    CostCode,
    IdempotencyRecord,
    Owner,
    Project,
    Vendor,
)
from tests.conftest import Api
from tests.factories import make_key

pytestmark = pytest.mark.django_db


def seed() -> str:
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def row_counts() -> dict[str, int]:
    models = [Account, Owner, Vendor, Project, CostCode, BudgetLine, Commitment, ApiKey]
    counts = {model.__name__: model.objects.count() for model in models}
    counts["AuditEntry"] = AuditEntry.objects.count()
    return counts


def demo_project() -> Project:
    return Project.objects.get(account__name="Demo Builders", number="2026-014")


def test_seeding_twice_changes_nothing():
    first_output = seed()
    after_first = row_counts()
    project = demo_project()
    stamps = (project.updated_at, sorted(Commitment.objects.values_list("id", "updated_at")))

    second_output = seed()

    assert row_counts() == after_first
    project.refresh_from_db()
    assert (project.updated_at, sorted(Commitment.objects.values_list("id", "updated_at"))) == (
        stamps
    )
    assert "Loaded the demo job" in first_output
    assert "already loaded; nothing changed" in second_output
    assert after_first["Account"] == 1
    assert after_first["Project"] == 1
    assert after_first["Owner"] == 1


def test_demo_job_contents():
    output = seed()
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

    assert ApiKey.objects.count() == 0
    assert "jc_" not in output
    assert "$8,400,000.00" in output


def test_every_demo_row_was_written_by_the_system_through_audited_services():
    seed()
    project = demo_project()
    targets = [
        project.account_id,
        project.owner_id,
        project.pk,
        *Vendor.objects.values_list("id", flat=True),
        *CostCode.objects.values_list("id", flat=True),
        *BudgetLine.objects.values_list("id", flat=True),
        *Commitment.objects.values_list("id", flat=True),
    ]
    created = AuditEntry.objects.filter(action="created", target_id__in=targets)
    assert created.count() == len(targets)
    assert set(AuditEntry.objects.values_list("actor_type", flat=True)) == {"system"}
    project_actions = list(
        AuditEntry.objects.filter(target_id=project.pk)
        .order_by("created_at", "id")
        .values_list("action", "changes")
    )
    assert project_actions[0][0] == "created"
    assert project_actions[0][1]["status"] == {"before": None, "after": "bid"}
    assert project_actions[1][0] == "updated"
    assert project_actions[1][1]["status"] == {"before": "bid", "after": "active"}
    executed = AuditEntry.objects.filter(action="executed", target_type="commitment").count()
    assert executed == 18


def test_demo_data_table_balances():
    assert sum(row.scheduled_value for row in data.COST_CODES) == data.PROJECT["contract_amount"]
    assert len({row.code for row in data.COST_CODES}) == len(data.COST_CODES)
    assert {row.commitment.vendor for row in data.COST_CODES if row.commitment} <= {
        v.key for v in data.VENDORS
    }


def test_demo_job_page_matches_the_data():
    page = (Path(settings.BASE_DIR) / "docs" / "demo-job.md").read_text()
    for vendor in data.VENDORS:
        assert f"| {vendor.name} | {vendor.trade} | {vendor.tax_id_last4} |" in page
    for row in data.COST_CODES:
        sv, budget = dollars(row.scheduled_value)[1:], dollars(row.budget)[1:]
        line = f"| {row.code} | {row.name} | {row.cost_type} | {sv} | {budget} |"
        assert line in page, line
        if row.commitment:
            status = "executed" if row.commitment.executed else "draft"
            assert f"| {dollars(row.commitment.amount)[1:]} | {status} |" in page
    assert dollars(data.PROJECT["contract_amount"]) in page


def test_api_shows_budgets_committed_equal_to_executed_commitments():
    seed()
    project = demo_project()
    _key, secret = make_key(project.account, "admin")
    api = Api(secret)

    body = api.get(f"/v1/projects/{project.pk}").json()
    assert body["status"] == "active"
    assert body["contract_amount"] == 840_000_000
    assert body["cost_to_date"] == 0
    assert body["earned_revenue"] == 0

    commitments = api.get(
        "/v1/commitments", {"project": project.pk, "status": "executed", "limit": 100}
    ).json()
    assert len(commitments["data"]) == 18
    assert not commitments["has_more"]
    expected = Counter()
    for commitment in commitments["data"]:
        expected[commitment["cost_code"]] += commitment["revised_amount"]

    lines = api.get("/v1/budgets", {"project": project.pk, "limit": 100}).json()["data"]
    assert len(lines) == CostCode.objects.filter(project=project).count()
    committed = {line["cost_code"]: line["committed"] for line in lines if line["committed"]}
    assert committed == dict(expected)
    assert all(line["actual"] == 0 for line in lines)
    assert sum(line["committed"] for line in lines) == sum(expected.values())
    assert IdempotencyRecord.objects.count() == 0
