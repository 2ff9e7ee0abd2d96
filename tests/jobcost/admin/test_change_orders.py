"""Change orders in the back office: view-only pages with the lines inline in dollars, and
submit / approve / reject / void as actions with the API's rules and money effects."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEntry
from jobcost.admin.display import dollars
from jobcost.models import BudgetLine, ChangeOrder, Commitment
from tests.conftest import Api
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    ProjectFactory,
    make_change_order,
    make_job,
    make_key,
    make_pay_app,
)
from tests.jobcost.admin.pages import admin_url, form_data, messages_of, readonly, text

LIST = "/admin/jobcost/changeorder/"


@pytest.fixture
def money(db):
    """`make_job`'s $100,000.00 project with an executed $10,000.00 subcontract on 03-000."""
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    return job


def _act(web, action, *orders, confirm=True, reason=None):
    """Run a list action; each shows a confirmation page first, which is confirmed (with
    `reason`) unless `confirm` is False (then the page is returned)."""
    page = web.post(
        LIST, {"action": action, "_selected_action": [o.pk for o in orders]}, follow=True
    )
    if not confirm or 'id="reason_form"' not in page.content.decode():
        return page
    data = form_data(page, "reason_form")
    if reason is not None:
        data["reason"] = reason
    return web.post(LIST, data, follow=True)


def _api_of(account, change_order) -> dict:
    _key, secret = make_key(account, "viewer")
    response = Api(secret).get(f"/v1/change-orders/{change_order.pk}")
    assert response.status_code == 200
    return response.json()


def _budget(job, code) -> BudgetLine:
    return BudgetLine.objects.get(cost_code=job.codes[code])


def test_list_shows_change_orders_in_dollars_with_filters_and_search(web, money):
    added = make_change_order(
        money.project, cost_code=money.codes["03-000"], amount=600_000, status="approved"
    )
    deduct = make_change_order(
        money.project,
        cost_code=money.codes["03-000"],
        amount=-123_450,
        kind="commitment",
        commitment=money.commitment,
        status="pending",
    )

    page = text(web.get(LIST))

    assert "$6,000.00" in page and "($1,234.50)" in page
    assert 'field-amount_display">$6,000.00<' in web.get(LIST).content.decode()
    for shown in ("CO-001", "CCO-001", "Owner (prime contract)", "Approved", "Pending"):
        assert shown in page
    approved = text(web.get(LIST, {"status__exact": "approved"}))
    assert "CO-001" in approved and "CCO-001" not in approved
    by_kind = text(web.get(LIST, {"kind__exact": "commitment"}))
    assert "CCO-001" in by_kind and "Change of 600000 cents" not in by_kind
    by_title = text(web.get(LIST, {"q": "of 600000"}))
    assert added.title in by_title and deduct.title not in by_title
    by_number = text(web.get(LIST, {"q": "CCO-001"}))
    assert deduct.title in by_number and added.title not in by_number
    other = ProjectFactory(account=money.account, owner=money.project.owner)
    by_project = text(web.get(LIST, {"project__id__exact": other.pk}))
    assert added.title not in by_project and "0 change orders" in by_project


def test_a_pending_change_order_shows_its_lines_read_only_in_dollars(web, money):
    change_order = make_change_order(
        money.project,
        cost_code=money.codes["03-000"],
        amount=600_000,
        budget_amount=540_000,
        status="pending",
    )

    page = web.get(admin_url(change_order))

    assert page.status_code == 200
    assert readonly(page, "amount_display") == "$6,000.00"
    assert readonly(page, "status") == "Pending"
    assert readonly(page, "pay_app_link") == "—"
    body = text(page)
    assert "$5,400.00" in body  # the budget change of the line
    assert "03-000 Concrete" in body
    assert 'name="_save"' not in body
    # The lines are the read-only table, not entry boxes.
    assert 'name="lines-0-amount"' not in body and 'name="lines-0-cost_code"' not in body


def test_a_save_posted_to_an_approved_change_order_is_refused_in_words(web, money):
    change_order = make_change_order(
        money.project, cost_code=money.codes["03-000"], amount=600_000, status="approved"
    )
    entries = AuditEntry.objects.filter(target_id=change_order.pk).count()

    refused = web.post(admin_url(change_order), {"title": "Renamed"}, follow=True)

    assert refused.status_code == 200
    assert messages_of(refused) == [
        (
            "error",
            f"{change_order} is approved: only a draft change order can be edited. Nothing "
            "was saved; a further change needs a new change order.",
        )
    ]
    assert "permission" not in text(refused).lower()
    change_order.refresh_from_db()
    assert change_order.title != "Renamed"
    assert AuditEntry.objects.filter(target_id=change_order.pk).count() == entries


def test_approving_an_owner_change_order_moves_the_contract_budget_and_pay_app(web, money):
    draft_pay_app = make_pay_app(money.project, "2026-01-01", "2026-01-31")
    change_order = make_change_order(
        money.project, cost_code=money.codes["03-000"], amount=600_000, budget_amount=540_000
    )

    response = _act(web, "approve", change_order)

    assert messages_of(response) == [("success", f"{change_order}: approved.")]
    change_order.refresh_from_db()
    assert (change_order.status, change_order.approved_by, change_order.pay_app_id) == (
        "approved",
        "accountant",
        draft_pay_app.pk,
    )
    money.project.refresh_from_db()
    assert money.project.approved_changes == 600_000
    assert _budget(money, "03-000").approved_changes == 540_000
    assert list(
        draft_pay_app.lines.filter(change_order=change_order).values_list("item", "scheduled_value")
    ) == [("CO-001", 600_000)]
    api = _api_of(money.account, change_order)
    assert (api["status"], api["pay_app"], api["approved_by"]) == (
        "approved",
        draft_pay_app.pk,
        "accountant",
    )
    page = web.get(admin_url(change_order))
    assert readonly(page, "pay_app_link") == str(draft_pay_app)
    entry = AuditEntry.objects.filter(target_id=change_order.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("approved", "user", "accountant")
    project_entry = AuditEntry.objects.filter(target_id=money.project.pk).latest("created_at")
    assert project_entry.changes["approved_changes"] == {"before": 0, "after": 600_000}
    assert (project_entry.actor_type, project_entry.actor_id) == ("user", "accountant")


def test_approving_a_commitment_change_order_moves_the_commitment_and_committed(web, money):
    change_order = make_change_order(
        money.project,
        cost_code=money.codes["03-000"],
        amount=250_000,
        kind="commitment",
        commitment=money.commitment,
        status="pending",
    )

    response = _act(web, "approve", change_order)

    assert messages_of(response) == [("success", f"{change_order}: approved.")]
    commitment = Commitment.objects.get(pk=money.commitment.pk)
    assert (commitment.approved_changes, commitment.revised_amount) == (250_000, 1_250_000)
    assert _budget(money, "03-000").committed == 1_250_000
    money.project.refresh_from_db()
    assert money.project.approved_changes == 0


def test_approve_refuses_a_draft_commitment_and_a_void_change_order(web, money):
    draft = CommitmentFactory(
        project=money.project, vendor=money.vendor, cost_code=money.codes["09-000"]
    )
    on_draft = make_change_order(
        money.project,
        cost_code=money.codes["09-000"],
        amount=100_000,
        kind="commitment",
        commitment=draft,
    )
    voided = make_change_order(money.project, cost_code=money.codes["01-000"], amount=5_000)
    assert messages_of(_act(web, "void", voided)) == [("success", f"{voided}: voided.")]
    entry = AuditEntry.objects.filter(target_id=voided.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("voided", "user", "accountant")
    audit_before = AuditEntry.objects.count()

    response = _act(web, "approve", on_draft, voided)

    assert set(messages_of(response)) == {
        (
            "error",
            f"{on_draft}: Commitment {draft.number} is draft; change it directly while "
            "draft, or execute it first.",
        ),
        ("error", f"{voided}: Cannot approve a change order that is void."),
    }
    assert set(ChangeOrder.objects.values_list("number", "status")) == {
        (on_draft.number, "draft"),
        (voided.number, "void"),
    }
    draft.refresh_from_db()
    assert draft.approved_changes == 0
    assert _budget(money, "01-000").approved_changes == 0
    assert AuditEntry.objects.count() == audit_before


def test_submit_then_reject_with_an_optional_reason(web, money):
    change_order = make_change_order(money.project, cost_code=money.codes["01-000"], amount=5_000)

    assert messages_of(_act(web, "submit", change_order)) == [
        ("success", f"{change_order}: submitted for approval (pending).")
    ]
    page = _act(web, "reject", change_order, confirm=False)
    assert page.status_code == 200
    data = form_data(page, "reason_form")
    done = web.post(LIST, {**data, "reason": "Owner declined the upgrade."}, follow=True)

    assert messages_of(done) == [("success", f"{change_order}: rejected.")]
    change_order.refresh_from_db()
    assert (change_order.status, change_order.rejection_reason) == (
        "rejected",
        "Owner declined the upgrade.",
    )
    entries = AuditEntry.objects.filter(target_id=change_order.pk).order_by("created_at", "id")
    assert [(e.action, e.actor_type, e.actor_id) for e in entries] == [
        ("created", "system", None),
        ("submitted", "user", "accountant"),
        ("rejected", "user", "accountant"),
    ]
    assert entries.last().note == "Owner declined the upgrade."

    other = make_change_order(
        money.project, cost_code=money.codes["01-000"], amount=7_000, status="pending"
    )
    without = _act(web, "reject", other)
    assert messages_of(without) == [("success", f"{other}: rejected.")]
    other.refresh_from_db()
    assert (other.status, other.rejection_reason) == ("rejected", "")


def test_reject_and_submit_refuse_with_the_service_message(web, money):
    draft = make_change_order(money.project, cost_code=money.codes["01-000"], amount=5_000)
    approved = make_change_order(
        money.project, cost_code=money.codes["01-000"], amount=6_000, status="approved"
    )
    audit_before = AuditEntry.objects.count()

    data = form_data(_act(web, "reject", draft, confirm=False), "reason_form")
    rejected = web.post(LIST, {**data, "reason": "No."}, follow=True)
    submitted = _act(web, "submit", approved)
    voided = _act(web, "void", approved)

    assert messages_of(rejected) == [
        ("error", f"{draft}: Cannot reject a change order that is draft.")
    ]
    assert messages_of(submitted) == [
        ("error", f"{approved}: Cannot submit a change order that is approved.")
    ]
    assert messages_of(voided) == [
        ("error", f"{approved}: Cannot void a change order that is approved.")
    ]
    assert dict(ChangeOrder.objects.values_list("number", "status")) == {
        draft.number: "draft",
        approved.number: "approved",
    }
    assert AuditEntry.objects.count() == audit_before


def test_api_and_admin_show_the_same_amount(web, money):
    change_order = make_change_order(
        money.project, cost_code=money.codes["09-000"], amount=-98_765, status="pending"
    )
    api = _api_of(money.account, change_order)
    page = web.get(admin_url(change_order))
    assert dollars(api["amount"]) == "-$987.65"
    assert readonly(page, "amount_display") == "($987.65)"


def _list_queries(web) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert web.get(LIST).status_code == 200
    return len(captured)


def test_list_costs_the_same_queries_whatever_the_rows(web, money):
    make_pay_app(money.project, "2026-01-01", "2026-01-31")
    make_change_order(money.project, cost_code=money.codes["03-000"], amount=1, status="approved")
    before = _list_queries(web)
    for _ in range(2):
        other = make_job(AccountFactory())
        make_pay_app(other.project, "2026-01-01", "2026-01-31")
        make_change_order(
            other.project, cost_code=other.codes["03-000"], amount=1, status="approved"
        )
        make_change_order(
            other.project,
            cost_code=other.codes["03-000"],
            amount=2,
            kind="commitment",
            commitment=other.commitment,
        )
    assert ChangeOrder.objects.count() == 5
    assert _list_queries(web) == before
