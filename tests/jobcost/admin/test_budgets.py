"""Cost codes and budget lines in the back office, through `services.cost_codes`."""

from audit.models import AuditEntry
from jobcost.models import BudgetLine, CostCode
from tests.factories import ProjectFactory
from tests.jobcost.admin.pages import admin_url, errors_of, form_data, readonly

ADD = "/admin/jobcost/costcode/add/"


def budget_url(line) -> str:
    return admin_url(line)


def test_add_cost_code_creates_its_budget_line(web, job):
    response = web.post(
        ADD,
        {
            "project": job.project.pk,
            "code": "09-900",
            "name": "Painting",
            "cost_type": "subcontract",
            "scheduled_value": "412,500.00",
            "budget_amount": "$380,000.25",
        },
    )

    assert response.status_code == 302, errors_of(response)
    code = CostCode.objects.get(project=job.project, code="09-900")
    assert code.scheduled_value == 41_250_000
    assert code.budget_line.original_amount == 38_000_025
    page = web.get(admin_url(code))
    assert readonly(page, "budget_line_link") == code.budget_line.pk
    assert f'href="{admin_url(code.budget_line)}"' in page.content.decode()
    actors = set(
        AuditEntry.objects.filter(target_id__in=[code.pk, code.budget_line.pk]).values_list(
            "action", "actor_type", "actor_id"
        )
    )
    assert actors == {("created", "user", "accountant")}


def test_add_cost_code_refuses_a_taken_code_and_a_closed_project(web, job):
    closed = ProjectFactory(account=job.account, owner=job.owner, status="closed")
    audit_before = AuditEntry.objects.count()
    form = {"name": "Again", "cost_type": "labor", "scheduled_value": "0", "budget_amount": "0"}

    taken = web.post(ADD, {**form, "project": job.project.pk, "code": "03-300"})
    on_closed = web.post(ADD, {**form, "project": closed.pk, "code": "01-000"})

    assert taken.status_code == on_closed.status_code == 200
    assert any("already exists" in e for e in errors_of(taken))
    assert any("is closed" in e for e in errors_of(on_closed))
    assert CostCode.objects.count() == 2
    assert AuditEntry.objects.count() == audit_before


def test_budget_line_estimate_is_saved_and_cleared_through_the_service(web, job):
    line = job.electrical.budget_line
    page = web.get(budget_url(line))
    assert readonly(page, "cost_to_complete_display") == "$2,500,000.00"
    data = form_data(page, "budgetline_form")
    assert data["cost_to_complete_estimate"] == ""

    saved = web.post(budget_url(line), {**data, "cost_to_complete_estimate": "2,750,000"})

    assert saved.status_code == 302, errors_of(saved)
    line.refresh_from_db()
    assert line.cost_to_complete_estimate == 2_750_000_00
    page = web.get(budget_url(line))
    assert readonly(page, "variance_display") == "($250,000.00)"
    entry = AuditEntry.objects.filter(target_id=line.pk).latest("created_at")
    assert (entry.actor_type, entry.actor_id) == ("user", "accountant")
    assert entry.changes == {"cost_to_complete": {"before": None, "after": 2_750_000_00}}

    cleared = web.post(
        budget_url(line), {**form_data(page, "budgetline_form"), "cost_to_complete_estimate": ""}
    )
    assert cleared.status_code == 302
    line.refresh_from_db()
    assert line.cost_to_complete_estimate is None


def test_original_budget_is_locked_once_the_project_is_active(web, job):
    line = job.concrete.budget_line
    data = form_data(web.get(budget_url(line)), "budgetline_form")
    audit_before = AuditEntry.objects.count()

    response = web.post(budget_url(line), {**data, "original_amount": "6,000,000"})

    assert response.status_code == 200
    assert (
        "The original budget can only change while the project is in bid; use a change order."
        in errors_of(response)
    )
    assert BudgetLine.objects.get(pk=line.pk).original_amount == 5_000_000_00
    assert AuditEntry.objects.count() == audit_before


def test_budget_counters_are_read_only_and_lines_cannot_be_added_or_deleted(web, job):
    line = job.concrete.budget_line
    data = form_data(web.get(budget_url(line)), "budgetline_form")
    assert set(data) >= {"original_amount", "cost_to_complete_estimate"}
    for owned in ("approved_changes", "committed", "actual"):
        assert owned not in data
    web.post(budget_url(line), {**data, "committed": "1", "actual": "1"})
    line.refresh_from_db()
    assert (line.committed, line.actual) == (0, 0)
    assert web.get("/admin/jobcost/budgetline/add/").status_code == 403
    assert web.post(admin_url(line, "delete")).status_code == 403
    assert BudgetLine.objects.filter(pk=line.pk).exists()
