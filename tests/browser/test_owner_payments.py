"""The owner's side of a pay app in a real browser, on the demo job (docs/backoffice/pay-apps.md,
"The certificate and the owner's payments").

Pay app #3 is submitted (over its missing waivers, as the month ends). As the demo's
accountant (a manager): approve it for $10,000.00 less than its current payment due with the
architect's note, then record the district's two checks until it is paid. After each step the
page's figures — amount certified, received, remaining, the receipts — are read off the page
and checked against the step's arithmetic.
"""

from __future__ import annotations

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from jobcost.demo.accountant import DEVELOPMENT_PASSWORD, USERNAME
from jobcost.models import PayApp, PayAppPayment
from jobcost.services.pay_apps import pay_app_submit
from tests.browser.conftest import login
from tests.browser.month import cents, g702, readonly

pytestmark = pytest.mark.postgres

NOTE = "Stored rooftop units not yet inspected; $10,000.00 held until they are."


def owner_figures(page) -> dict[str, int | None]:
    """The pay app page's `data-owner` figures, in cents (None where it shows —)."""
    figures = {}
    for element in page.locator("[data-owner]").all():
        shown = element.inner_text().strip()
        figures[element.get_attribute("data-owner")] = None if shown == "—" else cents(shown)
    return figures


def receipts(page) -> list[tuple[str, str, int]]:
    rows = []
    for row in page.locator("#receipts tbody tr").all():
        day, reference, amount = (cell.inner_text().strip() for cell in row.locator("td").all())
        rows.append((day, reference, cents(amount)))
    return rows


def test_certify_less_than_line_8_then_receive_two_checks(page, steps, demo):
    pay_app = PayApp.objects.get(project__number="2026-014", number=3)
    pay_app_submit(pay_app_id=pay_app.pk, allow_missing_waivers=True, reason="Month end.")
    today = timezone.localdate()
    today_words = f"{today:%b} {today.day}, {today.year}"
    login(page, USERNAME, DEVELOPMENT_PASSWORD)

    page.goto("/admin/jobcost/payapp/")
    page.locator("#result_list tbody tr", has_text="Submitted").get_by_role("link").first.click()
    page.wait_for_selector("#g703-grid")
    line_8 = g702(page)["current_payment_due"]
    assert owner_figures(page) == {
        "amount_certified": None,
        "amount_paid": 0,
        "amount_remaining": None,
    }
    steps.shot("submitted")

    # 1. Approve for $10,000.00 less than line 8, with the architect's note.
    page.get_by_role("link", name="Approve").click()
    amount = page.get_by_label("Amount certified ($)")
    assert amount.input_value() == f"{line_8 // 100}.{line_8 % 100:02d}"
    assert page.get_by_label("Certified on").input_value() == today.isoformat()
    certified = line_8 - 1_000_000
    amount.fill(f"{certified / 100:,.2f}")
    page.get_by_role("button", name="Confirm").click()
    refusal = page.locator(".errorlist li")
    assert "needs a note saying why the architect certified less" in refusal.inner_text()
    page.get_by_label("Why less was certified").fill(NOTE)
    steps.shot("certificate")
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_selector("text=Approved, certified for")
    assert readonly(page, "status") == "Approved (certified)"
    assert owner_figures(page) == {
        "amount_certified": certified,
        "amount_paid": 0,
        "amount_remaining": certified,
    }
    assert readonly(page, "certified_on_display") == today_words
    assert readonly(page, "certification_note") == NOTE
    assert g702(page)["current_payment_due"] == line_8  # the application is unchanged
    steps.shot("approved")

    # 2. The district's first check: $500,000.00.
    page.get_by_role("link", name="Record payment").click()
    assert cents("$" + page.get_by_label("Amount received ($)").input_value()) == certified
    page.get_by_label("Amount received ($)").fill("500,000.00")
    page.get_by_label("Check or wire number").fill("CVUSD check 20502")
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_selector("text=Payment recorded")
    assert readonly(page, "status") == "Approved (certified)"
    assert owner_figures(page) == {
        "amount_certified": certified,
        "amount_paid": 50_000_000,
        "amount_remaining": certified - 50_000_000,
    }
    assert receipts(page) == [(today_words, "CVUSD check 20502", 50_000_000)]
    steps.shot("first check")

    # 3. The second check, for what remains (the page's default): the pay app is paid.
    page.get_by_role("link", name="Record payment").click()
    remaining = cents("$" + page.get_by_label("Amount received ($)").input_value())
    assert remaining == certified - 50_000_000
    page.get_by_label("Check or wire number").fill("CVUSD check 20533")
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_selector("text=the certificate is paid in full")
    assert readonly(page, "status") == "Paid"
    assert owner_figures(page) == {
        "amount_certified": certified,
        "amount_paid": certified,
        "amount_remaining": 0,
    }
    assert receipts(page) == [
        (today_words, "CVUSD check 20502", 50_000_000),
        (today_words, "CVUSD check 20533", remaining),
    ]
    assert page.get_by_role("link", name="Record payment").count() == 0
    steps.shot("paid")

    pay_app.refresh_from_db()
    assert (pay_app.status, pay_app.amount_certified, pay_app.certification_note) == (
        "paid",
        certified,
        NOTE,
    )
    assert sorted(
        PayAppPayment.objects.filter(pay_app=pay_app).values_list("amount", flat=True)
    ) == sorted([50_000_000, remaining])
    actions = list(
        AuditEntry.objects.filter(target_id=pay_app.pk)
        .order_by("created_at", "id")
        .values_list("action", "actor_id")
    )[-3:]
    assert actions == [("approved", USERNAME), ("payment_received", USERNAME), ("paid", USERNAME)]
