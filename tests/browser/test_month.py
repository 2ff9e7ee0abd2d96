"""The accountant's month in a real browser, on the demo job (docs/backoffice/index.md).

As the demo's accountant (a manager of Demo Builders): sign in and read the dashboard; enter
this period's work on the draft pay app #3 and see the G702 move by exactly that amount;
receive a vendor invoice, code it across two cost codes, approve it and record its lien
waiver; create an owner change order with two lines, submit and approve it, and see it land
on the draft pay app as its own G703 row with G702 lines 2 and 3 moved by its amount; then
submit the pay app over the waivers still missing, with a reason. The G702 is read off the
page after each step and checked against the step's arithmetic.
"""

from __future__ import annotations

import datetime
import re

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from jobcost.demo.accountant import DEVELOPMENT_PASSWORD, USERNAME
from jobcost.models import PayApp
from tests.browser.conftest import login
from tests.browser.month import cents, column, g702, g703_row, pick, readonly

pytestmark = pytest.mark.postgres

PAY_APPS = "/admin/jobcost/payapp/"


def _open_draft_pay_app(page):
    page.goto(PAY_APPS)
    page.locator("#result_list tbody tr", has_text="Draft").get_by_role("link").first.click()
    page.wait_for_selector("#g703-grid")


def test_the_accountants_month(page, steps, demo):
    login(page, USERNAME, DEVELOPMENT_PASSWORD)

    # 1. The dashboard: the job's figures and what waits.
    row = page.locator('#dashboard tr[data-project="2026-014"]')
    assert cents(row.locator('td[data-figure="contract"]').inner_text()) == 840_000_000
    missing = int(page.locator('a[data-queue="missing_waivers"] .count').inner_text())
    assert missing == 3
    steps.shot("dashboard")

    # 2. This period's work on the draft pay app #3: Gypsum board, $12,345.67 more.
    _open_draft_pay_app(page)
    start = g702(page)
    gypsum = g703_row(page, "09-200")
    work = column(gypsum, "this_period")
    assert column(gypsum, "balance_to_finish") > 1_234_567
    gypsum.locator('input[name$="work_this_period"]').fill(f"{(work + 1_234_567) / 100:.2f}")
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=This period's entries are saved.")
    steps.shot("work entered")
    entered = g702(page)
    assert entered["total_completed_and_stored"] == start["total_completed_and_stored"] + 1_234_567
    # 10 % retainage on the added work, rounded once: $1,234.57.
    assert entered["total_retainage"] == start["total_retainage"] + 123_457
    assert entered["current_payment_due"] == start["current_payment_due"] + 1_234_567 - 123_457
    assert entered["contract_sum_to_date"] == start["contract_sum_to_date"]

    # 3. A vendor invoice: received against the concrete subcontract, coded across two cost
    # codes, approved (it asks for a lien waiver), and the waiver recorded received.
    page.goto("/admin/jobcost/invoice/add/")
    pick(page, "#id_commitment", "SC-001 · Granite Ridge Concrete")
    page.get_by_label("Number").fill("GRC-24-401")
    page.get_by_label("Invoice date").fill("2026-11-20")
    page.get_by_label("Amount ($)").fill("12,000.00")
    page.get_by_role("button", name="Save and continue editing").click()
    page.wait_for_url(re.compile(r"/admin/jobcost/invoice/inv_.+/change/"))
    page.get_by_role("link", name="Code to cost codes").click()
    pick(page, "#id_lines-0-cost_code", "03-300 Cast-in-place concrete")
    page.locator("#id_lines-0-amount").fill("9,000.00")
    pick(page, "#id_lines-1-cost_code", "01-500 General conditions")
    page.locator("#id_lines-1-amount").fill("3,000.00")
    page.get_by_role("button", name="Save coding").click()
    page.wait_for_url(re.compile(r"/change/$"))
    assert readonly(page, "status") == "Coded"
    page.get_by_role("link", name="Approve").click()
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_url(re.compile(r"/change/$"))
    assert readonly(page, "status") == "Approved"
    steps.shot("invoice approved")
    yesterday = timezone.localdate() - datetime.timedelta(days=1)
    page.locator(".field-lien_waivers_display a").click()
    page.get_by_role("link", name="Record receipt").click()
    page.get_by_label("Date received").fill(yesterday.isoformat())
    page.get_by_label("Document link").fill("https://files.example.com/waivers/grc-24-401.pdf")
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_url(re.compile(r"/admin/jobcost/lienwaiver/lw_.+/change/$"))
    assert readonly(page, "status") == "Received"
    steps.shot("waiver received")
    # Vendor invoices are cost, not owner billing: the G702 has not moved.
    _open_draft_pay_app(page)
    assert g702(page) == entered

    # 4. An owner change order with two lines, submitted and approved.
    page.goto("/admin/jobcost/changeorder/add/")
    pick(page, "#id_project", "2026-014")
    page.select_option("#id_kind", "owner")
    page.get_by_label("Title").fill("Added cabinetry in classrooms 201-204")
    page.get_by_label("Amount ($)").fill("18,750.00")
    pick(page, "#id_lines-0-cost_code", "06-100 Rough carpentry")
    page.locator("#id_lines-0-description").fill("Blocking and backing")
    page.locator("#id_lines-0-amount").fill("2,750.00")
    pick(page, "#id_lines-1-cost_code", "12-500 Furnishings")
    page.locator("#id_lines-1-description").fill("Casework")
    page.locator("#id_lines-1-amount").fill("16,000.00")
    steps.shot("change order typed")
    page.get_by_role("button", name="Save and continue editing").click()
    page.wait_for_url(re.compile(r"/admin/jobcost/changeorder/co_.+/change/"))
    page.get_by_role("link", name="Submit").click()
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_selector("text=Submitted for approval")
    page.get_by_role("link", name="Approve").click()
    assert "$18,750.00" in page.locator("#content-main").inner_text()
    steps.shot("change order approval")
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_selector("text=Approved.")
    number = page.locator(".field-number .readonly, #id_number").first
    co_number = number.inner_text().strip() or number.input_value()

    # It lands on the draft pay app as its own G703 row; lines 2 and 3 move by its amount.
    _open_draft_pay_app(page)
    steps.shot("pay app with the change order")
    landed = g702(page)
    assert (
        landed["net_change_by_change_orders"] == entered["net_change_by_change_orders"] + 1_875_000
    )
    assert landed["contract_sum_to_date"] == entered["contract_sum_to_date"] + 1_875_000
    assert landed["total_completed_and_stored"] == entered["total_completed_and_stored"]
    assert landed["balance_to_finish_including_retainage"] == (
        entered["balance_to_finish_including_retainage"] + 1_875_000
    )
    assert column(g703_row(page, co_number), "scheduled_value") == 1_875_000

    # 5. Submit over the waivers still missing, with a reason.
    page.get_by_role("link", name="Submit over missing waivers").click()
    page.wait_for_selector("#missing-waivers")
    assert page.locator("#missing-waivers tbody tr").count() >= 3
    reason = page.get_by_label("Reason")
    assert reason.evaluate("box => box.required")
    page.get_by_role("button", name="Confirm").click()  # the browser keeps an empty reason
    assert reason.evaluate("box => !box.validity.valid")
    reason.fill("Three waivers promised by Friday; the owner agreed to release on receipt.")
    steps.shot("override confirmation")
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_selector("text=Submitted to the owner over missing lien waivers")
    steps.shot("submitted")

    submitted = g702(page)
    assert submitted["current_payment_due"] == landed["current_payment_due"]
    pay_app = PayApp.objects.get(project__number="2026-014", number=3)
    assert pay_app.status == "submitted"
    assert pay_app.certified_total_completed == submitted["total_completed_and_stored"]
    override = AuditEntry.objects.get(target_id=pay_app.pk, action="waiver_override")
    assert override.note.endswith("the owner agreed to release on receipt.")
    assert (override.actor_id, override.actor_role) == (USERNAME, "manager")
    assert page.locator('#g703-grid input[name$="work_this_period"]').count() == 0
