"""Entering this period's work on the demo's draft pay app at 1280×800: Enter in a box saves
nothing, and a refused save shows its refusal at the top of the page and at its line, with
that line's box focused and in view (docs/backoffice/month.md, "Grids")."""

from __future__ import annotations

import pytest

from jobcost.demo.accountant import DEVELOPMENT_PASSWORD, USERNAME
from jobcost.models import PayApp, PayAppStatus
from tests.browser.conftest import login
from tests.browser.month import column, g702, g703_row

pytestmark = pytest.mark.postgres

LAPTOP = {"width": 1280, "height": 800}


def _open_draft(page) -> PayApp:
    draft = PayApp.objects.get(status=PayAppStatus.DRAFT)
    page.goto(f"/admin/jobcost/payapp/{draft.pk}/change/")
    page.wait_for_selector("#g703-grid")
    return draft


def test_enter_in_a_grid_box_saves_nothing(page, steps, demo):
    page.set_viewport_size(LAPTOP)
    login(page, USERNAME, DEVELOPMENT_PASSWORD)
    draft = _open_draft(page)
    stored = {line.item: line.this_period for line in draft.lines.all()}
    before = g702(page)

    box = g703_row(page, "09-200").locator('input[name$="work_this_period"]')
    box.fill("1.00")
    box.press("Enter")
    steps.shot("enter pressed")

    # Still the same page with the typed value in its box; nothing written, nothing said.
    assert box.input_value() == "1.00"
    assert page.locator(".messagelist").count() == 0
    assert {line.item: line.this_period for line in draft.lines.all()} == stored
    assert g702(page) == before


def test_a_refused_save_is_told_at_the_top_and_at_its_line_in_view(page, steps, demo):
    page.set_viewport_size(LAPTOP)
    login(page, USERNAME, DEVELOPMENT_PASSWORD)
    draft = _open_draft(page)
    stored = {line.item: line.this_period for line in draft.lines.all()}
    # The last cost code's row (32-100 Paving), far below the top: more than its scheduled
    # value this period.
    last = g703_row(page, "32-100")
    code = last.get_attribute("data-code")
    too_much = column(last, "scheduled_value") + 100
    last.locator('input[name$="work_this_period"]').fill(f"{too_much / 100:.2f}")
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector(".messagelist .error")
    steps.shot("refused")

    top = page.locator(".messagelist .error").inner_text()
    assert top.startswith("Nothing was saved: 1 line refused (")
    assert code in top
    assert "more than its scheduled value" in last.locator(".line-error").inner_text()
    # The refused line's box has the focus and is on the screen.
    focused = page.evaluate("document.activeElement.name")
    assert focused == last.locator('input[name$="work_this_period"]').get_attribute("name")
    box = last.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= LAPTOP["height"]
    assert {line.item: line.this_period for line in draft.lines.all()} == stored
