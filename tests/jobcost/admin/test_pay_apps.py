"""Pay apps in the back office: created through `pay_app_create`, read with the API's G702
figures and a G703 inline in dollars, moved by actions through `services.pay_apps`.

The series is docs/computations.md's worked example (tests/jobcost/api/test_g702_worked_example.py):
contract 10,000,000 cents at 10 % retainage; pay app #1 bills 500,000 on item 1 and
1,000,000 on item 2 and is certified; CO-001 (+600,000, owner) lands on pay app #2, which
bills 500,000 / 1,500,000 / 400,000 stored on item 3 / 200,000 on CO-001.
"""

import datetime
import re
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEntry
from jobcost.admin.display import dollars
from jobcost.models import PayApp
from jobcost.services.pay_apps import pay_app_approve, pay_app_submit, pay_app_update
from tests.conftest import Api
from tests.factories import (
    AccountFactory,
    make_change_order,
    make_invoice,
    make_job,
    make_key,
    make_pay_app,
)
from tests.jobcost.admin.pages import admin_url, errors_of, form_data, messages_of, readonly, text

LIST = "/admin/jobcost/payapp/"
ADD = "/admin/jobcost/payapp/add/"
G702_FIELDS = [
    "original_contract_sum",
    "net_change_by_change_orders",
    "contract_sum_to_date",
    "total_completed_and_stored",
    "retainage_completed_work",
    "retainage_stored_materials",
    "total_retainage",
    "total_earned_less_retainage",
    "less_previous_certificates",
    "current_payment_due",
    "balance_to_finish_including_retainage",
    "work_this_period",
    "retainage_this_period",
]


@pytest.fixture
def money(db):
    """`make_job`'s balanced $100,000.00 project with an executed $10,000.00 subcontract."""
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    return job


def _api(account) -> Api:
    _key, secret = make_key(account, "viewer")
    return Api(secret)


def _act(web, action, *pay_apps, confirm=True, reason=None):
    """Run a changelist action; each shows a confirmation page first, which is confirmed
    (with `reason`) unless `confirm` is False (then the page is returned)."""
    page = web.post(
        LIST, {"action": action, "_selected_action": [p.pk for p in pay_apps]}, follow=True
    )
    if not confirm or 'id="reason_form"' not in page.content.decode():
        return page
    assert "Confirm" in text(page)
    data = form_data(page, "reason_form")
    if reason is not None:
        data["reason"] = reason
    return web.post(LIST, data, follow=True)


def _series(job):
    """Pay app #1 certified, #2 the draft with CO-001 on it and the period entered."""
    first = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    pay_app_update(
        pay_app_id=first.pk,
        lines=[{"item": "1", "this_period": 500_000}, {"item": "2", "this_period": 1_000_000}],
    )
    pay_app_submit(pay_app_id=first.pk)
    pay_app_approve(pay_app_id=first.pk)
    second = make_pay_app(job.project, "2026-02-01", "2026-02-28")
    co = make_change_order(
        job.project,
        cost_code=job.codes["03-000"],
        amount=600_000,
        budget_amount=540_000,
        status="approved",
    )
    pay_app_update(
        pay_app_id=second.pk,
        lines=[
            {"item": "1", "this_period": 500_000},
            {"item": "2", "this_period": 1_500_000},
            {"item": "3", "materials_stored": 400_000},
            {"item": co.number, "this_period": 200_000},
        ],
    )
    return first, second, co


def test_change_page_shows_the_g702_the_api_returns(web, money):
    _first, second, co = _series(money)
    api = _api(money.account).get(f"/v1/pay-apps/{second.pk}").json()

    page = web.get(admin_url(second))

    assert page.status_code == 200
    for name in G702_FIELDS:
        assert readonly(page, f"{name}_display") == dollars(api[name]), name
    # docs/computations.md worked by hand: lines 1-9 and the period's work.
    shown = [readonly(page, f"{name}_display") for name in G702_FIELDS]
    assert shown == [
        "$100,000.00",
        "$6,000.00",
        "$106,000.00",
        "$41,000.00",
        "$3,700.00",
        "$400.00",
        "$4,100.00",
        "$36,900.00",
        "$13,500.00",
        "$23,400.00",
        "$69,100.00",
        "$22,000.00",
        "$2,200.00",
    ]
    # One "due" figure: line 8; the API's net due this period is not shown beside it.
    assert "Net due" not in text(page)
    assert readonly(page, "status") == "Draft"
    assert readonly(page, "lien_waivers_missing_display") == "None"
    assert co.number in text(page)


def _g703(page) -> dict[str, list[str]]:
    """The G703 grid's rows: item → [C, D, E, F, G, G/C, H, I] as shown (an entry box of a
    draft reads as the dollars it holds)."""
    body = page.content.decode()
    body = body[body.index('id="g703-grid"') :]
    columns = [
        "scheduled_value",
        "previous",
        "this_period",
        "materials_stored",
        "total_completed_and_stored",
        "percent_complete",
        "balance_to_finish",
        "retainage",
    ]
    rows = {}
    for item, row in re.findall(
        r'<tr data-code="[^"]*" data-item="([^"]*)"[^>]*>(.*?)</tr>', body, re.S
    ):

        def cell(name, row=row):
            found = re.search(rf'<td[^>]*data-column="{name}">(.*?)</td>', row, re.S)
            entry = re.search(r'<input class="money"[^>]*value="([^"]*)"', found.group(1))
            if entry:
                return dollars(int(Decimal(entry.group(1)) * 100))
            return re.sub(r"<[^>]+>", "", found.group(1)).strip()

        rows[item] = [cell(name) for name in columns]
    return rows


def test_the_g703_grid_shows_every_column_in_dollars(web, money):
    _first, second, co = _series(money)

    rows = _g703(web.get(admin_url(second)))

    # C scheduled, D previous, E this period, F stored, G total, G/C, H balance, I retainage
    assert rows == {
        "1": [
            "$20,000.00",
            "$5,000.00",
            "$5,000.00",
            "$0.00",
            "$10,000.00",
            "50.00%",
            "$10,000.00",
            "$1,000.00",
        ],
        "2": [
            "$50,000.00",
            "$10,000.00",
            "$15,000.00",
            "$0.00",
            "$25,000.00",
            "50.00%",
            "$25,000.00",
            "$2,500.00",
        ],
        "3": [
            "$30,000.00",
            "$0.00",
            "$0.00",
            "$4,000.00",
            "$4,000.00",
            "13.33%",
            "$26,000.00",
            "$400.00",
        ],
        co.number: [
            "$6,000.00",
            "$0.00",
            "$2,000.00",
            "$0.00",
            "$2,000.00",
            "33.33%",
            "$4,000.00",
            "$200.00",
        ],
    }
    lines = _api(money.account).get(f"/v1/pay-apps/{second.pk}/lines").json()["data"]
    for line in lines:
        assert rows[line["item"]][4] == dollars(line["total_completed_and_stored"])
        assert rows[line["item"]][7] == dollars(line["retainage"])


def test_list_shows_the_api_figures_and_missing_waivers(web, money):
    _first, second, _co = _series(money)
    for number, amount, day in (("A-1", 300_000, "2026-02-10"), ("A-2", 100_000, "2026-02-11")):
        make_invoice(
            money.commitment, amount=amount, number=number, invoice_date=day, status="approved"
        )
    api = _api(money.account).get(f"/v1/pay-apps/{second.pk}").json()
    assert api["lien_waivers_missing"] == [money.vendor.pk]

    page = text(web.get(LIST))

    assert dollars(api["contract_sum_to_date"]) == "$106,000.00"
    assert dollars(api["total_completed_and_stored"]) == "$41,000.00"
    assert dollars(api["current_payment_due"]) == "$23,400.00"
    for figure in ("$106,000.00", "$41,000.00", "$23,400.00", "$100,000.00", "$15,000.00"):
        assert figure in page
    assert "2026-02-01 – 2026-02-28" in page
    assert 'field-waivers_missing">1<' in web.get(LIST).content.decode()
    detail = web.get(admin_url(second))
    assert readonly(detail, "lien_waivers_missing_display") == "Acme Concrete"
    by_status = text(web.get(LIST, {"status__exact": "approved"}))
    assert "2026-01-01 – 2026-01-31" in by_status and "2026-02-01" not in by_status


def _list_queries(web) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert web.get(LIST).status_code == 200
    return len(captured)


def test_list_costs_the_same_queries_whatever_the_rows(web, money):
    _series(money)
    before = _list_queries(web)
    for _ in range(2):
        other = make_job(AccountFactory())
        make_pay_app(other.project, "2026-01-01", "2026-01-31", status="approved")
        make_invoice(other.commitment, amount=1_000, number="X", invoice_date="2026-02-03")
        make_pay_app(other.project, "2026-02-01", "2026-02-28")
    assert PayApp.objects.count() == 6
    assert _list_queries(web) == before


def _waiver_pending(job):
    """A draft for February with an approved invoice dated in it: its waiver is missing."""
    pay_app = make_pay_app(job.project, "2026-02-01", "2026-02-28")
    make_invoice(
        job.commitment, amount=300_000, number="A-7", invoice_date="2026-02-10", status="approved"
    )
    return pay_app


def test_submit_refuses_missing_waivers_with_the_service_message(web, money):
    pay_app = _waiver_pending(money)
    audit_before = AuditEntry.objects.count()

    response = _act(web, "submit", pay_app)

    assert messages_of(response) == [
        (
            "error",
            f"{pay_app}: Lien waivers for this period are missing from: Acme Concrete. Record "
            "them, or use “Submit over missing waivers” and give the reason.",
        )
    ]
    pay_app.refresh_from_db()
    assert (pay_app.status, pay_app.submitted_at, pay_app.certified_total_completed) == (
        "draft",
        None,
        None,
    )
    assert AuditEntry.objects.count() == audit_before


def test_submit_override_lands_on_the_audit_trail_as_the_user(web, money):
    pay_app = _waiver_pending(money)
    pay_app_update(pay_app_id=pay_app.pk, lines=[{"item": "2", "this_period": 300_000}])

    asked = _act(web, "submit_overriding_waivers", pay_app, confirm=False)
    assert "Submit pay apps over missing lien waivers" in text(asked)
    blank = _act(web, "submit_overriding_waivers", pay_app, reason=" ")
    assert errors_of(blank) == ["This field is required."]
    pay_app.refresh_from_db()
    assert pay_app.status == "draft"

    response = _act(web, "submit_overriding_waivers", pay_app, reason="Waiver promised Monday.")

    assert messages_of(response) == [
        (
            "success",
            f"{pay_app}: submitted to the owner over missing lien waivers; the reason is on "
            "the audit trail.",
        )
    ]
    pay_app.refresh_from_db()
    assert pay_app.status == "submitted"
    assert (pay_app.certified_total_completed, pay_app.certified_earned_less_retainage) == (
        300_000,
        270_000,
    )
    note = (
        f"Submitted with lien waivers missing (override) from: Acme Concrete ({money.vendor.pk})."
        " Reason: Waiver promised Monday."
    )
    entries = AuditEntry.objects.filter(
        target_id=pay_app.pk, action__in=["submitted", "waiver_override"]
    )
    assert sorted((e.action, e.actor_type, e.actor_id, e.note) for e in entries) == [
        ("submitted", "user", "accountant", note),
        ("waiver_override", "user", "accountant", note),
    ]
    override = entries.get(action="waiver_override")
    assert override.changes == {
        "lien_waivers_missing": {"before": None, "after": [money.vendor.pk]}
    }
    # The project's billed_to_date now reads line 4 of this submitted application.
    project = _api(money.account).get(f"/v1/projects/{money.project.pk}").json()
    assert project["billed_to_date"] == 300_000


def test_submit_approve_and_mark_paid_follow_the_status_machine(web, money):
    pay_app = make_pay_app(money.project, "2026-01-01", "2026-01-31")

    assert messages_of(_act(web, "approve", pay_app)) == [
        ("error", f"{pay_app}: Cannot approve a pay app that is draft.")
    ]
    assert messages_of(_act(web, "submit", pay_app)) == [
        ("success", f"{pay_app}: submitted to the owner.")
    ]
    assert messages_of(_act(web, "mark_paid", pay_app)) == [
        (
            "error",
            f"{pay_app}: Pay app #1 is submitted; the owner pays an approved (certified) pay "
            "app: approve it before you mark it paid.",
        )
    ]
    assert messages_of(_act(web, "approve", pay_app)) == [
        ("success", f"{pay_app}: approved (certified by the owner).")
    ]
    assert messages_of(_act(web, "mark_paid", pay_app)) == [("success", f"{pay_app}: marked paid.")]
    pay_app.refresh_from_db()
    assert pay_app.status == "paid" and pay_app.paid_at is not None
    actions = list(
        AuditEntry.objects.filter(target_id=pay_app.pk)
        .order_by("created_at", "id")
        .values_list("action", "actor_type", "actor_id")
    )
    assert actions == [
        ("created", "system", None),
        ("submitted", "user", "accountant"),
        ("approved", "user", "accountant"),
        ("paid", "user", "accountant"),
    ]
    audit_before = AuditEntry.objects.count()
    again = _act(web, "submit", pay_app)
    assert messages_of(again) == [("error", f"{pay_app}: Cannot submit a pay app that is paid.")]
    assert AuditEntry.objects.count() == audit_before


def test_reject_asks_for_a_reason_first(web, money):
    pay_app = make_pay_app(money.project, "2026-01-01", "2026-01-31", status="submitted")
    audit_before = AuditEntry.objects.count()

    page = _act(web, "reject", pay_app, confirm=False)

    assert page.status_code == 200
    assert "Reject pay apps" in text(page)
    data = form_data(page, "reason_form")
    assert data["action"] == "reject" and data["_selected_action"] == pay_app.pk
    blank = web.post(LIST, {**data, "reason": "  "})
    assert blank.status_code == 200
    assert errors_of(blank) == ["This field is required."]
    pay_app.refresh_from_db()
    assert pay_app.status == "submitted"
    assert AuditEntry.objects.count() == audit_before

    done = web.post(LIST, {**data, "reason": "Stored materials need invoices."}, follow=True)

    assert messages_of(done) == [("success", f"{pay_app}: rejected back to draft.")]
    pay_app.refresh_from_db()
    assert (pay_app.status, pay_app.rejection_reason, pay_app.certified_total_completed) == (
        "draft",
        "Stored materials need invoices.",
        None,
    )
    entry = AuditEntry.objects.filter(target_id=pay_app.pk).latest("created_at")
    assert (entry.action, entry.note, entry.actor_type, entry.actor_id) == (
        "rejected",
        "Stored materials need invoices.",
        "user",
        "accountant",
    )


def test_reject_refuses_a_draft_with_the_service_message(web, money):
    pay_app = make_pay_app(money.project, "2026-01-01", "2026-01-31")
    data = form_data(_act(web, "reject", pay_app, confirm=False), "reason_form")
    audit_before = AuditEntry.objects.count()

    response = web.post(LIST, {**data, "reason": "No."}, follow=True)

    assert messages_of(response) == [
        ("error", f"{pay_app}: Cannot reject a pay app that is draft.")
    ]
    pay_app.refresh_from_db()
    assert (pay_app.status, pay_app.rejection_reason) == ("draft", "")
    assert AuditEntry.objects.count() == audit_before


def test_add_creates_the_next_draft_through_the_service(web, money):
    make_pay_app(money.project, "2026-01-01", "2026-01-31", status="submitted")
    assert 'id="id_period_start"' in web.get(ADD).content.decode()

    response = web.post(
        ADD,
        {
            "project": money.project.pk,
            "period_start": "2026-02-01",
            "period_end": "2026-02-28",
            "retainage_pct": "",
        },
    )

    assert response.status_code == 302, errors_of(response)
    made = PayApp.objects.get(project=money.project, number=2)
    assert (made.status, made.period_start, made.retainage_pct) == (
        "draft",
        datetime.date(2026, 2, 1),
        money.project.retainage_pct,
    )
    assert list(made.lines.values_list("item", "scheduled_value")) == [
        ("1", 2_000_000),
        ("2", 5_000_000),
        ("3", 3_000_000),
    ]
    entry = AuditEntry.objects.get(target_id=made.pk)
    assert (entry.action, entry.actor_type, entry.actor_id) == ("created", "user", "accountant")


@pytest.mark.parametrize(
    ("start", "end", "error"),
    [
        (
            "2026-02-01",
            "2026-02-28",
            "Pay app #1 is still a draft; submit it before creating the next.",
        ),
        ("2026-03-10", "2026-03-01", "period_end must not be before period_start."),
    ],
)
def test_add_refuses_what_the_service_refuses(web, money, start, end, error):
    if "draft" in error:
        make_pay_app(money.project, "2026-01-01", "2026-01-31")
    audit_before = AuditEntry.objects.count()
    pay_apps_before = PayApp.objects.count()

    response = web.post(
        ADD, {"project": money.project.pk, "period_start": start, "period_end": end}
    )

    assert response.status_code == 200
    assert errors_of(response) == [error]
    assert PayApp.objects.count() == pay_apps_before
    assert AuditEntry.objects.count() == audit_before


def test_add_refuses_an_overlapping_period_on_the_start_field(web, money):
    make_pay_app(money.project, "2026-01-01", "2026-01-31", status="submitted")

    response = web.post(
        ADD,
        {"project": money.project.pk, "period_start": "2026-01-15", "period_end": "2026-02-15"},
    )

    assert response.status_code == 200
    assert errors_of(response) == [
        "The period overlaps pay app #1 (2026-01-01 to 2026-01-31); a new period starts "
        "after 2026-01-31."
    ]
    assert list(response.context["adminform"].form.errors) == ["period_start"]
    assert PayApp.objects.count() == 1


def test_add_refuses_an_unbalanced_schedule_of_values(web, job):
    audit_before = AuditEntry.objects.count()

    response = web.post(
        ADD, {"project": job.project.pk, "period_start": "2026-01-01", "period_end": "2026-01-31"}
    )

    assert response.status_code == 200
    assert errors_of(response) == [
        "The schedule of values ($20,000.00) does not equal the contract amount "
        "($8,400,000.00); fix the cost codes' scheduled values."
    ]
    assert not PayApp.objects.exists()
    assert AuditEntry.objects.count() == audit_before


def test_the_change_page_is_view_only(web, money):
    pay_app = make_pay_app(money.project, "2026-01-01", "2026-01-31")
    page = web.get(admin_url(pay_app))
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()

    response = web.post(admin_url(pay_app), {"retainage_pct": "5"})

    assert response.status_code == 403
    pay_app.refresh_from_db()
    assert pay_app.retainage_pct == money.project.retainage_pct
