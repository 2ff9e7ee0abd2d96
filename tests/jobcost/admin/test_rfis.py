"""RFIs in the back office: raised and edited through `services.rfis` (an answer moves an
open RFI to answered), closed by an action, view-only once closed, with the change orders
that name them listed read-only."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEntry
from jobcost.models import Rfi
from jobcost.services.change_orders import change_order_create
from jobcost.services.projects import project_update
from jobcost.services.rfis import rfi_create, rfi_update
from tests.conftest import Api
from tests.factories import AccountFactory, ProjectFactory, make_job, make_key
from tests.jobcost.admin.pages import (
    act_on_list,
    admin_url,
    errors_of,
    form_data,
    messages_of,
    readonly,
    text,
)

LIST = "/admin/jobcost/rfi/"
ADD = "/admin/jobcost/rfi/add/"


@pytest.fixture
def money(db):
    """`make_job`'s active project (cost codes 01-000, 03-000, 09-000)."""
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    return job


def _raise(project, subject: str, **kwargs) -> Rfi:
    return rfi_create(project=project, subject=subject, question=f"{subject}?", **kwargs)


def _act(web, action, *rfis):
    """The action through its confirmation page (where it is the user's to run)."""
    return act_on_list(web, LIST, action, rfis)


def test_list_shows_rfis_with_filters_and_search(web, money):
    footing = _raise(money.project, "Footing depth at grid C", cost_impact=True)
    stair = _raise(money.project, "Stair nosing finish", due_date=datetime.date(2026, 4, 15))
    rfi_update(rfi_id=stair.pk, changes={"answer": "Use the aluminium nosing."})
    other = ProjectFactory(account=money.account, owner=money.project.owner, number="J-7000")
    elsewhere = _raise(other, "Roof drain size")

    response = web.get(LIST)

    assert response.status_code == 200
    page = text(response)
    for shown in ("RFI-001", "RFI-002", footing.subject, stair.subject, "Answered", "Open"):
        assert shown in page
    assert "April 15, 2026" in page
    answered = text(web.get(LIST, {"status__exact": "answered"}))
    assert stair.subject in answered and footing.subject not in answered
    by_project = text(web.get(LIST, {"project__id__exact": other.pk}))
    assert elsewhere.subject in by_project and footing.subject not in by_project
    by_subject = text(web.get(LIST, {"q": "nosing"}))
    assert stair.subject in by_subject and footing.subject not in by_subject
    costly = text(web.get(LIST, {"cost_impact__exact": "1"}))
    assert footing.subject in costly and stair.subject not in costly


def test_add_raises_an_rfi_through_the_service_with_an_audit_entry(web, money):
    form = web.get(ADD)
    assert form.status_code == 200
    assert f"{money.project} (Harbor Build Co)" in text(form)

    response = web.post(
        ADD,
        {
            "project": money.project.pk,
            "subject": "Embed plate conflict",
            "question": "Embed plates at level 2 clash with the rebar. Relocate?",
            "number": "",
            "due_date": "2026-05-01",
            "cost_impact": "on",
        },
    )

    assert response.status_code == 302, errors_of(response)
    rfi = Rfi.objects.get(subject="Embed plate conflict")
    assert (rfi.number, rfi.status, rfi.project_id, rfi.account_id, str(rfi.due_date)) == (
        "RFI-001",
        "open",
        money.project.pk,
        money.account.pk,
        "2026-05-01",
    )
    assert rfi.cost_impact is True
    entry = AuditEntry.objects.get(target_id=rfi.pk)
    assert (entry.action, entry.actor_type, entry.actor_id) == ("created", "user", "accountant")
    _key, secret = make_key(money.account, "viewer")
    shown = Api(secret).get(f"/v1/rfis/{rfi.pk}").json()
    assert (shown["number"], shown["status"], shown["cost_impact"]) == ("RFI-001", "open", True)


def test_add_with_a_taken_number_shows_the_service_message_and_writes_nothing(web, money):
    _raise(money.project, "First", number="RFI-A")
    audit_before = AuditEntry.objects.count()

    response = web.post(
        ADD,
        {
            "project": money.project.pk,
            "subject": "Second",
            "question": "Again?",
            "number": "RFI-A",
        },
    )

    assert response.status_code == 200
    assert errors_of(response) == ["An RFI numbered 'RFI-A' already exists on this project."]
    assert list(Rfi.objects.values_list("subject", flat=True)) == ["First"]
    assert AuditEntry.objects.count() == audit_before


def test_answering_on_the_change_page_moves_the_rfi_to_answered(web, money):
    rfi = _raise(money.project, "Slab edge detail")
    page = web.get(admin_url(rfi))
    assert page.status_code == 200
    assert readonly(page, "status") == "Open"
    data = form_data(page, "rfi_form")

    response = web.post(admin_url(rfi), {**data, "answer": "Per detail 5/S-301."})

    assert response.status_code == 302, errors_of(response)
    rfi.refresh_from_db()
    assert (rfi.status, rfi.answer) == ("answered", "Per detail 5/S-301.")
    assert rfi.answered_at is not None
    entry = AuditEntry.objects.filter(target_id=rfi.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("answered", "user", "accountant")
    assert entry.changes["status"] == {"before": "open", "after": "answered"}
    assert readonly(web.get(admin_url(rfi)), "status") == "Answered"


def test_clearing_an_answer_is_refused_on_the_answer_field(web, money):
    rfi = _raise(money.project, "Door hardware")
    rfi_update(rfi_id=rfi.pk, changes={"answer": "Use set 4."})
    audit_before = AuditEntry.objects.count()
    data = form_data(web.get(admin_url(rfi)), "rfi_form")

    response = web.post(admin_url(rfi), {**data, "answer": "", "subject": "Renamed"})

    assert response.status_code == 200
    assert errors_of(response) == ["An answered RFI's answer cannot be cleared."]
    assert 'class="form-row errors field-answer"' in response.content.decode()
    rfi.refresh_from_db()
    assert (rfi.status, rfi.answer, rfi.subject) == ("answered", "Use set 4.", "Door hardware")
    assert AuditEntry.objects.count() == audit_before


def test_close_action_closes_and_a_closed_rfi_is_view_only(web, money):
    answered = _raise(money.project, "Curtain wall anchors")
    rfi_update(rfi_id=answered.pk, changes={"answer": "Use the cast-in channels."})
    withdrawn = _raise(money.project, "Paint colour")

    response = _act(web, "close", answered, withdrawn)

    assert set(messages_of(response)) == {
        ("success", f"{answered}: closed."),
        ("success", f"{withdrawn}: closed."),
    }
    assert dict(Rfi.objects.values_list("subject", "status")) == {
        answered.subject: "closed",
        withdrawn.subject: "closed",
    }
    entry = AuditEntry.objects.filter(target_id=answered.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("closed", "user", "accountant")

    page = web.get(admin_url(answered))
    assert page.status_code == 200
    assert readonly(page, "status") == "Closed"
    assert readonly(page, "answer") == "Use the cast-in channels."
    assert 'name="_save"' not in page.content.decode()
    assert web.post(admin_url(answered), {"subject": "Renamed"}).status_code == 403
    answered.refresh_from_db()
    assert answered.subject == "Curtain wall anchors"

    audit_before = AuditEntry.objects.count()
    again = _act(web, "close", answered)
    assert messages_of(again) == [("error", f"{answered}: Cannot close an RFI that is closed.")]
    assert AuditEntry.objects.count() == audit_before


def test_change_page_lists_the_linked_change_orders_read_only(web, money):
    rfi = _raise(money.project, "Added footing")
    change_order = change_order_create(
        project=money.project,
        kind="owner",
        title="Footing at grid D",
        amount=1_234_50,
        lines=[{"cost_code": money.codes["03-000"], "amount": 1_234_50}],
        rfi=rfi,
    )
    unrelated = change_order_create(
        project=money.project,
        kind="owner",
        title="Unrelated paving",
        amount=500_00,
        lines=[{"cost_code": money.codes["09-000"], "amount": 500_00}],
    )

    page = web.get(admin_url(rfi))

    assert page.status_code == 200
    body = text(page)
    assert "Linked change orders" in body
    assert change_order.title in body and "$1,234.50" in body
    assert unrelated.title not in body
    assert admin_url(change_order) in page.content.decode()
    assert 'name="change_orders-0-title"' not in page.content.decode()
    # Saving the RFI leaves the change order as it was.
    data = form_data(page, "rfi_form")
    saved = web.post(admin_url(rfi), {**data, "due_date": "2026-06-30"})
    assert saved.status_code == 302, errors_of(saved)
    rfi.refresh_from_db()
    change_order.refresh_from_db()
    assert (str(rfi.due_date), change_order.rfi_id, change_order.title) == (
        "2026-06-30",
        rfi.pk,
        "Footing at grid D",
    )


def test_close_refuses_on_a_closed_project(web, money):
    rfi = _raise(money.project, "Late question")
    for status in ("closeout", "closed"):
        project_update(project_id=money.project.pk, changes={"status": status})

    response = _act(web, "close", rfi)

    assert messages_of(response) == [
        (
            "error",
            f"{rfi}: Project {money.project.number} is closed; it and its records can "
            "no longer change.",
        )
    ]
    rfi.refresh_from_db()
    assert rfi.status == "open"


def _list_queries(web) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert web.get(LIST).status_code == 200
    return len(captured)


def test_list_costs_the_same_queries_whatever_the_rows(web, money):
    _raise(money.project, "One")
    before = _list_queries(web)
    for _ in range(2):
        other = make_job(AccountFactory())
        _raise(other.project, "Two")
        _raise(other.project, "Three")
    assert _list_queries(web) == before
