"""The back office in a real browser: the demo accountant signs in and sees her account."""

from __future__ import annotations

import pytest

from jobcost.demo.accountant import DEVELOPMENT_PASSWORD, USERNAME
from tests.browser.conftest import login

pytestmark = pytest.mark.postgres


def test_demo_accountant_signs_in_and_sees_only_her_account(page, steps, demo):
    page.goto("/admin/")
    steps.shot("login page")
    login(page, USERNAME, DEVELOPMENT_PASSWORD)
    steps.shot("home")
    assert (
        page.get_by_role("link", name="Log out").count()
        + page.get_by_role("button", name="Log out").count()
        == 1
    )
    body = page.locator("body").inner_text()
    assert "Pay apps" in body or "Pay applications" in body
    assert "Users" not in page.locator("#content").inner_text()
