"""The back office reads as an accountant speaks (docs/backoffice/month.md): on every list,
page and History of the demo job, as the demo's accountant, no record IDs in titles or
breadcrumbs, no contract references or API parameters, no raw JSON; History is the audit
trail with money in dollars; a refused save shows the stored figures."""

from __future__ import annotations

import html
import re

import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.core.management import call_command
from django.test import Client, RequestFactory
from django.urls import reverse

from jobcost.demo.accountant import USERNAME
from jobcost.models import Commitment, Membership, PayApp
from tests.jobcost.admin.pages import admin_url, errors_of, form_data, readonly, text
from tests.shared import rows_for_the_module

pytestmark = pytest.mark.postgres

ID = re.compile(
    r"\b(?:prj|vnd|cc|pa|inv|cmt|co|lw|own|rfi|log|aa|bl|acct|key|pmt)_[0-9A-Za-z]{12,}\b"
)
JARGON = ("SPEC", "§", "allow_missing_waivers", " cents", "/v1/")
# What History must never show a person: a timestamp or a date as stored (a day in a person's
# own words, a log's notes, stays as typed), or a raw amount in cents (a value of five or more
# digits that is not a dollar figure; an address's postal code is text, not a value).
ISO_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|[→—:]\s+\d{4}-\d{2}-\d{2}\b")
RAW_CENTS = re.compile(r"[→—:]\s+-?\d{5,}(?![\d,.])")


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker):
    """The demo job, seeded once for the module (seconds); each test's changes rolled back."""
    with rows_for_the_module(django_db_blocker):
        call_command("seed_demo", verbosity=0)
        yield


@pytest.fixture
def accountant(demo, db) -> Client:
    """The demo's accountant (a manager of Demo Builders) signed in on the demo job."""
    client = Client()
    client.force_login(Membership.objects.get(user__username=USERNAME).user)
    return client


def _visible(response) -> str:
    """The page's text as shown: tags, scripts and attribute values removed."""
    body = response.content.decode()
    body = re.sub(r"<(script|style)\b.*?</\1>", "", body, flags=re.S)
    return text_only(body)


def text_only(body: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def _title(response) -> str:
    body = response.content.decode()
    title = re.search(r"<title>(.*?)</title>", body, re.S).group(1)
    crumbs = re.search(r'<div class="breadcrumbs">(.*?)</div>', body, re.S)
    return title + " " + (text_only(crumbs.group(1)) if crumbs else "")


def test_every_page_of_the_demo_reads_without_ids_or_jargon(accountant):
    checked = histories = 0
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        name = f"admin:{opts.app_label}_{opts.model_name}"
        listing = accountant.get(reverse(f"{name}_changelist"))
        if listing.status_code == 403:
            continue
        assert listing["Content-Type"].startswith("text/html"), name
        for word in JARGON:
            assert word not in _visible(listing), (name, word)
        rows = model_admin.get_queryset(_request(accountant)).order_by()[:2]
        for row in rows:
            for view in ("change", "history"):
                page = accountant.get(reverse(f"{name}_{view}", args=[quote(row.pk)]))
                assert page.status_code == 200, (name, view)
                assert page["Content-Type"].startswith("text/html")
                assert not ID.search(_title(page)), (name, view, _title(page))
                if opts.app_label == "webhooks":
                    continue  # an event's page shows its payload as it was sent, API words and all
                visible = _visible(page)
                for word in JARGON:
                    assert word not in visible, (name, view, word)
                if view == "history":
                    for pattern in (ID, ISO_TIMESTAMP, RAW_CENTS):
                        found = pattern.search(visible)
                        assert not found, (name, found.group(0), visible[: found.end() + 80])
                    histories += 1
                checked += 1
    assert checked > 30 and histories > 15


def _request(client):
    request = RequestFactory().get("/admin/")
    request.user = Membership.objects.get(user__username=USERNAME).user
    return request


def test_history_is_the_audit_trail_with_money_in_dollars(accountant):
    commitment = Commitment.objects.filter(status="draft").order_by("number").first()
    page = accountant.get(admin_url(commitment))
    data = form_data(page, "commitment_form")
    data["original_amount"] = "150,000.00"
    saved = accountant.post(admin_url(commitment), data)
    assert saved.status_code == 302, errors_of(saved)

    history = accountant.get(
        reverse("admin:jobcost_commitment_history", args=[quote(commitment.pk)])
    )

    body = text(history)
    assert 'id="audit-trail"' in body
    assert "Created" in body and "System" in body
    assert f"{USERNAME} (manager)" in body
    assert "→ $150,000.00" in body


def test_history_names_records_and_writes_codes_dates_and_lines_in_words(accountant):
    """The demo's October pay app: its G703 change-order row in dollars, its project and
    account by name, its status by label, its days as the site writes them."""
    pay_app = PayApp.objects.get(project__number="2026-014", number=2)

    page = accountant.get(reverse("admin:jobcost_payapp_history", args=[quote(pay_app.pk)]))
    body = " ".join(_visible(page).replace(" :", ":").split())

    assert "Line CO-001: — → $48,500.00" in body
    assert "Project: — → 2026-014 Lincoln Elementary" in body
    assert "Account: — → Demo Builders" in body
    assert "Status: Draft → Submitted" in body
    assert "Period end: — → Oct. 31, 2026" in body
    assert "Retainage (%): — → 10%" in body
    assert "Lien waivers missing: — → Ampere Electric, Inc." in body
    assert "4850000" not in body and "aia_g702_g703" not in body

    first = PayApp.objects.get(project__number="2026-014", number=1)
    page = accountant.get(reverse("admin:jobcost_payapp_history", args=[quote(first.pk)]))
    body = " ".join(_visible(page).replace(" :", ":").split())
    assert "Amount paid: $0.00 → $438,300.00" in body
    assert "Amount remaining: $438,300.00 → $0.00" in body


def test_a_refused_save_shows_the_stored_figures(accountant):
    commitment = Commitment.objects.filter(status="draft").order_by("number").first()
    stored = readonly(accountant.get(admin_url(commitment)), "revised_amount_display")
    data = form_data(accountant.get(admin_url(commitment)), "commitment_form")
    data["original_amount"] = "100000000000000"  # past the money cap: refused

    refused = accountant.post(admin_url(commitment), data)

    assert refused.status_code == 200 and errors_of(refused)
    assert readonly(refused, "revised_amount_display") == stored
    commitment.refresh_from_db()
    assert text(refused).count("100000000000000") >= 1  # what was typed stays in its box
