"""Projects in the back office: saves and status moves go through `services.projects`; the
change page shows the API's rollups."""

from decimal import Decimal

from django.db.models import F

from audit.models import AuditEntry
from jobcost.admin.display import accounting
from jobcost.models import BudgetLine, Project
from jobcost.services.commitments import commitment_execute
from jobcost.services.cost_codes import budget_line_update
from tests.conftest import Api
from tests.factories import AccountFactory, OwnerFactory, ProjectFactory, make_key
from tests.jobcost.admin.pages import (
    admin_url,
    errors_of,
    form_data,
    messages_of,
    readonly,
    run_list_action,
    text,
)

ADD = "/admin/jobcost/project/add/"


def change_url(project) -> str:
    return admin_url(project)


def _add_form(account, owner, **overrides):
    data = {
        "account": account.pk,
        "owner": owner.pk,
        "number": "J-2501",
        "name": "Harbor Library",
        "status": "bid",
        "contract_amount": "8,400,000.00",
        "currency": "usd",
        "retainage_pct": "10",
    }
    return {**data, **overrides}


def test_add_project_goes_through_the_service_and_is_audited_as_the_user(web, accountant):
    account = AccountFactory()
    owner = OwnerFactory(account=account)

    response = web.post(ADD, _add_form(account, owner))

    assert response.status_code == 302, errors_of(response)
    project = Project.objects.get(number="J-2501")
    assert response["Location"] == "/admin/jobcost/project/"
    assert (project.contract_amount, project.status, project.retainage_pct) == (
        840_000_000,
        "bid",
        Decimal("10.00"),
    )
    entry = AuditEntry.objects.get(target_id=project.pk)
    assert (entry.action, entry.actor_type, entry.actor_id) == ("created", "user", "accountant")
    assert entry.actor_role == "superuser"
    assert entry.request_id.startswith("req_")
    assert entry.changes["contract_amount"] == {"before": None, "after": 840_000_000}


def test_add_project_refuses_an_owner_of_another_account(web):
    account = AccountFactory()
    stranger = OwnerFactory(account=AccountFactory())
    audit_before = AuditEntry.objects.count()

    response = web.post(ADD, _add_form(account, stranger))

    assert response.status_code == 200
    assert "This owner belongs to another account." in errors_of(response)
    assert not Project.objects.filter(number="J-2501").exists()
    assert AuditEntry.objects.count() == audit_before


def test_add_project_refuses_a_closed_initial_status_and_a_taken_number(web, job):
    audit_before = AuditEntry.objects.count()
    closed = web.post(ADD, _add_form(job.account, job.owner, status="closed"))
    assert closed.status_code == 200
    assert any("not one of the available choices" in e for e in errors_of(closed))
    taken = web.post(ADD, _add_form(job.account, job.owner, number="J-2401"))
    assert taken.status_code == 200
    assert any("already exists" in e for e in errors_of(taken))
    assert Project.objects.filter(account=job.account).count() == 1
    assert AuditEntry.objects.count() == audit_before


def test_contract_edit_on_an_active_project_is_refused_and_writes_nothing(web, job):
    page = web.get(change_url(job.project))
    data = form_data(page, "project_form")
    assert data["contract_amount"] == "8400000.00"
    audit_before = AuditEntry.objects.count()

    response = web.post(
        change_url(job.project), {**data, "contract_amount": "9,000,000.00", "name": "Renamed"}
    )

    assert response.status_code == 200
    assert (
        "The original contract can only change while the project is in bid; "
        "use an owner change order." in errors_of(response)
    )
    job.project.refresh_from_db()
    assert (job.project.contract_amount, job.project.name) == (840_000_000, "Bayview Clinic")
    assert AuditEntry.objects.count() == audit_before


def test_edits_allowed_by_the_service_are_saved_and_audited(web, job):
    bid = ProjectFactory(account=job.account, owner=job.owner, status="bid")
    old_name = bid.name
    data = form_data(web.get(change_url(bid)), "project_form")

    response = web.post(
        change_url(bid), {**data, "contract_amount": "1,250,000.50", "name": "Annex"}
    )

    assert response.status_code == 302, errors_of(response)
    bid.refresh_from_db()
    assert (bid.contract_amount, bid.name) == (125_000_050, "Annex")
    entry = AuditEntry.objects.filter(target_id=bid.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("updated", "user", "accountant")
    assert entry.changes == {
        "contract_amount": {"before": 100_000_00, "after": 125_000_050},
        "name": {"before": old_name, "after": "Annex"},
    }


def test_a_closed_project_refuses_every_edit(web, job):
    for status in ("closeout", "closed"):
        Project.objects.filter(pk=job.project.pk).update(status=status)
    data = form_data(web.get(change_url(job.project)), "project_form")
    audit_before = AuditEntry.objects.count()

    response = web.post(change_url(job.project), {**data, "name": "Renamed"})

    assert response.status_code == 200
    assert any("is closed" in e for e in errors_of(response))
    job.project.refresh_from_db()
    assert job.project.name == "Bayview Clinic"
    assert AuditEntry.objects.count() == audit_before


def _post_costs(job):
    """Costs that invoices and owner change orders (later issues) will post: moved the way
    those services will move them, with F() updates on the stored counters."""
    Project.objects.filter(pk=job.project.pk).update(
        approved_changes=F("approved_changes") + 150_000_00
    )
    BudgetLine.objects.filter(cost_code=job.concrete).update(actual=1_950_000_00)
    BudgetLine.objects.filter(cost_code=job.electrical).update(actual=600_000_00)


ROLLUP_FIELDS = {
    "revised_contract": "revised_contract_display",
    "cost_to_date": "cost_to_date_display",
    "projected_cost": "projected_cost_display",
    "billed_to_date": "billed_to_date_display",
    "earned_revenue": "earned_revenue_display",
    "over_under_billing": "over_under_billing_display",
}


def test_change_page_shows_the_rollups_the_api_returns(web, job):
    commitment_execute(commitment_id=job.subcontract.pk)
    budget_line_update(
        budget_line_id=job.electrical.budget_line.pk, changes={"cost_to_complete": 2_100_000_00}
    )
    _post_costs(job)
    _key, secret = make_key(job.account, "viewer")
    api = Api(secret).get(f"/v1/projects/{job.project.pk}").json()

    page = web.get(change_url(job.project))

    assert page.status_code == 200
    for api_field, admin_field in ROLLUP_FIELDS.items():
        assert readonly(page, admin_field) == accounting(api[api_field]), api_field
    assert (
        readonly(page, "percent_complete_display")
        == f"{Decimal(str(api['percent_complete'])):.2f}%"
    )
    assert (
        readonly(page, "projected_margin_display")
        == f"{Decimal(str(api['projected_margin_pct'])):.2f}%"
    )
    # The figures themselves (docs/computations.md), worked by hand.
    assert readonly(page, "revised_contract_display") == "$8,550,000.00"
    assert readonly(page, "cost_to_date_display") == "$2,550,000.00"
    assert readonly(page, "projected_cost_display") == "$7,900,000.00"
    assert readonly(page, "percent_complete_display") == "32.28%"
    assert readonly(page, "projected_margin_display") == "7.60%"
    # earned: 8,550,000.00 × 2,550,000.00 / 7,900,000.00 = 2,759,810.126… → 2,759,810.13
    # (exact; the rounded 32.28 % would give 2,759,940.00).
    assert readonly(page, "earned_revenue_display") == "$2,759,810.13"
    assert readonly(page, "over_under_billing_display") == "($2,759,810.13)"
    assert readonly(page, "approved_changes_display") == "$150,000.00"
    # The budget inline, one row per cost code.
    body = text(page)
    for figure in (
        "$5,000,000.00",
        "$5,200,000.00",
        "$1,950,000.00",
        "$3,250,000.00",
        "($200,000.00)",
    ):
        assert figure in body
    for figure in ("$2,500,000.00", "$600,000.00", "$2,100,000.00", "$2,700,000.00"):
        assert figure in body


def _act(web, action, *projects):
    return run_list_action(web, "/admin/jobcost/project/", action, projects)


def test_activate_from_the_list_asks_first_and_moves_nothing_until_confirmed(web, job):
    bid = ProjectFactory(account=job.account, owner=job.owner, number="J-0101", status="bid")
    entries = AuditEntry.objects.filter(target_id=bid.pk).count()

    asked = web.post(
        "/admin/jobcost/project/", {"action": "activate", "_selected_action": [bid.pk]}
    )

    page = text(asked)
    assert asked.status_code == 200 and 'id="reason_form"' in page
    assert "Activate projects" in page and str(bid) in page
    assert "contract amount" in page and "change orders" in page
    bid.refresh_from_db()
    assert bid.status == "bid"
    assert AuditEntry.objects.filter(target_id=bid.pk).count() == entries


def test_status_actions_follow_the_status_machine(web, job):
    bid = ProjectFactory(account=job.account, owner=job.owner, number="J-0100", status="bid")

    moved = _act(web, "activate", bid)
    assert ("success", f"{bid}: now active.") in messages_of(moved)
    bid.refresh_from_db()
    assert bid.status == "active"
    entry = AuditEntry.objects.filter(target_id=bid.pk).latest("created_at")
    assert entry.changes["status"] == {"before": "bid", "after": "active"}
    assert (entry.actor_type, entry.actor_id) == ("user", "accountant")

    refused = _act(web, "close", bid)
    assert ("error", f"{bid}: A project cannot move from 'active' to 'closed'.") in messages_of(
        refused
    )
    bid.refresh_from_db()
    assert bid.status == "active"

    _act(web, "move_to_closeout", bid, job.project)
    bid.refresh_from_db()
    job.project.refresh_from_db()
    assert (bid.status, job.project.status) == ("closeout", "closeout")
    _act(web, "reopen", bid)
    bid.refresh_from_db()
    assert bid.status == "active"

    closed = _act(web, "close", job.project, bid)
    assert ("success", f"{job.project}: closed.") in messages_of(closed)
    assert ("error", f"{bid}: A project cannot move from 'active' to 'closed'.") in messages_of(
        closed
    )
    job.project.refresh_from_db()
    assert job.project.status == "closed"

    audit_before = AuditEntry.objects.count()
    again = _act(web, "reopen", job.project)
    assert (
        "error",
        f"{job.project}: Project J-2401 is closed; it and its records can no longer change.",
    ) in messages_of(again)
    assert AuditEntry.objects.count() == audit_before


def test_a_post_that_fails_after_the_service_ran_writes_nothing(web, job):
    data = form_data(web.get(change_url(job.project)), "project_form")
    without_inline = {k: v for k, v in data.items() if not k.startswith("budget_lines-")}
    audit_before = AuditEntry.objects.count()

    response = web.post(change_url(job.project), {**without_inline, "name": "Renamed"})

    assert response.status_code == 200
    assert any("ManagementForm data is missing" in e for e in errors_of(response))
    job.project.refresh_from_db()
    assert job.project.name == "Bayview Clinic"
    assert AuditEntry.objects.count() == audit_before
