"""Change orders entered in the back office: a draft and its lines in one form, saved by one
service call; the lines-sum rule at the lines; moves behind confirmation pages
(docs/backoffice/change-orders.md)."""

from __future__ import annotations

import pytest
from django.contrib.admin.utils import quote
from django.urls import reverse

from audit.models import AuditEntry
from jobcost.models import ChangeOrder, Project
from tests.factories import AccountFactory, make_change_order, make_job, make_pay_app
from tests.jobcost.admin.pages import (
    admin_url,
    errors_of,
    form_data,
    member_client,
    messages_of,
    text,
)

ADD = "/admin/jobcost/changeorder/add/"


@pytest.fixture
def money(db):
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    return job


def _lines(data: dict, *rows: tuple) -> dict:
    """Fill the form's line rows: (cost code pk, description, amount, budget change)."""
    for index, (code, description, amount, budget) in enumerate(rows):
        data[f"lines-{index}-cost_code"] = code
        data[f"lines-{index}-description"] = description
        data[f"lines-{index}-amount"] = amount
        data[f"lines-{index}-budget_amount"] = budget
    return data


def _owner_order(web, money, amount: str, *rows: tuple):
    data = form_data(web.get(ADD), "changeorder_form")
    data.update(
        {
            "project": money.project.pk,
            "kind": "owner",
            "title": "Storm drainage at the north lot",
            "amount": amount,
        }
    )
    return web.post(ADD, _lines(data, *rows))


def test_an_owner_change_order_is_created_with_its_lines_in_cents(web, money):
    response = _owner_order(
        web,
        money,
        "1,500.00",
        (money.codes["03-000"].pk, "Inlets and pipe", "$1,000.00", "900"),
        (money.codes["09-000"].pk, "Patch and paint", "500.00", ""),
    )

    assert response.status_code == 302, errors_of(response)
    change_order = ChangeOrder.objects.get()
    assert (change_order.number, change_order.status, change_order.amount) == (
        "CO-001",
        "draft",
        150_000,
    )
    lines = list(
        change_order.lines.order_by("position").values_list(
            "cost_code__code", "description", "amount", "budget_amount"
        )
    )
    assert lines == [
        ("03-000", "Inlets and pipe", 100_000, 90_000),
        ("09-000", "Patch and paint", 50_000, 50_000),
    ]
    entry = AuditEntry.objects.get(target_id=change_order.pk, action="created")
    assert (entry.actor_type, entry.actor_id) == ("user", "accountant")


def test_lines_that_do_not_add_up_are_refused_at_the_lines_and_nothing_is_written(web, money):
    audit_before = AuditEntry.objects.count()

    response = _owner_order(
        web,
        money,
        "1,500.00",
        (money.codes["03-000"].pk, "Inlets", "1000", ""),
        (money.codes["09-000"].pk, "Paint", "400", ""),
    )

    assert response.status_code == 200
    assert "The lines add up to $1,400.00, but the change order is for $1,500.00." in text(response)
    assert "Correct the lines below." in errors_of(response)
    assert not ChangeOrder.objects.exists()
    assert AuditEntry.objects.count() == audit_before


def test_a_line_needs_its_cost_code_and_amount(web, money):
    response = _owner_order(web, money, "100", ("", "Something", "100", ""))

    assert response.status_code == 200
    assert "Choose the cost code this line changes." in errors_of(response)
    assert not ChangeOrder.objects.exists()


def test_a_cost_code_of_another_project_is_refused_on_its_line(web, money):
    other = make_job(money.account)

    response = _owner_order(
        web,
        money,
        "100",
        (money.codes["03-000"].pk, "Ours", "60", ""),
        (other.codes["03-000"].pk, "Theirs", "40", ""),
    )

    assert response.status_code == 200
    assert "The cost code belongs to another project." in errors_of(response)
    assert not ChangeOrder.objects.exists()


def test_another_accounts_cost_code_is_not_a_choice(money):
    stranger = make_job(AccountFactory(name="Ridgeline"))
    client = member_client(money.account, "member")
    page = client.get(ADD)
    assert stranger.codes["03-000"].pk not in page.content.decode()
    assert stranger.project.pk not in page.content.decode()

    data = form_data(page, "changeorder_form")
    data.update({"project": money.project.pk, "kind": "owner", "title": "X", "amount": "10"})
    response = client.post(ADD, _lines(data, (stranger.codes["03-000"].pk, "x", "10", "")))

    assert response.status_code == 200
    assert any("Select a valid choice" in e for e in errors_of(response))
    assert not ChangeOrder.objects.exists()


def test_a_draft_is_edited_with_its_lines(web, money):
    change_order = make_change_order(money.project, cost_code=money.codes["01-000"], amount=5_000)
    page = web.get(admin_url(change_order))
    data = form_data(page, "changeorder_form")
    assert data["amount"] == "50.00" and data["lines-0-amount"] == "50.00"
    data.update({"amount": "75.25", "lines-0-amount": "50.00"})
    _lines(data, (money.codes["01-000"].pk, "First", "50.00", ""))
    data.update(
        {
            "lines-1-cost_code": money.codes["09-000"].pk,
            "lines-1-description": "Second",
            "lines-1-amount": "25.25",
        }
    )

    response = web.post(admin_url(change_order), data)

    assert response.status_code == 302, errors_of(response)
    change_order.refresh_from_db()
    assert change_order.amount == 7_525
    assert list(change_order.lines.order_by("position").values_list("amount", flat=True)) == [
        5_000,
        2_525,
    ]


def _confirm(client, change_order, slug: str, data=None):
    url = reverse(f"admin:jobcost_changeorder_{slug}", args=[quote(change_order.pk)])
    return client.get(url), client.post(url, data or {}, follow=True)


def test_submit_then_approve_on_the_page_moves_the_revised_contract(money):
    draft_pay_app = make_pay_app(money.project, "2026-01-01", "2026-01-31")
    change_order = make_change_order(
        money.project, cost_code=money.codes["03-000"], amount=600_000, budget_amount=540_000
    )
    member = member_client(money.account, "member")
    page = member.get(admin_url(change_order))
    assert ">Submit</a>" in page.content.decode()
    assert ">Approve</a>" not in page.content.decode()
    shown, done = _confirm(member, change_order, "submit")
    assert ">Confirm</button>" in shown.content.decode()
    assert messages_of(done)[0][0] == "success"
    change_order.refresh_from_db()
    assert change_order.status == "pending"

    manager = member_client(money.account, "manager")
    shown, done = _confirm(manager, change_order, "approve")
    body = text(shown)
    assert "Revised contract now" in body and "$100,000.00" in body
    assert "After approval" in body and "$106,000.00" in body
    assert "03-000 Concrete" in body and "$5,400.00" in body

    assert messages_of(done) == [("success", f"{change_order}: Approved.")]
    project = Project.objects.get(pk=money.project.pk)
    assert project.approved_changes == 600_000
    assert draft_pay_app.lines.filter(change_order=change_order).get().scheduled_value == 600_000


def test_a_viewer_cannot_add_and_gets_an_html_page(money):
    viewer = member_client(money.account, "viewer")

    response = viewer.get(ADD)

    assert response.status_code == 403
    assert response["Content-Type"].startswith("text/html")
    assert "Your role does not allow this." in text(response)
