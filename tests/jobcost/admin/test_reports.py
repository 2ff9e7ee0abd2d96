"""The back office's Reports section (docs/backoffice/reports.md): the same figures as the
API's reports, in dollars, with totals, drill-downs, as-of days, downloads in CSV, XLSX and
PDF, for the member's account only."""

from __future__ import annotations

import csv
import io
import re

import openpyxl
import pytest
from django.test import Client
from pypdf import PdfReader

from jobcost.admin.display import accounting
from jobcost.services.pay_app_payments import pay_app_payment_create
from jobcost.services.pay_apps import pay_app_approve, pay_app_submit, pay_app_update
from tests.conftest import Api
from tests.factories import (
    AccountFactory,
    OwnerFactory,
    make_invoice,
    make_job,
    make_key,
    make_pay_app,
)
from tests.jobcost.admin.pages import member_client, messages_of


@pytest.fixture
def job(db):
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account, commitment_amount=3_000_000)
    make_invoice(job.commitment, amount=400_000, number="A-1", status="approved")
    make_invoice(job.commitment, amount=123_457, number="A-2", status="approved")
    job.account = account
    return job


def _cells(page, column: str) -> list[str]:
    body = page.content.decode()
    cells = re.findall(rf'<td data-column="{column}"[^>]*>(.*?)</td>', body, re.S)
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in cells]


def _api(account) -> Api:
    _key, secret = make_key(account, "viewer")
    return Api(secret)


def test_the_section_lists_the_reports_on_home_and_index(job):
    web = member_client(job.account, "viewer")
    home = web.get("/admin/").content.decode()
    assert "Reports" in home and "/admin/reports/wip/" in home
    index = web.get("/admin/reports/")
    assert index.status_code == 200
    assert re.findall(r'data-report="([\w-]+)"', index.content.decode()) == [
        "wip",
        "job-cost",
        "ap-aging",
        "ar-aging",
        "retainage",
    ]


def test_wip_page_shows_the_api_figures_in_dollars_with_totals(job):
    web = member_client(job.account, "member")
    page = web.get("/admin/reports/wip/")
    assert page.status_code == 200
    row = _api(job.account).get("/v1/reports/wip").json()["data"][0]
    # One column for the project, its number first; the status column is left out.
    assert _cells(page, "project_name")[0] == f"{job.project.number} {job.project.name}"
    assert _cells(page, "project_number") == []
    assert _cells(page, "status") == []
    assert _cells(page, "earned_revenue")[0] == accounting(row["earned_revenue"])
    assert _cells(page, "under_billing")[0] == accounting(row["under_billing"])
    assert _cells(page, "cost_to_date") == [accounting(523_457), accounting(523_457)]
    assert _cells(page, "project_name")[-1] == "Total"
    # The project opens its job cost report for the same day.
    assert f"/admin/reports/job-cost/?project={job.project.pk}&amp;as_of=" in page.content.decode()


def test_job_cost_drills_down_to_the_transactions_and_the_invoice(job):
    web = member_client(job.account, "viewer")
    page = web.get("/admin/reports/job-cost/", {"project": job.project.pk})
    assert _cells(page, "code")[:3] == ["01-000", "03-000", "09-000"]
    assert _cells(page, "cost_to_date")[1] == "$5,234.57"
    assert _cells(page, "cost_to_date")[-1] == "$5,234.57"  # the totals row
    concrete = job.codes["03-000"].pk
    link = re.search(
        rf'href="(/admin/reports/job-cost/transactions/\?project={job.project.pk}'
        rf'&amp;cost_code={concrete}&amp;as_of=[\d-]+)"',
        page.content.decode(),
    )
    assert link is not None
    transactions = web.get(link.group(1).replace("&amp;", "&"))
    assert sorted(_cells(transactions, "amount")[:-1]) == ["$1,234.57", "$4,000.00"]
    assert _cells(transactions, "amount")[-1] == "$5,234.57"
    assert "/admin/jobcost/invoice/" in transactions.content.decode()


def test_job_cost_needs_a_project_and_offers_only_the_members(job):
    other = make_job(AccountFactory())
    web = member_client(job.account, "viewer")
    page = web.get("/admin/reports/job-cost/")
    assert page.status_code == 200 and "data-row" not in page.content.decode()
    assert other.project.number not in page.content.decode()
    refused = web.get("/admin/reports/job-cost/", {"project": other.project.pk})
    assert refused.status_code == 200
    assert "Select a valid choice" in refused.content.decode()
    assert other.project.pk not in refused.content.decode()  # no raw ID in the refusal
    assert "data-row" not in refused.content.decode()


def test_a_future_day_is_refused_on_the_page(job):
    web = member_client(job.account, "viewer")
    page = web.get("/admin/reports/wip/", {"as_of": "2999-01-01"})
    assert page.status_code == 200
    assert "Pick today or an earlier day" in page.content.decode()
    assert "data-row" not in page.content.decode()


def test_downloads_are_the_api_files_and_a_pdf(job):
    web = member_client(job.account, "viewer")
    api = _api(job.account)
    params = {"project": job.project.pk}
    csv_page = web.get("/admin/reports/job-cost/", {**params, "format": "csv"})
    assert csv_page["Content-Type"] == "text/csv; charset=utf-8"
    api_csv = api.get("/v1/reports/job-cost", {**params, "format": "csv"})
    assert csv_page.content == api_csv.content
    rows = list(csv.DictReader(io.StringIO(csv_page.content.decode("utf-8-sig"))))
    assert [r["cost_to_date"] for r in rows] == ["0.00", "5234.57", "0.00"]
    xlsx = web.get("/admin/reports/job-cost/", {**params, "format": "xlsx"})
    sheet = openpyxl.load_workbook(io.BytesIO(xlsx.content))["Report"]
    assert next(c.value for c in sheet[sheet.max_row]) == "Total"
    pdf = web.get("/admin/reports/job-cost/", {**params, "format": "pdf"})
    assert pdf["Content-Type"] == "application/pdf"
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.content)).pages)
    assert "Job cost report" in text and "Harbor Build Co" in text
    assert "5,234.57" in text and "Concrete" in text and "Total" in text
    assert f"Project: {job.project.number} {job.project.name}" in text and "prj_" not in text


def test_a_pdf_prints_names_that_look_like_markup_as_written(job):
    """The PDF's heading is reportlab markup: an account or project name with `<b>` or `&`
    prints as written instead of failing the download."""
    job.account.name = "Harbor <b> Build & Co"
    job.account.save(update_fields=["name"])
    job.project.name = "Gym <i>phase</i> 2"
    job.project.save(update_fields=["name"])
    web = member_client(job.account, "viewer")
    pdf = web.get("/admin/reports/job-cost/", {"project": job.project.pk, "format": "pdf"})
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.content)).pages)
    assert "Harbor <b> Build & Co" in text and "Gym <i>phase</i> 2" in text


def test_a_restricted_member_sees_only_its_projects(job):
    other = make_job(job.account)
    web = member_client(job.account, "viewer", projects=[other.project])
    page = web.get("/admin/reports/wip/")
    assert _cells(page, "project_name")[:-1] == [f"{other.project.number} {other.project.name}"]
    # The job's approved invoices are on a project this member cannot see.
    assert "No rows as of this day" in web.get("/admin/reports/ap-aging/").content.decode()
    everyone = member_client(job.account, "manager")
    aging = everyone.get("/admin/reports/ap-aging/")
    assert _cells(aging, "vendor_name")[:-1] == ["Acme Concrete"]


def test_staff_without_an_account_get_no_reports(db):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("stray", password=None, is_staff=True)
    web = Client()
    web.force_login(user)
    assert web.get("/admin/reports/wip/").status_code == 403
    assert "/admin/reports/" not in web.get("/admin/").content.decode()


def test_anonymous_visitors_are_sent_to_the_login(db):
    page = Client().get("/admin/reports/wip/")
    assert page.status_code == 302 and "/admin/login/" in page["Location"]


def test_ar_aging_page_shows_what_owners_owe_with_the_owner_filter(job):
    """A pay app billing $10,000.00 of concrete, certified today for its line 8 of $9,000.00,
    with $2,000.00 received: $7,000.00 owed, current, and $1,000.00 of retainage held."""
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    pay_app_update(pay_app_id=pay_app.pk, lines=[{"item": "2", "this_period": 1_000_000}])
    pay_app_submit(pay_app_id=pay_app.pk, allow_missing_waivers=True)
    pay_app_approve(pay_app_id=pay_app.pk)
    pay_app_payment_create(pay_app_id=pay_app.pk, amount=200_000, reference="1001")
    web = member_client(job.account, "viewer")
    page = web.get("/admin/reports/ar-aging/")
    assert page.status_code == 200
    row = _api(job.account).get("/v1/reports/ar-aging").json()["data"][0]
    assert row["total"] == row["current"] == 700_000
    assert _cells(page, "owner_name")[0] == job.project.owner.name
    assert _cells(page, "current") == [accounting(700_000), accounting(700_000)]
    assert _cells(page, "days_over_90")[0] == accounting(0)
    assert _cells(page, "retainage_held")[0] == accounting(100_000)
    assert _cells(page, "pay_apps")[0] == "1"
    assert 'name="owner"' in page.content.decode()
    other = web.get("/admin/reports/ar-aging/", {"owner": OwnerFactory(account=job.account).pk})
    assert "No rows as of this day" in other.content.decode()
    pdf = web.get("/admin/reports/ar-aging/", {"owner": job.project.owner_id, "format": "pdf"})
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.content)).pages)
    assert "AR aging" in text and "7,000.00" in text
    assert f"Owner: {job.project.owner.name}" in text


def test_a_report_pdf_past_its_time_limit_is_refused_on_the_page(job, settings):
    """A back-office report PDF that runs past `JOBCOST_RENDER_TIME_LIMIT`
    (docs/operations/limits.md) is stopped and said on the report's page, not an error page."""
    settings.JOBCOST_RENDER_TIME_LIMIT = 0
    web = member_client(job.account, "member")
    page = web.get("/admin/reports/wip/", {"format": "pdf"})
    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")
    [(level, message)] = messages_of(page)
    assert level == "error"
    assert message.startswith("This PDF took longer than the 0-second rendering limit")
