"""Spreadsheet files never run what a user typed (docs/reports.md, "Files"; OWASP "CSV
injection"): a name, code or number that begins with `=`, `+`, `-`, `@`, a tab or a carriage
return, planted in every text field that reaches a report, comes out of every CSV and XLSX —
the API's and the back office's — as `'` + the text as stored, in a string cell, and no cell
of any workbook is a formula; money stays numbers, negative amounts included."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import openpyxl
import pytest

from jobcost.documents.report_files import FORMULA_STARTS, xlsx_line_ends
from jobcost.selectors.reports.job_cost import JOB_COST, TRANSACTIONS
from jobcost.selectors.reports.payables import AP_AGING, RETAINAGE
from jobcost.selectors.reports.receivables import AR_AGING
from jobcost.selectors.reports.table import CENTS, INTEGER, PERCENT
from jobcost.selectors.reports.wip import WIP
from jobcost.services.pay_apps import pay_app_approve, pay_app_submit, pay_app_update
from tests.conftest import Api
from tests.factories import AccountFactory, make_invoice, make_job, make_key, make_pay_app
from tests.jobcost.admin.pages import member_client

pytestmark = pytest.mark.django_db

PAYLOADS = [
    '=HYPERLINK("http://evil.example","click")',
    "+1+1",
    "-2+3",
    "@SUM(1)",
    "\tTabbed",
    "\rReturned",
]
# (API path, back-office path, spec, whether the project is a required filter)
REPORTS = [
    ("/v1/reports/wip", "/admin/reports/wip/", WIP, False),
    ("/v1/reports/job-cost", "/admin/reports/job-cost/", JOB_COST, True),
    (
        "/v1/reports/job-cost/transactions",
        "/admin/reports/job-cost/transactions/",
        TRANSACTIONS,
        True,
    ),
    ("/v1/reports/ap-aging", "/admin/reports/ap-aging/", AP_AGING, False),
    ("/v1/reports/ar-aging", "/admin/reports/ar-aging/", AR_AGING, False),
    ("/v1/reports/retainage", "/admin/reports/retainage/", RETAINAGE, False),
]
FIGURES = (CENTS, PERCENT, INTEGER)


def _plant(payload: str):
    """A job with rows in every report (approved invoices on a commitment over its budget, so
    that a variance is negative; a certified pay app) whose every typed text begins with
    `payload`. Returns the job and the texts as stored."""
    account = AccountFactory(name="Harbor Build Co")
    # Committed $60,000.00 on a $45,000.00 budget: the job cost variance is negative.
    job = make_job(account, commitment_amount=6_000_000)
    make_invoice(job.commitment, amount=400_000, number="A-1", status="approved")
    over = make_invoice(job.commitment, amount=2_000_000, number="A-2", status="approved")
    pay_app = make_pay_app(job.project, "2026-10-01", "2026-10-31")
    pay_app_update(pay_app_id=pay_app.pk, lines=[{"item": "2", "this_period": 1_000_000}])
    pay_app_submit(pay_app_id=pay_app.pk, allow_missing_waivers=True)
    pay_app_approve(pay_app_id=pay_app.pk)

    planted = {}

    def put(obj, field: str, text: str, limit: int) -> None:
        setattr(obj, field, text[:limit])
        obj.save(update_fields=[field])
        planted[f"{type(obj).__name__}.{field}"] = text[:limit]

    put(job.project, "number", payload, 60)
    put(job.project, "name", payload + " project", 200)
    put(job.project.owner, "name", payload + " owner", 200)
    put(job.vendor, "name", payload + " vendor", 200)
    put(job.codes["03-000"], "code", payload, 40)
    put(job.codes["03-000"], "name", payload + " code", 200)
    put(job.commitment, "number", payload + " SC", 60)
    put(over, "number", payload + " inv", 60)
    job.account = account
    return job, planted


def _csv_cells(content: bytes, spec) -> list[tuple[str, str]]:
    """(column kind, cell) of every data cell; the header is the JSON keys."""
    rows = list(csv.reader(io.StringIO(content.decode("utf-8-sig"), newline="")))
    assert rows[0] == [column.name for column in spec.columns]
    kinds = [column.kind for column in spec.columns]
    return [(kinds[i], cell) for row in rows[1:] for i, cell in enumerate(row)]


def _xlsx_cells(content: bytes, spec) -> list[tuple[str, object]]:
    """(column kind, value) of every cell of `Report` below the header and of `About`,
    asserting none is a formula."""
    book = openpyxl.load_workbook(io.BytesIO(content))
    cells = []
    kinds = [column.kind for column in spec.columns]
    for row in book["Report"].iter_rows(min_row=2):
        for index, cell in enumerate(row):
            assert cell.data_type != "f", (cell.coordinate, cell.value)
            cells.append((kinds[index], cell.value))
    for row in book["About"].iter_rows():
        for cell in row:
            assert cell.data_type != "f", (cell.coordinate, cell.value)
            cells.append(("text", cell.value))
    return cells


def _check(cells, planted: set[str], where: str, xlsx: bool) -> tuple[set[str], bool]:
    """Every text cell is inert; figures are numbers. Returns the planted texts found (as
    `'` + text; in an XLSX with its carriage returns as line feeds, the only line end XML
    keeps) and whether a negative figure was among the cells."""
    shown = {(xlsx_line_ends(text) if xlsx else text): text for text in planted}
    found, negative = set(), False
    for kind, value in cells:
        if value is None or value == "":
            continue
        if kind in FIGURES:
            if isinstance(value, str):  # CSV: a plain number, never prefixed
                assert not value.startswith("'"), (where, value)
                number = Decimal(value)
            else:
                assert isinstance(value, (int, float, Decimal)), (where, value)
                number = Decimal(str(value))
            negative = negative or number < 0
            continue
        if isinstance(value, str):
            assert not value.startswith(FORMULA_STARTS), (where, value)
            if value.startswith("'") and value[1:] in shown:
                found.add(shown[value[1:]])
    return found, negative


@pytest.mark.parametrize("payload", PAYLOADS, ids=["hyperlink", "plus", "minus", "at", "tab", "cr"])
def test_typed_formulas_come_out_inert_in_every_spreadsheet(payload):
    job, planted = _plant(payload)
    _key, secret = make_key(job.account, "viewer")
    api = Api(secret)
    web = member_client(job.account, "viewer")
    texts = set(planted.values())
    reached, negatives = set(), False
    for api_path, admin_path, spec, _needs_project in REPORTS:
        params = {"project": job.project.pk}
        json_rows = api.get(api_path, {**params, "limit": 100}).json()["data"]
        typed = {v for row in json_rows for v in row.values() if isinstance(v, str)} & texts
        assert json_rows, api_path
        for fmt in ("csv", "xlsx"):
            api_file = api.get(api_path, {**params, "format": fmt})
            admin_file = web.get(admin_path, {**params, "format": fmt})
            for where, response in (
                (f"API {api_path}", api_file),
                (f"admin {admin_path}", admin_file),
            ):
                assert response.status_code == 200, (where, response.content[:300])
                cells = (_csv_cells if fmt == "csv" else _xlsx_cells)(response.content, spec)
                found, negative = _check(cells, texts, f"{where} {fmt}", fmt == "xlsx")
                # Every planted text the JSON shows is in the file, as ' + the text.
                assert found == typed, (where, fmt, typed - found)
                reached |= found
                negatives = negatives or negative
            assert admin_file.content == api_file.content or fmt == "xlsx"
    # The plant reached every report field it was meant to, and a negative figure stayed one.
    assert reached == texts, texts - reached
    assert negatives


def test_a_filter_echoed_in_the_about_sheet_is_inert():
    account = AccountFactory()
    make_job(account)
    _key, secret = make_key(account, "viewer")
    response = Api(secret).get("/v1/reports/ap-aging", {"vendor": "=1+1763", "format": "xlsx"})
    assert response.status_code == 200
    about = openpyxl.load_workbook(io.BytesIO(response.content))["About"]
    values = {row[0].value: row[1] for row in about.iter_rows()}
    assert values["Vendor"].value == "'=1+1763" and values["Vendor"].data_type == "s"


def test_a_budget_imported_through_the_api_cannot_plant_a_formula():
    """The path the issue names: any key that may import a budget types the cost codes; the
    job cost report's files show what it typed, inert."""
    account = AccountFactory()
    job = make_job(account)
    _key, secret = make_key(account, "member")
    api = Api(secret)
    typed = {
        "=1+1763": '=HYPERLINK("http://evil.example","click")',
        "+1+1": "@SUM(1)",
        "-2+3": "-2+3 demolition",
    }
    upload = io.StringIO()
    writer = csv.writer(upload)
    writer.writerow(["code", "name", "cost type", "scheduled value", "budget"])
    writer.writerows([code, name, "labor", "0", "0"] for code, name in typed.items())
    body = upload.getvalue()
    response = api.post(
        f"/v1/projects/{job.project.pk}/budget-import",
        body.encode(),
        content_type="text/csv",
    )
    assert response.status_code == 201, response.content
    assert response.json()["status"] == "succeeded", response.json()["errors"]
    params = {"project": job.project.pk}
    rows = list(
        csv.DictReader(
            io.StringIO(
                api.get("/v1/reports/job-cost", {**params, "format": "csv"}).content.decode(
                    "utf-8-sig"
                )
            )
        )
    )
    shown = {row["code"]: row["name"] for row in rows}
    book = openpyxl.load_workbook(
        io.BytesIO(api.get("/v1/reports/job-cost", {**params, "format": "xlsx"}).content)
    )
    cells = [cell for row in book["Report"].iter_rows(min_row=2) for cell in row]
    assert not [cell.coordinate for cell in cells if cell.data_type == "f"]
    values = {cell.value for cell in cells}
    for code, name in typed.items():
        assert shown["'" + code] == "'" + name
        assert {"'" + code, "'" + name} <= values
