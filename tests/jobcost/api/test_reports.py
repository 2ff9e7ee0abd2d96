"""Reports through the API: figures that agree with every other read, pages and totals, the
CSV and XLSX files read back, the aging buckets and retainage by hand, scope, roles and bad
parameters (docs/reports.md)."""

import csv
import datetime
import io
from decimal import Decimal

import openpyxl
import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jobcost.documents.report_files import XLSX_TYPE
from jobcost.selectors.reports.job_cost import JOB_COST, TRANSACTIONS
from jobcost.selectors.reports.payables import AP_AGING, RETAINAGE
from jobcost.selectors.reports.receivables import AR_AGING
from jobcost.selectors.reports.wip import WIP
from jobcost.services.pay_apps import pay_app_submit, pay_app_update
from tests.conftest import error_of
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    ProjectFactory,
    VendorFactory,
    make_invoice,
    make_job,
    make_pay_app,
)
from tests.jobcost.api.state import body, db_state

# Query counts are those of a request that reads its key (the first of a key in a second).
pytestmark = pytest.mark.usefixtures("cold_keys")

REPORT_SPECS = {
    "/v1/reports/wip": WIP,
    "/v1/reports/job-cost": JOB_COST,
    "/v1/reports/job-cost/transactions": TRANSACTIONS,
    "/v1/reports/ap-aging": AP_AGING,
    "/v1/reports/ar-aging": AR_AGING,
    "/v1/reports/retainage": RETAINAGE,
}
ROUTES = {
    "/v1/reports/wip": {},
    "/v1/reports/job-cost": {"project": None},
    "/v1/reports/job-cost/transactions": {"project": None},
    "/v1/reports/ap-aging": {},
    "/v1/reports/ar-aging": {},
    "/v1/reports/retainage": {},
}


@pytest.fixture
def job(account):
    """make_job, three approved invoices on 03-000 (one paid) and a certified pay app."""
    job = make_job(account, commitment_amount=3_000_000)
    make_invoice(job.commitment, amount=400_000, number="A-1", status="approved")
    make_invoice(job.commitment, amount=250_000, number="A-2", status="paid")
    make_invoice(job.commitment, amount=123_457, number="A-3", status="approved")
    pay_app = make_pay_app(job.project, "2026-10-01", "2026-10-31")
    pay_app_update(pay_app_id=pay_app.pk, lines=[{"item": "2", "this_period": 1_000_000}])
    pay_app_submit(pay_app_id=pay_app.pk, allow_missing_waivers=True)
    return job


def _params(path, job, **extra):
    params = {k: (job.project.pk if v is None else v) for k, v in ROUTES[path].items()}
    return {**params, **extra}


def _all_rows(api, path, params):
    """Every row, page by page at `limit=1`, and the totals each page carried."""
    rows, totals, cursor = [], [], None
    while True:
        page = body(api.get(path, {**params, "limit": 1, **({"cursor": cursor} if cursor else {})}))
        rows += page["data"]
        totals.append(page["totals"])
        if not page["has_more"]:
            return rows, totals
        cursor = page["next_cursor"]


def test_job_cost_agrees_with_the_budget_lines_and_transactions_with_cost_to_date(api, job):
    report = body(api.get("/v1/reports/job-cost", {"project": job.project.pk}))
    budgets = body(api.get("/v1/budgets", {"project": job.project.pk, "limit": 100}))["data"]
    by_code = {b["cost_code"]: b for b in budgets}
    assert len(report["data"]) == 3
    for row in report["data"]:
        line = by_code[row["cost_code"]]
        assert (
            row["original_budget"],
            row["approved_changes"],
            row["revised_budget"],
            row["committed"],
            row["cost_to_date"],
            row["cost_to_complete"],
            row["projected_cost"],
            row["variance"],
        ) == (
            line["original_amount"],
            line["approved_changes"],
            line["revised_amount"],
            line["committed"],
            line["actual"],
            line["cost_to_complete"],
            line["projected_cost"],
            line["variance"],
        )
    assert [r["code"] for r in report["data"]] == ["01-000", "03-000", "09-000"]
    # 400,000 + 250,000 + 123,457 posted to 03-000; its commitment of 3,000,000 is committed.
    concrete = report["data"][1]
    assert (concrete["cost_to_date"], concrete["committed"]) == (773_457, 3_000_000)
    assert report["totals"]["cost_to_date"] == 773_457
    assert report["totals"]["original_budget"] == 9_000_000
    transactions = body(api.get("/v1/reports/job-cost/transactions", {"project": job.project.pk}))
    assert sorted(r["amount"] for r in transactions["data"]) == [123_457, 250_000, 400_000]
    assert {r["invoice_number"] for r in transactions["data"]} == {"A-1", "A-2", "A-3"}
    assert {(r["vendor_name"], r["commitment_number"]) for r in transactions["data"]} == {
        ("Acme Concrete", job.commitment.number)
    }
    assert transactions["totals"] == {"currency": "usd", "amount": 773_457}
    one_code = body(
        api.get(
            "/v1/reports/job-cost/transactions",
            {"project": job.project.pk, "cost_code": job.codes["01-000"].pk},
        )
    )
    assert one_code["data"] == [] and one_code["totals"]["amount"] == 0


def test_wip_today_agrees_with_the_project(api, job):
    row = body(api.get("/v1/reports/wip"))["data"][0]
    project = body(api.get(f"/v1/projects/{job.project.pk}"))
    assert row["earned_revenue"] == project["earned_revenue"]
    assert row["billed_to_date"] == project["billed_to_date"] == 1_000_000
    assert row["cost_to_date"] == project["cost_to_date"] == 773_457
    assert row["estimated_total_cost"] == project["projected_cost"]
    assert row["over_billing"] - row["under_billing"] == project["over_under_billing"]


@pytest.mark.parametrize("path", list(ROUTES))
def test_pages_cover_every_row_once_and_totals_are_over_all_rows(api, job, path):
    params = _params(path, job)
    whole = body(api.get(path, {**params, "limit": 100}))
    rows, totals = _all_rows(api, path, params)
    assert rows == whole["data"] and len(rows) >= 1
    assert all(t == whole["totals"] for t in totals)
    for name, total in whole["totals"].items():
        if name in ("currency", "net_retainage"):
            continue
        assert total == sum(row[name] for row in rows), name


@pytest.mark.parametrize("path", list(ROUTES))
def test_csv_and_xlsx_read_back_equal_the_json_rows(api, job, path):
    params = _params(path, job)
    json_rows = body(api.get(path, {**params, "limit": 100}))["data"]
    totals = body(api.get(path, params))["totals"]

    response = api.get(path, {**params, "format": "csv"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="')
    assert response.content.startswith(b"\xef\xbb\xbf")  # the BOM Excel reads UTF-8 by
    csv_rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert len(csv_rows) == len(json_rows)

    response = api.get(path, params, headers={"Accept": XLSX_TYPE})
    assert response.status_code == 200 and response["Content-Type"] == XLSX_TYPE
    sheet = openpyxl.load_workbook(io.BytesIO(response.content))["Report"]
    assert sheet.freeze_panes == "A2"
    values = list(sheet.iter_rows(values_only=True))
    words, data, total_row = values[0], values[1:-1], values[-1]
    # The XLSX's header is in words (the columns' labels), the CSV's the JSON keys.
    spec = REPORT_SPECS[path]
    assert list(words) == [column.label for column in spec.columns]
    header = [column.name for column in spec.columns]
    assert header == list(json_rows[0])
    assert len(data) == len(json_rows)

    for json_row, csv_row, xlsx_row in zip(json_rows, csv_rows, data, strict=True):
        assert list(csv_row) == list(json_row)
        xlsx = dict(zip(header, xlsx_row, strict=True))
        for name, value in json_row.items():
            if isinstance(value, int) and not isinstance(value, bool) and name in totals:
                # money: cents in JSON, dollars with two decimals in the files
                assert Decimal(csv_row[name]) * 100 == value, name
                assert round(Decimal(str(xlsx[name])) * 100) == value, name
            elif value is None:
                assert csv_row[name] == "" and xlsx[name] is None, name
            elif name == "percent_complete":
                assert Decimal(csv_row[name]) == Decimal(str(value)), name
            elif isinstance(value, int):
                assert int(csv_row[name]) == value == xlsx[name], name
            else:
                assert csv_row[name] == str(value), name
                shown = xlsx[name]
                if isinstance(shown, datetime.datetime):
                    shown = shown.date().isoformat()
                assert shown == value, name
    totals_cells = dict(zip(header, total_row, strict=True))
    assert total_row[0] == "Total"
    for name, total in totals.items():
        if name in header and name not in ("currency",) and header.index(name):
            assert round(Decimal(str(totals_cells[name])) * 100) == total, name


def test_control_characters_in_names_and_filters_are_replaced_in_the_xlsx(api, job):
    """A vendor name and a filter value with control characters (which the API stores and
    echoes as given, and XLSX cannot hold) come out as U+FFFD in the workbook, not as a 500;
    tab and line feed, which XLSX holds, stay."""
    job.vendor.name = "Acme\x1bConcrete\tNorth\nYard"
    job.vendor.save(update_fields=["name"])
    path = "/v1/reports/retainage"
    response = api.get(path, {"format": "xlsx", "vendor": "vnd_\x02x\x1d"})
    assert response.status_code == 200, response.content
    about = dict(openpyxl.load_workbook(io.BytesIO(response.content))["About"].values)
    assert about["Vendor"] == "vnd_\ufffdx\ufffd"
    response = api.get(path, {"format": "xlsx"})
    assert response.status_code == 200, response.content
    sheet = openpyxl.load_workbook(io.BytesIO(response.content))["Report"]
    cells = {value for row in sheet.iter_rows(values_only=True) for value in row}
    assert "Acme\ufffdConcrete\tNorth\nYard" in cells


def test_accept_and_format_choose_the_representation(api, job):
    csv_accept = api.get("/v1/reports/wip", headers={"Accept": "text/csv"})
    assert csv_accept["Content-Type"] == "text/csv; charset=utf-8"
    assert csv_accept["Content-Disposition"] == (
        f'attachment; filename="wip_{datetime.date.today().isoformat()}.csv"'
    )
    # The parameter wins over the header; JSON when the header names nothing we serve.
    forced = api.get("/v1/reports/wip", {"format": "json"}, headers={"Accept": "text/csv"})
    assert forced["Content-Type"].startswith("application/json")
    preferred = api.get(
        "/v1/reports/wip", headers={"Accept": f"application/json;q=0.5, {XLSX_TYPE}"}
    )
    assert preferred["Content-Type"] == XLSX_TYPE
    refused_csv = api.get("/v1/reports/wip", headers={"Accept": "text/csv;q=0, */*;q=0.1"})
    assert refused_csv["Content-Type"].startswith("application/json")
    anything = api.get("/v1/reports/wip", headers={"Accept": "*/*"})
    assert anything["Content-Type"].startswith("application/json")
    # An error asked for as a file is still the JSON envelope.
    refused = api.get("/v1/reports/wip", {"as_of": "soon"}, headers={"Accept": "text/csv"})
    assert refused.status_code == 400 and error_of(refused)["param"] == "as_of"


def test_a_file_past_the_row_bound_is_refused(api, job, monkeypatch):
    monkeypatch.setattr("jobcost.views.reports.FILE_ROWS_MAX", 2)
    path = "/v1/reports/job-cost"
    response = api.get(path, {"project": job.project.pk, "format": "xlsx"})
    assert response.status_code == 400
    assert error_of(response)["code"] == "report_too_large"
    assert "3 rows" in error_of(response)["message"]
    assert api.get(path, {"project": job.project.pk}).status_code == 200  # JSON pages


@pytest.mark.parametrize(
    ("path", "params", "code", "param"),
    [
        ("/v1/reports/wip", {"expand[]": "data.project"}, "parameter_unknown", "expand[]"),
        ("/v1/reports/wip", {"status": "active"}, "parameter_unknown", "status"),
        ("/v1/reports/wip", {"as_of": "2026-02-30"}, "parameter_invalid", "as_of"),
        ("/v1/reports/wip", {"as_of": "20261130"}, "parameter_invalid", "as_of"),
        ("/v1/reports/wip", {"as_of": "2999-01-01"}, "parameter_invalid", "as_of"),
        ("/v1/reports/wip", {"format": "pdf"}, "parameter_invalid", "format"),
        ("/v1/reports/wip", {"limit": "0"}, "parameter_invalid", "limit"),
        ("/v1/reports/wip", {"cursor": "cur_nope"}, "cursor_invalid", "cursor"),
        ("/v1/reports/ap-aging", {"vendor": ["vnd_a", "vnd_b"]}, "parameter_invalid", "vendor"),
        ("/v1/reports/job-cost", {}, "parameter_missing", "project"),
        ("/v1/reports/job-cost/transactions", {}, "parameter_missing", "project"),
    ],
)
def test_bad_parameters_are_clear_400s_that_change_nothing(api, job, path, params, code, param):
    before = db_state()
    response = api.get(path, params)
    assert response.status_code == 400, response.content
    assert (error_of(response)["code"], error_of(response)["param"]) == (code, param)
    assert db_state() == before


def test_a_cursor_of_another_report_is_refused(api, job):
    page = body(api.get("/v1/reports/job-cost", {"project": job.project.pk, "limit": 1}))
    response = api.get("/v1/reports/wip", {"cursor": page["next_cursor"]})
    assert error_of(response)["code"] == "cursor_invalid"


@pytest.mark.parametrize("role", ["viewer", "agent", "member", "manager"])
def test_every_role_reads_reports(account, job, make_api, role):
    reader = make_api(account, role)
    for path in ROUTES:
        assert reader.get(path, _params(path, job)).status_code == 200, (role, path)


def test_a_restricted_key_sees_only_its_projects(account, job, make_api):
    other = make_job(account)
    make_invoice(other.commitment, amount=70_000, number="B-1", status="approved")
    restricted = make_api(account, "viewer", projects=[other.project])
    wip = body(restricted.get("/v1/reports/wip"))
    assert [r["project"] for r in wip["data"]] == [other.project.pk]
    aging = body(restricted.get("/v1/reports/ap-aging"))
    assert aging["totals"]["total"] == 70_000 - 7_000  # the other job's invoice only
    missing = restricted.get("/v1/reports/job-cost", {"project": job.project.pk})
    assert (missing.status_code, error_of(missing)["param"]) == (404, "project")
    unfiltered = body(restricted.get("/v1/reports/wip", {"project": job.project.pk}))
    assert unfiltered["data"] == []


def test_another_accounts_rows_never_show(job, make_api):
    stranger = make_api(AccountFactory(), "admin")
    for path in ("/v1/reports/wip", "/v1/reports/ap-aging", "/v1/reports/retainage"):
        assert body(stranger.get(path))["data"] == [], path
    response = stranger.get("/v1/reports/job-cost", {"project": job.project.pk})
    assert response.status_code == 404


@pytest.mark.postgres
def test_ap_aging_buckets_by_hand(api, account):
    """As of Nov 20 (cents, net = amount − 10 % retainage):
    N-1 due Nov 25 (not due)            10,000 → net 9,000 in current
    N-2 due Nov 10, 10 days late        20,000 → net 18,000 in 1–30
    N-3 no due date, dated Sep 1 → due Oct 1, 50 days late  30,000 → 27,000 in 31–60
    N-4 due Aug 22, 90 days late        40,000 → 36,000 in 61–90
    N-5 due Aug 15, 97 days late        50,000 → 45,000 over 90
    N-6 paid Nov 18 (before the day): not unpaid; its 6,000 retainage still held
    N-7 paid Nov 22 (after the day): still unpaid on Nov 20, due Nov 19 → 1 day → 1–30
    N-8 approved Nov 21: not yet approved on Nov 20, no row
    Unpaid total 9,000 + 18,000 + 27,000 + 36,000 + 45,000 + 63,000 = 198,000; retainage
    held 1,000 + 2,000 + 3,000 + 4,000 + 5,000 + 6,000 + 7,000 = 28,000.
    """
    project = ProjectFactory(account=account, contract_amount=10_000_000, retainage_pct=10)
    vendor = VendorFactory(account=account, name="Keystone Masonry")
    commitment = CommitmentFactory(
        project=project, vendor=vendor, original_amount=5_000_000, executed=True
    )

    def invoice(number, amount, date, due, approve_on="2026-11-19", paid_on=None):
        with time_machine.travel(datetime.datetime(2026, 11, 19, 9, tzinfo=datetime.UTC)):
            made = api.post(
                "/v1/invoices",
                {
                    "commitment": commitment.pk,
                    "number": number,
                    "invoice_date": date,
                    "amount": amount,
                    **({"due_date": due} if due else {}),
                },
            ).json()
            lines = [{"cost_code": commitment.cost_code_id, "amount": amount}]
            assert api.patch(f"/v1/invoices/{made['id']}", {"lines": lines}).status_code == 200
        day = datetime.date.fromisoformat(approve_on)
        with time_machine.travel(datetime.datetime.combine(day, datetime.time(12), datetime.UTC)):
            assert api.post(f"/v1/invoices/{made['id']}/approve").status_code == 200
        if paid_on:
            day = datetime.date.fromisoformat(paid_on)
            noon = datetime.datetime.combine(day, datetime.time(12), datetime.UTC)
            with time_machine.travel(noon):
                assert api.post(f"/v1/invoices/{made['id']}/mark-paid").status_code == 200

    invoice("N-1", 10_000, "2026-10-26", "2026-11-25")
    invoice("N-2", 20_000, "2026-10-11", "2026-11-10")
    invoice("N-3", 30_000, "2026-09-01", None)
    invoice("N-4", 40_000, "2026-07-23", "2026-08-22")
    invoice("N-5", 50_000, "2026-07-16", "2026-08-15")
    invoice("N-6", 60_000, "2026-10-01", "2026-10-31", paid_on="2026-11-18")
    invoice("N-7", 70_000, "2026-10-20", "2026-11-19", paid_on="2026-11-22")
    invoice("N-8", 80_000, "2026-11-01", "2026-12-01", approve_on="2026-11-21")

    with time_machine.travel(datetime.datetime(2026, 11, 24, 12, tzinfo=datetime.UTC)):
        report = body(api.get("/v1/reports/ap-aging", {"as_of": "2026-11-20"}))
    (row,) = report["data"]
    assert (row["vendor"], row["vendor_name"]) == (vendor.pk, "Keystone Masonry")
    assert {
        k: row[k]
        for k in ("current", "days_1_30", "days_31_60", "days_61_90", "days_over_90", "total")
    } == {
        "current": 9_000,
        "days_1_30": 18_000 + 63_000,
        "days_31_60": 27_000,
        "days_61_90": 36_000,
        "days_over_90": 45_000,
        "total": 198_000,
    }
    assert (row["retainage_held"], row["invoices"]) == (28_000, 6)
    assert report["totals"]["total"] == 198_000


def test_retainage_receivable_and_payable(api, job):
    """The pay app bills 1,000,000 on item 2 at 10 %: the owner holds 100,000. Invoices on the
    subcontract withheld 40,000 + 25,000 + 12,346 (123,457 × 10 % = 12,345.7 → 12,346)."""
    report = body(api.get("/v1/reports/retainage"))
    by_type = {row["type"]: row for row in report["data"]}
    assert by_type["receivable"]["retainage_receivable"] == 100_000
    assert by_type["receivable"]["pay_app_number"] == 1
    assert by_type["payable"]["retainage_payable"] == 77_346
    assert by_type["payable"]["commitment"] == job.commitment.pk
    assert report["totals"] == {
        "currency": "usd",
        "retainage_receivable": 100_000,
        "retainage_payable": 77_346,
        "net_retainage": 22_654,
    }
    vendor_only = body(api.get("/v1/reports/retainage", {"vendor": job.vendor.pk}))
    assert [row["type"] for row in vendor_only["data"]] == ["payable"]


def test_mixed_currencies_give_null_totals_not_a_sum(api, account, job):
    ProjectFactory(account=account, currency="cad", contract_amount=5_000_000)
    report = body(api.get("/v1/reports/wip"))
    assert {row["currency"] for row in report["data"]} == {"usd", "cad"}
    assert set(report["totals"].values()) == {None}


@pytest.mark.parametrize(
    "path", ["/v1/reports/wip", "/v1/reports/retainage", "/v1/reports/ar-aging"]
)
def test_queries_do_not_grow_with_the_number_of_projects(api, account, path):
    def count():
        with CaptureQueriesContext(connection) as queries:
            assert api.get(path).status_code == 200
        return len(queries)

    make_job(account)
    one = count()
    for _ in range(4):
        job = make_job(account)
        make_invoice(job.commitment, amount=10_000, number="Q-1", status="approved")
    assert count() == one


def test_xlsx_reads_as_a_spreadsheet_people_open(api, job):
    """Headers in words and frozen, money in dollars in an accounting format, dates as dates,
    columns as wide as their text, a totals row; the file named for the report, the project's
    number and the day (docs/reports.md, "Files")."""
    job.project.number = "P-2024/017 é"
    job.project.save(update_fields=["number"])
    response = api.get(
        "/v1/reports/job-cost/transactions",
        {"project": job.project.pk, "format": "xlsx"},
    )
    today = datetime.date.today().isoformat()
    assert response["Content-Disposition"] == (
        f'attachment; filename="job-cost-transactions_P-2024-017_{today}.xlsx"'
    )
    sheet = openpyxl.load_workbook(io.BytesIO(response.content))["Report"]
    assert sheet.freeze_panes == "A2"
    header = [cell.value for cell in sheet[1]]
    assert header[:3] == ["Project ID", "Project number", "Project"]
    amount = header.index("Amount") + 1
    date = header.index("Date") + 1
    cells = [sheet.cell(row=r, column=amount) for r in range(2, sheet.max_row + 1)]
    assert all(c.number_format == "#,##0.00;(#,##0.00)" for c in cells)
    assert sorted(Decimal(str(c.value)) for c in cells[:-1]) == [
        Decimal("1234.57"),
        Decimal("2500.00"),
        Decimal("4000.00"),
    ]
    assert sheet.cell(row=sheet.max_row, column=1).value == "Total"
    assert Decimal(str(cells[-1].value)) == Decimal("7734.57")
    day = sheet.cell(row=2, column=date)
    assert isinstance(day.value, datetime.datetime) and day.is_date
    vendor = header.index("Vendor") + 1
    letter = openpyxl.utils.get_column_letter(vendor)
    assert sheet.column_dimensions[letter].width >= len("Acme Concrete")
    retainage = api.get("/v1/reports/retainage", {"format": "xlsx"})
    about = openpyxl.load_workbook(io.BytesIO(retainage.content))["About"]
    cells = {row[0].value: row[1] for row in about.iter_rows()}
    assert cells["As of"].is_date
    net = body(api.get("/v1/reports/retainage"))["totals"]["net_retainage"]
    assert round(Decimal(str(cells["Net retainage"].value)) * 100) == net
    assert cells["Net retainage"].number_format == "#,##0.00;(#,##0.00)"
