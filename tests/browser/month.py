"""Reading the back office's pages in the browser tests: dollars, G702 figures, G703 rows."""

from __future__ import annotations

import re
from decimal import Decimal

from tests.browser.conftest import TIMEOUT_MS

MONEY = re.compile(r"^\(?-?\$[\d,]+\.\d\d\)?$")


def cents(text: str) -> int:
    """`$1,234.50` → 123450; `-$5.00` and `($5.00)` → -500. Fails on anything else."""
    text = text.strip()
    assert MONEY.match(text), f"not dollars: {text!r}"
    negative = text.startswith(("(", "-"))
    amount = Decimal(re.sub(r"[^\d.]", "", text))
    value = int(amount * 100)
    return -value if negative else value


def g702(page) -> dict[str, int]:
    """Every `data-g702` figure on the page, in cents."""
    figures = {}
    for element in page.locator("[data-g702]").all():
        figures[element.get_attribute("data-g702")] = cents(element.inner_text())
    assert figures, "no G702 figures on the page"
    return figures


def g703_row(page, code: str):
    """The G703 grid's row of cost code (or change order) `code`."""
    return page.locator(f'#g703-grid tr[data-code="{code}"]')


def column(row, name: str) -> int:
    """A money cell of a G703 row, in cents (an entry box reads as what it holds)."""
    cell = row.locator(f'td[data-column="{name}"]')
    box = cell.locator("input.money")
    if box.count():
        return int(Decimal(box.input_value().replace(",", "") or "0") * 100)
    return cents(cell.inner_text())


def readonly(page, field: str) -> str:
    """A read-only field's text on an admin page."""
    return page.locator(f".field-{field} .readonly").inner_text().strip()


def pick(page, select: str, containing: str) -> str:
    """Choose the option of `select` whose text contains `containing`; return its text. Waits
    (up to the tests' timeout) for exactly one such option: the page may still be loading
    after the click that led to it (an immediate count raced the navigation)."""
    from playwright.sync_api import expect  # here: without Playwright the tests skip

    option = page.locator(f"{select} option", has_text=containing)
    expect(option, containing).to_have_count(1, timeout=TIMEOUT_MS)
    page.select_option(select, value=option.get_attribute("value"))
    return option.inner_text()
