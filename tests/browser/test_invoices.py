"""The demo accountant (a manager of Demo Builders) enters a vendor invoice in a real browser:
received against the executed concrete subcontract, coded across two cost codes, approved,
and its lien waiver recorded received yesterday, with the figures and states read off the
pages."""

from __future__ import annotations

import datetime
import re

import pytest
from django.utils import timezone

from jobcost.demo.accountant import DEVELOPMENT_PASSWORD, USERNAME
from tests.browser.conftest import login
from tests.browser.month import pick

pytestmark = pytest.mark.postgres

NUMBER = "GRC-24-399"


def _readonly(page, field: str) -> str:
    return page.locator(f".field-{field} .readonly").inner_text().strip()


def test_receive_code_approve_an_invoice_and_record_its_waiver(page, steps, demo):
    login(page, USERNAME, DEVELOPMENT_PASSWORD)

    # Receive: only executed commitments are offered, each with what is left on it.
    page.goto("/admin/jobcost/invoice/add/")
    commitments = page.locator("#id_commitment option").all_inner_texts()
    assert not any("Brightline Painting" in label for label in commitments)  # a draft
    label = pick(page, "#id_commitment", "SC-001 · Granite Ridge Concrete")
    assert "$80,300.00 remaining" in label and "10.00% retainage" in label
    page.get_by_label("Number").fill(NUMBER)
    page.get_by_label("Invoice date").fill("2026-11-20")
    page.get_by_label("Amount ($)").fill("12,345.67")
    steps.shot("invoice received")
    page.get_by_role("button", name="Save and continue editing").click()
    page.wait_for_url(re.compile(r"/admin/jobcost/invoice/inv_.+/change/"))
    assert _readonly(page, "status") == "Received"
    assert _readonly(page, "retainage_amount_display") == "$1,234.57"
    assert _readonly(page, "net_amount_display") == "$11,111.10"

    # Code it across two cost codes, to the cent.
    page.get_by_role("link", name="Code to cost codes").click()
    assert (
        "must add up to the invoice amount, $12,345.67" in page.locator("#coding-rule").inner_text()
    )
    pick(page, "#id_lines-0-cost_code", "03-300 Cast-in-place concrete")
    page.locator("#id_lines-0-amount").fill("10,000.00")
    pick(page, "#id_lines-1-cost_code", "01-500 General conditions")
    page.locator("#id_lines-1-amount").fill("2,345.66")
    live = page.locator("[data-lines-live] td")
    assert live.inner_text() == "$12,345.66 ($0.01 to go)"
    page.get_by_role("button", name="Save coding").click()
    refusal = page.locator("#coding-refusal").inner_text()
    assert "$12,345.66 but the invoice is for $12,345.67: $0.01 short" in refusal
    steps.shot("lines one cent short")
    page.locator("#id_lines-1-amount").fill("2,345.67")
    assert live.inner_text() == "$12,345.67 (matches)"
    page.get_by_role("button", name="Save coding").click()
    page.wait_for_url(re.compile(r"/change/$"))
    assert "coded to 2 cost codes, $12,345.67" in page.locator(".messagelist").inner_text()
    assert _readonly(page, "status") == "Coded"
    coding = page.locator(".inline-group").inner_text()
    assert "03-300 Cast-in-place concrete" in coding and "$10,000.00" in coding
    assert "01-500 General conditions" in coding and "$2,345.67" in coding
    steps.shot("invoice coded")

    # Approve through its confirmation page.
    page.get_by_role("link", name="Approve").click()
    assert "for $12,345.67" in page.locator("#step-explanation").inner_text()
    steps.shot("approve confirmation")
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_url(re.compile(r"/change/$"))
    assert _readonly(page, "status") == "Approved"
    waiver = page.locator(".field-lien_waivers_display a")
    assert waiver.inner_text() == "Conditional progress, $12,345.67: Requested"
    steps.shot("invoice approved")

    # The waiver arrived yesterday.
    yesterday = timezone.localdate() - datetime.timedelta(days=1)
    waiver.click()
    page.get_by_role("link", name="Record receipt").click()
    page.get_by_label("Date received").fill(yesterday.isoformat())
    page.get_by_label("Document link").fill("https://files.example.com/waivers/grc-24-399.pdf")
    steps.shot("record receipt")
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_url(re.compile(r"/admin/jobcost/lienwaiver/lw_.+/change/$"))
    assert _readonly(page, "status") == "Received"
    assert _readonly(page, "amount_display") == "$12,345.67"
    when = f"{yesterday:%B} {yesterday.day}, {yesterday.year}"
    assert f"recorded as received on {when}" in page.locator(".messagelist").inner_text()
    assert page.get_by_role("link", name="Record receipt").count() == 0
    steps.shot("waiver received")

    # The commitment's remaining balance is drawn down by the approved amount.
    page.goto("/admin/jobcost/invoice/add/")
    label = pick(page, "#id_commitment", "SC-001 · Granite Ridge Concrete")
    assert "$67,954.33 remaining" in label
