"""Budgets from a spreadsheet (docs/budget-import.md): `POST /v1/projects/{id}/budget-import`
with a CSV or XLSX, the dry run, the all-or-nothing import through the rules of
`POST /v1/cost-codes`, roles and key scope, and `GET /v1/budget-imports/{id}`."""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from openpyxl import Workbook

from audit.models import AuditEntry
from jobcost.models import BudgetImport, BudgetLine, CostCode
from tests.conftest import error_of
from tests.factories import CostCodeFactory, ProjectFactory
from tests.jobcost.api.state import db_state
from webhooks.models import Event

CSV = "text/csv"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
HEADER = "code,name,cost type,scheduled value,budget\n"


@pytest.fixture
def project(account):
    return ProjectFactory(account=account, status="bid")


def url(project, dry_run: bool | None = None) -> str:
    query = "" if dry_run is None else f"?dry_run={'true' if dry_run else 'false'}"
    return f"/v1/projects/{project.pk}/budget-import{query}"


def post_csv(api, project, text: str, *, dry_run=None, **kwargs):
    return api.post(url(project, dry_run), text.encode(), content_type=CSV, **kwargs)


def snapshot() -> dict:
    """Every domain row and the audit count (`db_state`), plus events."""
    return {**db_state(), "events": Event.objects.count()}


def xlsx(rows: list[list]) -> bytes:
    workbook = Workbook()
    sheet = workbook.active
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


BAD_FILE = (
    HEADER
    + '01-100,General conditions,labor,"1,000.00",900\n'  # row 2: fine
    + "03-300,Concrete,concrete,10.00,5\n"  # row 3: cost type
    + "05-100,,material,1.234,\n"  # row 4: name empty, 3 decimals
    + "01-100,Again,other,1,-5\n"  # row 5: duplicate of row 2, negative budget
    + "09-900,Finishes,other,$12,abc\n"  # row 6: budget not an amount
)


def test_dry_run_of_a_file_with_errors_names_each_row_and_column_and_writes_nothing(api, project):
    before = snapshot()

    resp = post_csv(api, project, BAD_FILE, dry_run=True)

    assert resp.status_code == 201, resp.content
    data = resp.json()
    assert data["id"].startswith("imp_")
    assert (data["object"], data["project"], data["status"], data["dry_run"]) == (
        "budget_import",
        project.pk,
        "failed",
        True,
    )
    assert (data["rows_total"], data["rows_done"]) == (5, 5)
    found = [(e["row"], e["column"], e["code"]) for e in data["errors"]]
    assert found == [
        (3, "cost type", "parameter_invalid"),
        (4, "name", "parameter_missing"),
        (4, "scheduled value", "parameter_invalid"),
        (5, "code", "duplicate_code"),
        (5, "budget", "parameter_invalid"),
        (6, "budget", "parameter_invalid"),
    ]
    messages = {(e["row"], e["column"]): e["message"] for e in data["errors"]}
    assert messages[5, "code"] == "Cost code '01-100' is also on row 2 of this file."
    assert "more than two decimals" in messages[4, "scheduled value"]
    assert "'concrete' is not a cost type" in messages[3, "cost type"]
    assert snapshot() == before
    assert api.get(f"/v1/budget-imports/{data['id']}").json() == data


def test_clean_dry_run_succeeds_and_writes_nothing(api, project):
    before = snapshot()
    resp = post_csv(api, project, HEADER + "01-100,General,labor,100,90\n", dry_run=True)
    assert resp.status_code == 201, resp.content
    assert (resp.json()["status"], resp.json()["errors"]) == ("succeeded", [])
    assert snapshot() == before


def test_clean_csv_imports_exact_cents_audited_with_events(api, project):
    text = (
        "Code,Name,Cost Type,Scheduled Value,Budget\n"
        '01-100,General conditions,Labor,"12,345.67","$12,345.67"\n'
        "03-300,Concrete,material,12345.67,0.1\n"
        "05-100,Steel,subcontract,$7,\n"
        ",,,,\n"  # a blank row is skipped
        "09-900,Finishes,other,0.01,99999987654.23\n"  # the budgets sum to the cap exactly
    )
    audit_before, events_before = AuditEntry.objects.count(), Event.objects.count()

    resp = post_csv(api, project, text)

    assert resp.status_code == 201, resp.content
    assert (resp.json()["status"], resp.json()["errors"], resp.json()["rows_total"]) == (
        "succeeded",
        [],
        4,
    )
    got = {
        c.code: (c.name, c.cost_type, c.scheduled_value, c.budget_line.original_amount)
        for c in CostCode.objects.filter(project=project).select_related("budget_line")
    }
    assert got == {
        "01-100": ("General conditions", "labor", 1_234_567, 1_234_567),
        "03-300": ("Concrete", "material", 1_234_567, 10),
        "05-100": ("Steel", "subcontract", 700, 0),
        "09-900": ("Finishes", "other", 1, 9_999_998_765_423),
    }
    # As POST /v1/cost-codes: a created entry on each cost code and budget line, one
    # cost_code.created event per code, stamped with the request.
    assert AuditEntry.objects.count() - audit_before == 8
    entry = AuditEntry.objects.get(target_id=CostCode.objects.get(code="03-300").pk)
    assert (entry.action, entry.actor_type, entry.changes["scheduled_value"]["after"]) == (
        "created",
        "api_key",
        1_234_567,
    )
    assert entry.request_id == resp["Request-Id"]
    events = Event.objects.filter(type="cost_code.created").order_by("created_at")
    assert Event.objects.count() - events_before == 4 == events.count()
    shown = events.get(object_id=CostCode.objects.get(code="01-100").pk).data["object"]
    assert (shown["scheduled_value"], shown["budget_line"]) == (
        1_234_567,
        BudgetLine.objects.get(cost_code__code="01-100").pk,
    )
    assert api.get(f"/v1/cost-codes?project={project.pk}").json()["data"][0]["object"] == (
        "cost_code"
    )


def test_clean_xlsx_imports_exact_cents(api, project):
    content = xlsx(
        [
            ["Code", "Name", "Cost type", "Scheduled value", "Budget"],
            ["01-100", "General", "labor", 12345.67, "$1,000.50"],
            [300, "Numbers as codes", "equipment", 0.29, 19.99],
            ["05-100", "Steel", "other", 7, None],
        ]
    )
    resp = api.post(url(project), content, content_type=XLSX)
    assert resp.status_code == 201, resp.content
    assert resp.json()["status"] == "succeeded", resp.json()["errors"]
    got = {
        c.code: (c.scheduled_value, c.budget_line.original_amount)
        for c in CostCode.objects.filter(project=project).select_related("budget_line")
    }
    assert got == {"01-100": (1_234_567, 100_050), "300": (29, 1_999), "05-100": (700, 0)}


def test_xlsx_cells_with_more_than_two_decimals_are_row_errors(api, project):
    content = xlsx(
        [["code", "name", "cost type", "scheduled value", "budget"], ["1", "A", "labor", 0.125, 1]]
    )
    before = snapshot()
    resp = api.post(url(project), content, content_type=XLSX)
    assert resp.json()["status"] == "failed"
    assert [(e["row"], e["column"]) for e in resp.json()["errors"]] == [(2, "scheduled value")]
    assert snapshot() == before


def test_multipart_upload_with_a_file_part(api, project):
    upload = io.BytesIO((HEADER + "01-100,General,labor,1,2\n").encode())
    upload.name = "budget.csv"
    resp = api.client.post(
        url(project),
        {"file": upload},
        headers={"Authorization": f"Bearer {api.secret}", "Idempotency-Key": "mp-1"},
    )
    assert resp.status_code == 201, resp.content
    assert resp.json()["status"] == "succeeded"
    assert CostCode.objects.get(project=project, code="01-100").scheduled_value == 100


def test_a_code_already_on_the_project_is_refused_with_its_row(api, project):
    CostCodeFactory(project=project, code="03-300")
    before = snapshot()
    resp = post_csv(
        api, project, HEADER + "01-100,General,labor,1,1\n03-300,Concrete,material,1,1\n"
    )
    assert resp.status_code == 201
    assert resp.json()["status"] == "failed"
    assert resp.json()["errors"] == [
        {
            "row": 3,
            "column": "code",
            "code": "resource_already_exists",
            "message": "Cost code '03-300' already exists on this project.",
        }
    ]
    assert snapshot() == before  # all or nothing: row 2 was fine, and is not written either


def test_a_duplicate_code_in_the_file_is_refused_and_nothing_written(api, project):
    before = snapshot()
    resp = post_csv(
        api, project, HEADER + "01-100,A,labor,1,1\n02,B,labor,1,1\n01-100,C,labor,1,1\n"
    )
    assert resp.json()["status"] == "failed"
    assert [(e["row"], e["column"], e["code"]) for e in resp.json()["errors"]] == [
        (4, "code", "duplicate_code")
    ]
    assert snapshot() == before


def test_the_money_cap_on_the_project_refuses_the_whole_import(api, project):
    before = snapshot()
    resp = post_csv(api, project, HEADER + "01,A,labor,0,100000000000\n02,B,labor,0,100000000000\n")
    assert resp.json()["status"] == "failed"
    [error] = resp.json()["errors"]
    assert (error["row"], error["column"], error["code"]) == (None, "budget", "amount_out_of_range")
    assert snapshot() == before


def test_a_closed_project_is_409_and_records_nothing(api, account):
    closed = ProjectFactory(account=account, status="closed")
    before = snapshot()
    resp = post_csv(api, closed, HEADER + "01,A,labor,1,1\n")
    assert resp.status_code == 409
    assert error_of(resp)["code"] == "project_closed"
    assert snapshot() == before and not BudgetImport.objects.exists()


@pytest.mark.parametrize(
    "body,code",
    [
        ("", "parameter_missing"),
        ("name,code\n", "header_invalid"),
        ("code,name,cost type,scheduled value,budget,notes\n01,A,labor,1,1,x\n", "header_invalid"),
        (HEADER, "file_empty"),
        (HEADER + '01,"A,labor,1,1\n', "file_unreadable"),
    ],
)
def test_a_file_that_cannot_be_read_is_400_on_param_file(api, project, body, code):
    before = snapshot()
    resp = post_csv(api, project, body)
    assert resp.status_code == 400, resp.content
    assert (error_of(resp)["code"], error_of(resp)["param"]) == (code, "file")
    assert snapshot() == before and not BudgetImport.objects.exists()


def test_not_utf8_csv_and_garbage_xlsx_are_400(api, project):
    resp = api.post(
        url(project), (HEADER + "01,Caf\xe9,labor,1,1\n").encode("latin-1"), content_type=CSV
    )
    assert (resp.status_code, error_of(resp)["code"]) == (400, "file_unreadable")
    resp = api.post(url(project), b"PK\x03\x04 not really a zip", content_type=XLSX)
    assert (resp.status_code, error_of(resp)["code"]) == (400, "file_unreadable")


def test_too_many_rows_is_400(api, project, settings):
    settings.BUDGET_IMPORT_MAX_ROWS = 3
    text = HEADER + "".join(f"{n},Row {n},labor,1,1\n" for n in range(4))
    resp = post_csv(api, project, text)
    assert (resp.status_code, error_of(resp)["code"], error_of(resp)["param"]) == (
        400,
        "too_many_rows",
        "file",
    )


def test_json_or_another_media_type_is_415_and_bad_query_is_400(api, project):
    assert api.post(url(project), {"code": "x"}).status_code == 415
    resp = api.post(url(project), b"x", content_type="application/pdf")
    assert (resp.status_code, error_of(resp)["code"]) == (415, "unsupported_media_type")
    resp = api.post(f"{url(project)}?dry_run=yes", HEADER.encode(), content_type=CSV)
    assert (resp.status_code, error_of(resp)["param"]) == (400, "dry_run")
    resp = api.post(f"{url(project)}?colour=red", HEADER.encode(), content_type=CSV)
    assert (error_of(resp)["code"], error_of(resp)["param"]) == ("parameter_unknown", "colour")


def test_idempotency_key_is_required_and_replays_the_same_file(api, project):
    text = HEADER + "01,A,labor,1,1\n"
    resp = post_csv(api, project, text, idem=None)
    assert (resp.status_code, error_of(resp)["code"]) == (400, "idempotency_key_missing")
    first = post_csv(api, project, text, idem="imp-1")
    again = post_csv(api, project, text, idem="imp-1")
    assert again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert BudgetImport.objects.count() == 1
    other = post_csv(api, project, text, idem="imp-1", dry_run=True)
    assert (other.status_code, error_of(other)["code"]) == (409, "idempotency_key_reused")


@pytest.mark.parametrize(
    "role,status", [("viewer", 403), ("member", 201), ("agent", 201), ("manager", 201)]
)
def test_roles_as_for_creating_cost_codes(make_api, account, project, role, status):
    api = make_api(account, role)
    before = snapshot()
    resp = post_csv(api, project, HEADER + "01,A,labor,1,1\n")
    assert resp.status_code == status, resp.content
    if status == 403:
        assert error_of(resp)["code"] == "role_forbidden"
        assert snapshot() == before


def test_a_restricted_key_gets_404_on_other_projects(make_api, account, project):
    mine = ProjectFactory(account=account)
    api = make_api(account, "member", projects=[mine])
    resp = post_csv(api, project, HEADER + "01,A,labor,1,1\n")
    assert (resp.status_code, error_of(resp)["code"]) == (404, "resource_missing")
    done = post_csv(api, mine, HEADER + "01,A,labor,1,1\n")
    assert done.status_code == 201
    # ... and the import of another project is 404 to it too.
    admin_import = post_csv(make_api(account, "admin"), project, HEADER + "01,A,labor,1,1\n").json()
    assert api.get(f"/v1/budget-imports/{admin_import['id']}").status_code == 404
    assert api.get(f"/v1/budget-imports/{done.json()['id']}").status_code == 200


def test_another_accounts_import_is_404(make_api, api, project):
    from tests.factories import AccountFactory

    imported = post_csv(api, project, HEADER + "01,A,labor,1,1\n").json()
    stranger = make_api(AccountFactory(), "admin")
    assert stranger.get(f"/v1/budget-imports/{imported['id']}").status_code == 404
    assert stranger.get("/v1/budget-imports/prj_nope").status_code == 404


def with_saved_values(content: bytes, saved: dict[str, str]) -> bytes:
    """The workbook with `saved` ({"D3": "1002"}) as the last values its formulas computed,
    as a spreadsheet program saves them (openpyxl writes formulas with none)."""
    source = zipfile.ZipFile(io.BytesIO(content))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                for ref, value in saved.items():
                    # A text result is marked `t="str"`; a number is the default.
                    kind = b"" if re.fullmatch(r"[\d.]+", value) else b' t="str"'
                    data = re.sub(
                        rf'(<c r="{ref}")([^>]*><f>[^<]*</f>)<v ?/>'.encode(),
                        rb"\1" + kind + rb"\2<v>" + value.encode() + b"</v>",
                        data,
                    )
            target.writestr(item, data)
    return out.getvalue()


def test_a_formula_without_a_saved_value_is_refused_at_its_row_and_column(api, project):
    """openpyxl (and other programs that do not calculate) save a formula with no value: it
    is refused where it is, naming row, column and formula, not read as $0.00; a formula
    saved with its value is read as that value (docs/budget-import.md, "The file")."""
    content = xlsx(
        [
            ["code", "name", "cost type", "scheduled value", "budget"],
            ["01-100", "General", "labor", 1000, 900],
            ["03-300", "Concrete", "material", "=1000+2", 800],
            ["05-100", '=CONCATENATE("St","eel")', "other", 7, "=D4*2"],
            ["09-100", "Finishes", "other", "=1000+2", 1],
        ]
    )
    content = with_saved_values(content, {"D5": "1002"})
    before = snapshot()
    resp = api.post(url(project, dry_run=True), content, content_type=XLSX)
    assert resp.status_code == 201, resp.content
    data = resp.json()
    assert data["status"] == "failed"
    assert [(e["row"], e["column"], e["code"]) for e in data["errors"]] == [
        (3, "scheduled value", "formula_not_calculated"),
        (4, "name", "formula_not_calculated"),
        (4, "budget", "formula_not_calculated"),
    ]
    message = data["errors"][0]["message"]
    assert "Row 3, column 'scheduled value'" in message and "=1000+2" in message
    assert "no saved value" in message
    assert snapshot() == before
    # Row 5's formula has its saved value: read as $1,002.00 once the others are fixed.
    fixed = with_saved_values(content, {"D3": "1000", "B4": "Steel", "E4": "14"})
    resp = api.post(url(project), fixed, content_type=XLSX)
    assert resp.json()["status"] == "succeeded", resp.json()
    got = dict(CostCode.objects.filter(project=project).values_list("code", "scheduled_value"))
    assert got == {"01-100": 100_000, "03-300": 100_000, "05-100": 700, "09-100": 100_200}


def test_a_dry_run_says_when_the_scheduled_values_do_not_sum_to_the_contract(api, project):
    """A warning in dollars, the import allowed all the same; none when they balance. With
    cost codes on the project already, theirs count too and the message says how much."""
    assert project.contract_amount == 100_000_00
    short = post_csv(api, project, HEADER + "01-100,General,labor,1000,900\n", dry_run=True)
    assert short.json()["status"] == "succeeded"
    assert short.json()["warnings"] == [
        {
            "code": "scheduled_values_off_contract",
            "message": "Scheduled values total $1,000.00; the contract is $100,000.00 "
            "($99,000.00 short).",
        }
    ]
    even = post_csv(api, project, HEADER + "01-100,General,labor,100000,900\n", dry_run=True)
    assert even.json()["warnings"] == []
    CostCodeFactory(project=project, code="00-100", scheduled_value=60_000_00)
    over = post_csv(api, project, HEADER + "01-100,General,labor,50000.50,1\n", dry_run=True)
    assert over.json()["warnings"][0]["message"] == (
        "Scheduled values total $110,000.50; the contract is $100,000.00 ($10,000.50 over). "
        "That is $50,000.50 in this file and $60,000.00 on the project's 1 cost code already."
    )
    # The import says it too, and reads the same when polled.
    imported = post_csv(api, project, HEADER + "01-100,General,labor,50000.50,1\n")
    assert imported.json()["status"] == "succeeded"
    polled = api.get(f"/v1/budget-imports/{imported.json()['id']}").json()
    assert polled["warnings"] == over.json()["warnings"]
