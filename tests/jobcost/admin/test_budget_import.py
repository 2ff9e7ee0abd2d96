"""The project's "Import budget" pages in the back office (docs/budget-import.md): upload, the
dry-run table in dollars with each row's refusals, then "Import these rows" through the same
service; tenancy and roles as the API."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.admin.utils import quote
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from openpyxl import Workbook

from audit.models import AuditEntry
from jobcost.models import BudgetImport, CostCode
from jobcost.services.backoffice_users import backoffice_user_create
from tests.factories import AccountFactory, ProjectFactory
from tests.jobcost.api.state import db_state
from webhooks.models import Event

HEADER = "code,name,cost type,scheduled value,budget\n"
GOOD = (
    HEADER + '01-100,General conditions,Labor,"12,345.67",$9000\n03-300,Concrete,material,5,0.5\n'
)
BAD = HEADER + "01-100,General,labor,1,1\n01-100,Again,nope,1.234,2\n"


def upload_url(project) -> str:
    return reverse("admin:jobcost_project_budget_import", args=[quote(project.pk)])


def _file(text: str, name: str = "budget.csv", kind: str = "text/csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type=kind)


def _member(account, role: str) -> Client:
    membership = backoffice_user_create(account=account, role=role, email=f"{role}@x.example")
    client = Client()
    client.force_login(membership.user)
    return client


def _cells(page, row: int) -> dict[str, str]:
    body = page.content.decode()
    found = re.search(rf'<tr data-row="{row}"[^>]*>(.*?)</tr>', body, re.S).group(1)
    return {
        name: re.sub(r"<[^>]+>", " ", value).strip()
        for name, value in re.findall(r'data-column="(\w+)">(.*?)</td>', found, re.S)
    }


@pytest.fixture
def project(db):
    return ProjectFactory(account=AccountFactory(name="Harbor Build Co"), status="bid")


def test_the_project_page_links_to_the_import(web, project):
    page = web.get(reverse("admin:jobcost_project_change", args=[quote(project.pk)]))
    assert upload_url(project).encode() in page.content
    assert b"Import budget" in page.content


def test_dry_run_table_then_import(web, project):
    assert web.get(upload_url(project)).status_code == 200
    before = {**db_state(), "events": Event.objects.count()}

    checked = web.post(upload_url(project), {"file": _file(GOOD)}, follow=True)

    assert checked.status_code == 200
    assert b'data-outcome="ready"' in checked.content
    assert _cells(checked, 2) == {
        "scheduled_value": "$12,345.67",
        "budget": "$9,000.00",
        "outcome": "ok",
    }
    assert _cells(checked, 3)["budget"] == "$0.50"
    assert {**db_state(), "events": Event.objects.count()} == before  # the dry run wrote nothing

    dry_run = BudgetImport.objects.get(dry_run=True)
    page = reverse(
        "admin:jobcost_project_budget_import_result", args=[quote(project.pk), dry_run.pk]
    )
    imported = web.post(page, follow=True)

    assert b'data-outcome="imported"' in imported.content
    codes = {
        c.code: (c.scheduled_value, c.budget_line.original_amount, c.cost_type)
        for c in CostCode.objects.filter(project=project).select_related("budget_line")
    }
    assert codes == {"01-100": (1_234_567, 900_000, "labor"), "03-300": (500, 50, "material")}
    entry = AuditEntry.objects.get(target_id=CostCode.objects.get(code="01-100").pk)
    assert (entry.actor_type, entry.actor_id) == ("user", "accountant")
    assert Event.objects.filter(type="cost_code.created").count() == 2
    # Pressing the button again runs the rules again: the codes now exist, nothing is written.
    again = web.post(page, follow=True)
    assert b'data-outcome="failed"' in again.content
    assert b"already exists on this project" in again.content
    assert CostCode.objects.filter(project=project).count() == 2


def test_a_file_with_errors_shows_each_row_and_offers_no_import(web, project):
    before = db_state()
    page = web.post(upload_url(project), {"file": _file(BAD)}, follow=True)
    assert b'data-outcome="refused"' in page.content
    assert b"Import these rows" not in page.content
    assert _cells(page, 2)["outcome"] == "ok"
    outcome = _cells(page, 3)["outcome"]
    assert "also on row 2" in outcome and "is not a cost type" in outcome
    assert "more than two decimals" in outcome
    assert _cells(page, 3)["scheduled_value"] == "—"
    assert db_state() == before


def test_a_project_id_the_admin_escapes_reaches_its_pages(web, project):
    """An ID whose random part starts like one of the admin's URL escapes (`_5F` is `_`):
    the dry run's page and its status are the project's, not 404."""
    project = ProjectFactory(account=project.account, id="prj_5Fescaped0000000000000")
    page = web.post(upload_url(project), {"file": _file(GOOD)}, follow=True)
    assert page.status_code == 200
    assert b'data-outcome="ready"' in page.content
    dry_run = BudgetImport.objects.get(project=project)
    status = web.get(
        reverse("admin:jobcost_project_budget_import_status", args=[quote(project.pk), dry_run.pk])
    )
    assert status.status_code == 200


def test_an_unreadable_file_is_refused_on_the_form(web, project):
    page = web.post(upload_url(project), {"file": _file("name,code\n")})
    assert page.status_code == 200
    assert b"it lacks" in page.content
    assert not BudgetImport.objects.exists()
    page = web.post(
        upload_url(project), {"file": _file(GOOD, name="budget.pdf", kind="application/pdf")}
    )
    assert b"Choose a .csv or .xlsx file." in page.content


def test_the_status_view_reports_progress_as_json(web, project):
    web.post(upload_url(project), {"file": _file(GOOD)})
    dry_run = BudgetImport.objects.get()
    status = web.get(
        reverse("admin:jobcost_project_budget_import_status", args=[quote(project.pk), dry_run.pk])
    )
    assert status.json() == {
        "id": dry_run.pk,
        "status": "succeeded",
        "rows_total": 2,
        "rows_done": 2,
        "finished": True,
    }


def test_roles_and_tenancy_as_the_api(project):
    viewer = _member(project.account, "viewer")
    assert viewer.get(upload_url(project)).status_code == 403
    change = reverse("admin:jobcost_project_change", args=[quote(project.pk)])
    assert b"Import budget" not in viewer.get(change).content
    member = _member(project.account, "member")
    assert member.get(upload_url(project)).status_code == 200
    page = member.post(upload_url(project), {"file": _file(GOOD)}, follow=True)
    assert b'data-outcome="ready"' in page.content
    stranger = _member(AccountFactory(), "admin")
    assert stranger.get(upload_url(project)).status_code == 404
    dry_run = BudgetImport.objects.get()
    result = reverse(
        "admin:jobcost_project_budget_import_result", args=[quote(project.pk), dry_run.pk]
    )
    assert stranger.post(result).status_code == 404
    assert not CostCode.objects.exists()


def test_the_dry_run_page_shows_the_contract_warning_and_a_formula_refusal(web, project):
    """The scheduled values off the contract: a warning in dollars above the table; an XLSX
    formula with no saved value: refused at its row, naming its column."""
    book = Workbook()
    book.active.append(["code", "name", "cost type", "scheduled value", "budget"])
    book.active.append(["01-100", "General", "labor", 1000, 900])
    book.active.append(["03-300", "Concrete", "material", 500, "=E2/2"])
    content = io.BytesIO()
    book.save(content)
    upload = SimpleUploadedFile(
        "budget.xlsx",
        content.getvalue(),
        content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    )
    checked = web.post(upload_url(project), {"file": upload}, follow=True)
    assert b'data-outcome="refused"' in checked.content
    body = checked.content.decode()
    assert 'data-warning="scheduled_values_off_contract"' in body
    assert (
        "Scheduled values total $1,500.00; the contract is $100,000.00 ($98,500.00 short)."
    ) in body
    assert _cells(checked, 2)["outcome"] == "ok"
    outcome = _cells(checked, 3)["outcome"]
    assert outcome.startswith(
        "Budget: Row 3, column &#x27;budget&#x27;: the cell holds the formula"
    )
    assert "=E2/2" in outcome
