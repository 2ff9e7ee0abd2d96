"""The printed G702/G703 is laid out (docs/documents.md): every glyph read
back from the PDF (tests/pdf_layout.py) lies inside the 0.5 in margins, over no other glyph
and under no cell rule — for the demo's three pay apps and for a 60-line G703 with
90-character names — and the blocks a contractor signs and an architect certifies are there,
read back with pdfplumber."""

from __future__ import annotations

import io
import re

import pdfplumber
import pytest

from jobcost.demo.loader import demo_job_load
from jobcost.documents.pay_app_pdf import render_pay_app_pdf
from jobcost.models import PayApp, Project
from jobcost.serializers.pay_apps import G702_FIELDS
from tests.conftest import Api
from tests.factories import make_key
from tests.jobcost.long_pay_app import NAME_LENGTH, long_pay_apps
from tests.pdf_layout import layout_problems
from tests.shared import rows_for_the_module

pytestmark = pytest.mark.django_db

MARGIN = 36  # points: the 0.5 in margins of docs/documents.md


@pytest.fixture(scope="module")
def printed(django_db_setup, django_db_blocker):
    """The PDFs of the demo's pay apps #1–#3 and of the long job's #1 (certified) and #2
    (submitted), fetched through GET /v1/pay-apps/{id}/pdf, with the long job."""
    with rows_for_the_module(django_db_blocker):
        demo_job_load()
        demo = Project.objects.get(account__name="Demo Builders", number="2026-014")
        job = long_pay_apps(demo.account)
        api = Api(make_key(demo.account, "viewer")[1])
        pdfs = {}
        for pay_app in PayApp.objects.filter(project=demo).order_by("number"):
            pdfs[f"demo #{pay_app.number}"] = _fetch(api, pay_app)
        pdfs["long #1"] = _fetch(api, job.first)
        pdfs["long #2"] = _fetch(api, job.second)
        yield pdfs, job


def _fetch(api: Api, pay_app) -> bytes:
    response = api.get(f"/v1/pay-apps/{pay_app.pk}/pdf")
    assert response.status_code == 200, response.content[:300]
    return response.content


def texts(pdf: bytes) -> list[str]:
    """Each page's text in the order the PDF draws it (pdfplumber's text flow: cell by cell,
    so a block reads as printed), whitespace as single spaces."""
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return [
            " ".join((page.extract_text(use_text_flow=True) or "").split())
            for page in document.pages
        ]


@pytest.mark.parametrize("name", ["demo #1", "demo #2", "demo #3", "long #1", "long #2"])
def test_every_glyph_is_inside_the_margins_and_over_nothing(printed, name):
    pdfs, _job = printed
    assert layout_problems(pdfs[name], margin=MARGIN) == []


def test_the_long_g703_runs_to_pages_that_repeat_the_heading_and_the_band(printed):
    pdfs, job = printed
    pages = texts(pdfs["long #2"])
    sheet = pages[1:]
    assert len(sheet) >= 3, "60 rows of two-line names take several pages"
    project = job.project
    assert len(project.name) == NAME_LENGTH
    for number, page in enumerate(sheet, start=2):
        assert page.startswith("CONTINUATION SHEET (G703)"), number
        assert "APPLICATION NO: 2" in page
        assert "APPLICATION DATE:" in page
        assert "PERIOD TO: Oct 31, 2026" in page
        # The 90-character project name wraps inside its block; every word is there.
        assert all(word in page for word in project.name.split()), number
        assert "A Item No. B Description of Work C Scheduled Value" in page
        assert f"Page {number} of {len(pages)}" in page
    with_orders = [page for page in sheet if re.search(r"CO-\d{3} —", page)]
    assert len(with_orders) >= 2, "the change-order rows continue onto another page"
    assert all("CHANGE ORDERS" in page for page in with_orders)
    # Every row is printed once, in order; a change-order row reads "CO-001 — <title>".
    whole = " ".join(sheet)
    for item in range(1, 46):
        assert re.search(rf"(^| ){item} {10 + item - 1:02d}-", whole), item
    assert "CO-001 — Owner request 1 — furnish" in whole
    assert "CO-001 CO-001" not in whole
    assert "-0.00%" not in whole
    assert whole.count("GRAND TOTAL") == 1


def test_the_g702_carries_the_statement_notary_and_certificate(printed):
    pdfs, _job = printed
    certified = texts(pdfs["long #1"])[0]
    submitted = texts(pdfs["long #2"])[0]
    for page in (certified, submitted):
        assert "APPLICATION AND CERTIFICATE FOR PAYMENT (G702)" in page
        assert "CONTRACT DATE: Mar 16, 2026" in page
        assert "The undersigned Contractor certifies" in page
        assert "By: Date:" in page
        assert "State of: County of:" in page
        assert "Subscribed and sworn to before me" in page
        assert "Notary Public: My commission expires:" in page
        assert "ARCHITECT'S CERTIFICATE FOR PAYMENT" in page
        assert "Hartley Okafor Architects LLP" in page
    assert "APPLICATION NO: 1" in certified and "PERIOD TO: Sep 30, 2026" in certified
    assert "AMOUNT CERTIFIED $ 3,000,000.00" in certified
    assert "short of the stated percentages; certified the balance" in certified
    # Submitted, not yet certified: a blank line to write the amount on.
    assert re.search(r"AMOUNT CERTIFIED \$ _{10,}", submitted)
    assert "CERTIFIED ON: ____" in submitted


def test_the_change_order_summary_adds_up_inside_the_page(printed):
    pdfs, job = printed
    page = texts(pdfs["long #2"])[0]
    orders = job.second.change_orders.order_by("number")
    additions = sum(o.amount for o in orders if o.amount > 0)
    deductions = sum(o.amount for o in orders if o.amount < 0)
    assert (
        "Total changes approved in previous months by Owner 0.00 0.00 Total approved this "
        f"month {usd(additions)} {usd(deductions)} TOTALS {usd(additions)} {usd(deductions)} "
        f"NET CHANGES by Change Order {usd(additions + deductions)}"
    ) in page
    assert f"2. Net change by Change Orders {usd(additions + deductions)}" in page


def test_the_demo_prints_its_change_order_summary_and_no_negative_zero(printed):
    pdfs, _job = printed
    draft = texts(pdfs["demo #3"])
    assert all("DRAFT" in page for page in draft)
    assert (
        "Total changes approved in previous months by Owner 48,500.00 0.00 Total approved "
        "this month 0.00 (12,000.00) TOTALS 48,500.00 (12,000.00) NET CHANGES by Change "
        "Order 36,500.00"
    ) in draft[0]
    assert "CO-002 — Deleted canopy at entry (12,000.00) 0.00 0.00 0.00 0.00 0.00%" in draft[1]
    assert "-0.00%" not in " ".join(draft)


def usd(cents: int) -> str:
    text = f"{abs(cents) // 100:,}.{abs(cents) % 100:02d}"
    return f"({text})" if cents < 0 else text


def extreme_snapshot() -> dict:
    """A snapshot at every limit the API allows: 200-character names, a 60-character change
    order number, amounts of $100,000,000,000.00 (the money cap) and a 2,000-character
    certification note."""
    big = 10**13
    figures = {
        "scheduled_value": big,
        "previous": -big,
        "this_period": big,
        "materials_stored": big,
        "total_completed_and_stored": -big,
        "percent_complete": "100.00",
        "balance_to_finish": -big,
        "retainage": big,
    }
    long = ("Wide " * 60)[:200]
    rows = [
        {"item": str(i), "description": long, "change_order": False, **figures} for i in range(1, 6)
    ]
    rows.append(
        {"item": "C" * 60, "description": f"{'C' * 60} — {long}", "change_order": True, **figures}
    )
    return {
        "version": 1,
        "stage": "certified",
        "application": {
            "number": 999,
            "date": "2099-12-31",
            "period_start": "2099-12-01",
            "period_end": "2099-12-31",
            "retainage_pct": "12.75",
            "currency": "usd",
        },
        "project": {
            "number": "N" * 60,
            "name": long,
            "contract_date": "1970-01-01",
            "architect": long,
        },
        "owner": {"name": long},
        "contractor": {"name": long},
        "rows": rows,
        "totals": figures,
        "g702": dict.fromkeys(G702_FIELDS, -big),
        "change_orders": {
            "previous_additions": big,
            "previous_deductions": -big,
            "this_month_additions": big,
            "this_month_deductions": -big,
        },
        "certificate": {
            "amount_certified": big,
            "certified_on": "2099-12-31",
            "note": ("The architect's reason, at length. " * 70)[:2000],
        },
    }


def test_a_snapshot_at_every_limit_still_prints_inside_the_page():
    pdf = render_pay_app_pdf(extreme_snapshot())
    assert layout_problems(pdf, margin=MARGIN) == []
    text = " ".join(texts(pdf))
    assert "(100,000,000,000.00)" in text
    assert "The architect's reason, at length." in text
