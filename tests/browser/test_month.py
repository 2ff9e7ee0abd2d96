"""The accountant's month in a real browser, on the demo job (README, "The back office").

As the demo's accountant (a manager of Demo Builders): sign in, open the draft pay app #3,
enter this period's work on a line and see the G702 move by exactly that amount, then submit
it over the missing lien waivers with a reason. The figures asserted are read off the pages
and checked against each other (line 4 grows by the work entered; line 8 by the work less
10 % retainage), and against the API's figures for the same pay app.
"""

from __future__ import annotations

import pytest

from jobcost.demo.accountant import DEVELOPMENT_PASSWORD, USERNAME
from jobcost.models import PayApp
from tests.browser.conftest import login
from tests.browser.month import column, g702, g703_row

pytestmark = pytest.mark.postgres


def _open_draft_pay_app(page):
    page.get_by_role("link", name="Pay apps").first.click()
    page.locator("#result_list tbody tr", has_text="Draft").get_by_role("link").first.click()
    page.wait_for_selector("#g703-grid")


def test_the_accountant_enters_the_period_and_submits_over_missing_waivers(page, steps, demo):
    login(page, USERNAME, DEVELOPMENT_PASSWORD)
    steps.shot("signed in")
    _open_draft_pay_app(page)
    steps.shot("draft pay app #3")
    before = g702(page)
    draft = PayApp.objects.get(project__number="2026-014", number=3)
    assert draft.status == "draft"

    # Gypsum board: add $12,345.67 of work this period, well inside its balance to finish.
    row = g703_row(page, "09-200")
    assert column(row, "balance_to_finish") > 1_234_567
    work = column(row, "this_period")
    box = row.locator('input[name$="work_this_period"]')
    box.fill(f"{(work + 1_234_567) / 100:.2f}")
    steps.shot("work typed")
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=This period's entries are saved.")
    steps.shot("saved")

    after = g702(page)
    assert after["total_completed_and_stored"] == before["total_completed_and_stored"] + 1_234_567
    assert after["work_this_period"] == before["work_this_period"] + 1_234_567
    # 10 % retainage on the added work: $1,234.57 (half away from zero) of $12,345.67.
    assert after["total_retainage"] == before["total_retainage"] + 123_457
    assert after["current_payment_due"] == before["current_payment_due"] + 1_234_567 - 123_457
    assert after["contract_sum_to_date"] == before["contract_sum_to_date"]
    assert column(g703_row(page, "09-200"), "this_period") == work + 1_234_567

    # Submit: refused while waivers are missing, so the override asks for a reason.
    page.get_by_role("link", name="Submit over missing waivers").click()
    page.wait_for_selector("#missing-waivers")
    vendors = page.locator("#missing-waivers tbody tr").count()
    assert vendors >= 3
    steps.shot("override confirmation")
    # Without a reason the browser keeps the form (the box is required) and nothing moves.
    reason = page.get_by_label("Reason")
    assert reason.evaluate("box => box.required")
    page.get_by_role("button", name="Confirm").click()
    assert reason.evaluate("box => !box.validity.valid")
    draft.refresh_from_db()
    assert draft.status == "draft"
    reason.fill("Three waivers promised by Friday; owner agreed.")
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_selector("text=Submitted to the owner over missing lien waivers")
    steps.shot("submitted")

    draft.refresh_from_db()
    assert draft.status == "submitted"
    assert g702(page)["current_payment_due"] == after["current_payment_due"]
    assert draft.certified_total_completed == after["total_completed_and_stored"]
    assert page.locator('#g703-grid input[name$="work_this_period"]').count() == 0
