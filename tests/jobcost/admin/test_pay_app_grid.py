"""The draft pay app's page in the back office: the G703 entry grid and the transitions
behind confirmation pages (docs/backoffice/pay-apps.md).

The series is test_pay_apps.py's: pay app #2 is the draft, $100,000.00 contract plus
CO-001's $6,000.00, 10 % retainage; item 1 has a $20,000.00 scheduled value with $5,000.00
billed before and $5,000.00 this period; item 3 ($30,000.00) has $4,000.00 stored.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.admin.utils import quote
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from jobcost.models import PayApp
from tests.factories import AccountFactory, make_invoice, make_job, make_pay_app
from tests.jobcost.admin.pages import (
    admin_url,
    errors_of,
    form_data,
    member_client,
    messages_of,
    text,
)
from tests.jobcost.admin.test_pay_apps import _api, _series, _waiver_pending


@pytest.fixture
def money(db):
    """`make_job`'s balanced $100,000.00 project with an executed $10,000.00 subcontract."""
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    return job


def g702(page) -> dict[str, str]:
    """The G702 figures on the page: field → dollars as shown."""
    return dict(re.findall(r'<span data-g702="(\w+)">([^<]*)</span>', page.content.decode()))


def grid_url(pay_app) -> str:
    return reverse("admin:jobcost_payapp_g703", args=[quote(pay_app.pk)])


def confirm_url(pay_app, slug: str) -> str:
    name = f"admin:jobcost_payapp_{slug.replace('-', '_')}"
    return reverse(name, args=[quote(pay_app.pk)])


def _entries(page, **typed: tuple[str, str]) -> dict:
    """The grid's form as the page shows it, with `typed` {item: (this period, stored)}."""
    data = form_data(page, "g703-grid")
    body = page.content.decode()
    for item, (work, stored) in typed.items():
        index = re.search(rf'name="g703-(\d+)-item" value="{re.escape(item)}"', body).group(1)
        data[f"g703-{index}-work_this_period"] = work
        data[f"g703-{index}-materials_stored"] = stored
    return data


def test_entering_the_period_recomputes_the_g702_in_dollars(web, money):
    _first, second, _co = _series(money)
    page = web.get(admin_url(second))
    assert g702(page)["total_completed_and_stored"] == "$41,000.00"
    assert 'id="g703-grid"' in page.content.decode()

    saved = web.post(grid_url(second), _entries(page, **{"3": ("2,500.00", "$1,500")}), follow=True)

    assert messages_of(saved) == [("success", "This period's entries are saved.")]
    figures = g702(saved)
    # Item 3: $4,000.00 stored becomes $2,500.00 of work and $1,500.00 stored, so line 4
    # stays $41,000.00; this period's work grows by $2,500.00 to $24,500.00, and its
    # retainage ($2,450.00) follows at 10 %.
    assert figures["total_completed_and_stored"] == "$41,000.00"
    assert figures["work_this_period"] == "$24,500.00"
    assert figures["retainage_this_period"] == "$2,450.00"
    assert "net_due_this_period" not in figures  # one "due" figure on the page: line 8
    api = _api(money.account).get(f"/v1/pay-apps/{second.pk}").json()
    for name, shown in figures.items():
        cents = api[name]
        assert shown == f"${cents // 100:,}.{cents % 100:02d}", name
    line = second.lines.get(item="3")
    assert (line.this_period, line.materials_stored) == (250_000, 150_000)
    entry = AuditEntry.objects.filter(
        target_id=second.pk, action="lines_updated", actor_type="user"
    ).get()
    assert entry.actor_id == "accountant"
    assert entry.changes == {
        "lines.3": {
            "before": {"this_period": 0, "materials_stored": 400_000},
            "after": {"this_period": 250_000, "materials_stored": 150_000},
        }
    }


def test_lines_past_their_scheduled_value_are_flagged_and_nothing_is_written(web, money):
    _first, second, _co = _series(money)
    page = web.get(admin_url(second))
    audit_before = AuditEntry.objects.count()

    # Item 1: $5,000.00 before + $16,000.00 = $21,000.00 > $20,000.00; item 2:
    # $10,000.00 before + $41,000.00 = $51,000.00 > $50,000.00; item 3 is fine.
    refused = web.post(
        grid_url(second),
        _entries(page, **{"1": ("16000", "0"), "2": ("41000", "0"), "3": ("1000", "0")}),
    )

    assert refused.status_code == 200
    body = text(refused)
    flagged = re.findall(
        r'<tr data-code="[^"]*" data-item="(\w+)" class="over-scheduled-value"', body
    )
    assert flagged == ["1", "2"]
    assert (
        "Line 1: completed and stored to date would be $21,000.00, more than its scheduled "
        "value $20,000.00." in body
    )
    assert "Line 2: completed and stored to date would be $51,000.00" in body
    assert "Nothing was saved" in body
    # The refusal is at the top of the page too, naming the refused lines, and the first
    # refused line's box has the focus (the browser scrolls it into view).
    [(level, summary)] = messages_of(refused)
    assert level == "error"
    assert re.fullmatch(r"Nothing was saved: 2 lines refused \(.+; .+\), marked below\.", summary)
    focused = re.findall(
        r'<tr data-code="[^"]*" data-item="(\w+)"(?:(?!</tr>).)*autofocus', body, re.S
    )
    assert focused == ["1"]
    assert body.count("autofocus") == 1
    # The G702 shown is the stored one, not one computed from the refused entries.
    assert g702(refused)["total_completed_and_stored"] == "$41,000.00"
    assert g702(refused)["work_this_period"] == "$22,000.00"
    # The typed entries stay in their boxes for correcting.
    assert 'value="16000"' in body
    lines = {line.item: (line.this_period, line.materials_stored) for line in second.lines.all()}
    assert lines["1"] == (500_000, 0) and lines["3"] == (0, 400_000)
    assert AuditEntry.objects.count() == audit_before


def test_typed_amounts_that_are_not_dollars_are_refused_on_their_line(web, money):
    _first, second, _co = _series(money)
    page = web.get(admin_url(second))

    refused = web.post(grid_url(second), _entries(page, **{"1": ("12.345", "abc")}))

    assert refused.status_code == 200
    assert errors_of(refused) == [
        "Enter at most two decimals (whole cents).",
        "Enter an amount in dollars, such as 1234.50.",
    ]
    assert second.lines.get(item="1").this_period == 500_000


def test_a_viewer_reads_the_grid_and_cannot_save_or_move_it(money):
    _first, second, _co = _series(money)
    viewer = member_client(money.account, "viewer")

    page = viewer.get(admin_url(second))

    assert page.status_code == 200
    body = page.content.decode()
    assert 'id="g703-grid"' in body and 'name="g703-0-work_this_period"' not in body
    assert 'value="Save"' not in body
    for label in ("Submit", "Approve", "Mark paid"):
        assert f">{label}</a>" not in body
    assert viewer.post(grid_url(second), {"g703-TOTAL_FORMS": "0"}).status_code == 403
    assert viewer.get(confirm_url(second, "submit")).status_code == 403
    assert viewer.post(confirm_url(second, "submit")).status_code == 403
    assert PayApp.objects.get(pk=second.pk).status == "draft"


def test_a_member_submits_but_only_a_manager_approves(money):
    pay_app = make_pay_app(money.project, "2026-01-01", "2026-01-31")
    member = member_client(money.account, "member")

    page = member.get(admin_url(pay_app))
    assert ">Submit</a>" in page.content.decode()
    confirm = member.get(confirm_url(pay_app, "submit"))
    assert confirm.status_code == 200 and ">Confirm</button>" in confirm.content.decode()
    assert PayApp.objects.get(pk=pay_app.pk).status == "draft"
    done = member.post(confirm_url(pay_app, "submit"), follow=True)
    assert messages_of(done) == [("success", "Pay app #1 (Jan 2026): Submitted to the owner.")]
    assert ">Approve</a>" not in done.content.decode()
    assert member.post(confirm_url(pay_app, "approve")).status_code == 403

    manager = member_client(money.account, "manager")
    page = manager.get(admin_url(pay_app))
    assert ">Approve</a>" in page.content.decode() and ">Reject</a>" in page.content.decode()
    certificate = form_data(manager.get(confirm_url(pay_app, "approve")), "step-form")
    approved = manager.post(confirm_url(pay_app, "approve"), certificate, follow=True)
    today = timezone.localdate()
    assert messages_of(approved) == [
        (
            "success",
            f"Pay app #1 (Jan 2026): Approved, certified for $0.00 on {today:%b} {today.day}, "
            f"{today.year}.",
        )
    ]
    assert ">Mark paid</a>" in approved.content.decode()
    receipt = form_data(manager.get(confirm_url(pay_app, "mark-paid")), "step-form")
    paid = manager.post(confirm_url(pay_app, "mark-paid"), receipt, follow=True)
    assert messages_of(paid) == [("success", "Pay app #1 (Jan 2026): Marked paid.")]
    assert PayApp.objects.get(pk=pay_app.pk).status == "paid"


def test_reject_requires_the_owners_reason(web, money):
    pay_app = make_pay_app(money.project, "2026-01-01", "2026-01-31", status="submitted")

    blank = web.post(confirm_url(pay_app, "reject"), {"reason": "  "})

    assert blank.status_code == 200 and errors_of(blank) == ["This field is required."]
    assert PayApp.objects.get(pk=pay_app.pk).status == "submitted"
    done = web.post(
        confirm_url(pay_app, "reject"), {"reason": "Stored steel lacks a bill of sale."}
    )
    assert done.status_code == 302
    pay_app.refresh_from_db()
    assert (pay_app.status, pay_app.rejection_reason) == (
        "draft",
        "Stored steel lacks a bill of sale.",
    )


def test_submit_over_missing_waivers_lists_the_vendors_and_records_the_reason(web, money):
    pay_app = _waiver_pending(money)
    make_invoice(
        money.commitment, amount=50_000, number="A-8", invoice_date="2026-02-12", status="approved"
    )
    page = web.get(admin_url(pay_app))
    assert ">Submit over missing waivers</a>" in page.content.decode()

    refused = web.post(confirm_url(pay_app, "submit"))
    assert refused.status_code == 200
    assert (
        "Lien waivers for this period are missing from: Acme Concrete. Record them, or use "
        "“Submit over missing waivers” and give the reason." in text(refused)
    )
    assert "allow_missing_waivers" not in text(refused)

    confirm = web.get(confirm_url(pay_app, "submit-over-waivers"))
    table = text(confirm)[text(confirm).index('id="missing-waivers"') :]
    assert table.count("<td>Acme Concrete</td>") == 2
    assert "$3,000.00" in table and "$500.00" in table
    blank = web.post(confirm_url(pay_app, "submit-over-waivers"), {"reason": ""})
    assert errors_of(blank) == ["This field is required."]
    assert PayApp.objects.get(pk=pay_app.pk).status == "draft"

    done = web.post(
        confirm_url(pay_app, "submit-over-waivers"),
        {"reason": "Keystone's waiver is promised for Monday."},
        follow=True,
    )

    assert PayApp.objects.get(pk=pay_app.pk).status == "submitted"
    assert messages_of(done)[0][0] == "success"
    override = AuditEntry.objects.get(target_id=pay_app.pk, action="waiver_override")
    assert override.note.endswith("Reason: Keystone's waiver is promised for Monday.")
    assert (override.actor_type, override.actor_id) == ("user", "accountant")


def test_another_accounts_pay_app_pages_are_404(money):
    _first, second, _co = _series(money)
    stranger = member_client(AccountFactory(name="Ridgeline"), "manager")

    for url in (admin_url(second), grid_url(second), confirm_url(second, "submit")):
        assert stranger.get(url).status_code == 404, url
        assert stranger.post(url, {"reason": "x"}).status_code == 404, url
    assert PayApp.objects.get(pk=second.pk).status == "draft"
