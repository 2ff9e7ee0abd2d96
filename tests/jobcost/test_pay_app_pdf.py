"""GET /v1/pay-apps/{id}/pdf and the admin's "Download PDF": the demo job's pay apps printed,
their text read back with pypdf.

The demo's pay app #2 (October 2026, approved) has, by docs/demo-job.md: 1 original contract
8,400,000.00; 2 CO-001 +48,500.00; 3 8,448,500.00; 4 1,413,500.00; 5 141,350.00 (10 %);
6 = 4 − 5 = 1,272,150.00; 7 (#1's line 6) 438,300.00; 8 = 6 − 7 = 833,850.00;
9 = 3 − 6 = 7,176,350.00. CO-001 landed on #2, so it is "approved this month" there.
"""

from __future__ import annotations

import io

import pytest
from django.contrib.admin.utils import quote
from django.contrib.auth import get_user_model
from django.urls import reverse
from pypdf import PdfReader

from jobcost.demo.loader import demo_job_load
from jobcost.models import Account, PayApp, PayAppDocument, Project
from tests.conftest import Api, error_of
from tests.factories import (
    AccountFactory,
    CostCodeFactory,
    ProjectFactory,
    make_key,
    make_pay_app,
)
from tests.shared import rows_for_the_module

pytestmark = pytest.mark.django_db


def usd(cents: int) -> str:
    """The PDF's dollars: `1,234.50`, negatives `(1,234.50)`."""
    text = f"{abs(cents) // 100:,}.{abs(cents) % 100:02d}"
    return f"({text})" if cents < 0 else text


def pages(response) -> list[str]:
    """Each page's text, its whitespace (pypdf puts table cells on lines) one space."""
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(response.content))
    return [" ".join(page.extract_text().split()) for page in reader.pages]


@pytest.fixture(scope="module")
def shared_demo(django_db_setup, django_db_blocker):
    """The demo job, loaded once for the module (seconds); each test's changes rolled back."""
    with rows_for_the_module(django_db_blocker):
        demo_job_load()
        project = Project.objects.get(account__name="Demo Builders", number="2026-014")
        yield project, {p.number: p for p in PayApp.objects.filter(project=project)}


@pytest.fixture
def demo(shared_demo, db):
    return shared_demo


def api_for(account: Account, role: str = "admin", projects=()) -> Api:
    _key, secret = make_key(account, role, projects)
    return Api(secret)


def test_pay_app_2_prints_its_g702_and_g703(demo):
    project, apps = demo
    api = api_for(project.account)
    second = apps[2]
    text = pages(api.get(f"/v1/pay-apps/{second.pk}/pdf"))
    first = text[0]
    assert "APPLICATION AND CERTIFICATE FOR PAYMENT" in first
    assert f"TO OWNER: {project.owner.name} FROM CONTRACTOR: Demo Builders" in first
    assert "PROJECT: 2026-014 Lincoln Elementary" in first
    assert "APPLICATION NO: 2 APPLICATION DATE:" in first
    assert "PERIOD: Oct 1, 2026 to Oct 31, 2026 PERIOD TO: Oct 31, 2026" in first
    assert f"AMOUNT CERTIFIED $ {usd(second.amount_certified)}" in first
    assert "1. ORIGINAL CONTRACT SUM 8,400,000.00 2. Net change by Change Orders 48,500.00" in first
    assert "3. CONTRACT SUM TO DATE (Line 1 ± 2) 8,448,500.00" in first
    assert "4. TOTAL COMPLETED & STORED TO DATE (Column G on G703) 1,413,500.00" in first
    assert "Total in Column I of G703) 141,350.00" in first
    assert "6. TOTAL EARNED LESS RETAINAGE (Line 4 minus Line 5 Total) 1,272,150.00" in first
    assert "(Line 6 from prior Certificate) 438,300.00 8. CURRENT PAYMENT DUE 833,850.00" in first
    assert "9. BALANCE TO FINISH, INCLUDING RETAINAGE (Line 3 minus Line 6) 7,176,350.00" in first
    assert "a. 10% of Completed Work" in first
    # The same figures as GET /v1/pay-apps/{id}, line by line.
    body = api.get(f"/v1/pay-apps/{second.pk}").json()
    for label, field in [
        ("CURRENT PAYMENT DUE", "current_payment_due"),
        ("(Column F on G703)", "retainage_stored_materials"),
        ("(Columns D + E on G703)", "retainage_completed_work"),
    ]:
        assert f"{label} {usd(body[field])}" in first, label
    # CO-001 (+48,500.00) landed on #2: approved this month, none before.
    assert "CHANGE ORDER SUMMARY ADDITIONS DEDUCTIONS" in first
    assert "previous months by Owner 0.00 0.00 Total approved this month 48,500.00 0.00" in first
    assert "TOTALS 48,500.00 0.00 NET CHANGES by Change Order 48,500.00" in first

    sheet = " ".join(text[1:])
    assert "CONTINUATION SHEET (G703)" in sheet
    rows = api.get(f"/v1/pay-apps/{second.pk}/lines", {"limit": 100}).json()["data"]
    assert [r["scheduled_value"] for r in rows if r["change_order"]] == [4_850_000]
    for row in rows:
        # A change-order row's description ("CO-001 — title") holds its item: printed once.
        cells = [
            *([] if row["change_order"] else [row["item"]]),
            " ".join(row["description"].split()),
            usd(row["scheduled_value"]),
            usd(row["previous"]),
            usd(row["this_period"]),
            usd(row["materials_stored"]),
            usd(row["total_completed_and_stored"]),
            f"{row['percent_complete']:.2f}%",
            usd(row["balance_to_finish"]),
            usd(row["retainage"]),
        ]
        assert " ".join(cells) in sheet, cells
    assert (
        "1 01-500 General conditions 580,000.00 38,700.00 38,700.00 0.00 77,400.00 13.34% "
        "502,600.00 7,740.00"
    ) in sheet
    assert "CHANGE ORDERS" in sheet
    previous = usd(sum(r["previous"] for r in rows))
    this_period = usd(sum(r["this_period"] for r in rows))
    stored = usd(sum(r["materials_stored"] for r in rows))
    assert (
        f"GRAND TOTAL 8,448,500.00 {previous} {this_period} {stored} 1,413,500.00 16.73% "
        "7,035,000.00 141,350.00"
    ) in sheet
    count = len(text)
    assert count >= 2
    for number, page in enumerate(text, start=1):
        assert f"Page {number} of {count}" in page
    assert "Page 1 of" in first
    assert "DRAFT" not in " ".join(text)


def test_a_draft_is_marked_draft_on_every_page(demo):
    project, apps = demo
    api = api_for(project.account)
    text = pages(api.get(f"/v1/pay-apps/{apps[3].pk}/pdf"))
    assert len(text) >= 2
    assert all("DRAFT" in page for page in text)
    # CO-001's addition landed on #2 (a previous month), CO-002's deduction on #3.
    body = api.get(f"/v1/pay-apps/{apps[3].pk}").json()
    deduction = body["net_change_by_change_orders"] - 4_850_000
    assert deduction < 0
    assert "previous months by Owner 48,500.00 0.00" in text[0]
    assert f"Total approved this month 0.00 {usd(deduction)}" in text[0]
    assert f"NET CHANGES by Change Order {usd(body['net_change_by_change_orders'])}" in text[0]


def test_a_submitted_pay_app_prints_the_same_whenever_printed(account, make_api):
    project = ProjectFactory(account=account, contract_amount=10_000_000, retainage_pct=10)
    CostCodeFactory(project=project, code="03-000", scheduled_value=10_000_000)
    member, manager = make_api(account, "member"), make_api(account, "manager")
    first = make_pay_app(project, "2026-09-01", "2026-09-30")
    lines = {"lines": [{"item": "1", "this_period": 2_500_000}]}
    assert member.patch(f"/v1/pay-apps/{first.pk}", lines).status_code == 200
    submit = {"allow_missing_waivers": True}
    assert member.post(f"/v1/pay-apps/{first.pk}/submit", submit).status_code == 200
    before = member.get(f"/v1/pay-apps/{first.pk}/pdf")
    text = pages(before)
    assert "4. TOTAL COMPLETED & STORED TO DATE (Column G on G703) 25,000.00" in text[0]
    assert "DRAFT" not in " ".join(text)
    # Approving it, then billing and approving the next month, change nothing printed on it.
    assert manager.post(f"/v1/pay-apps/{first.pk}/approve").status_code == 200
    second = make_pay_app(project, "2026-10-01", "2026-10-31")
    lines = {"lines": [{"item": "1", "this_period": 1_000_000}]}
    assert member.patch(f"/v1/pay-apps/{second.pk}", lines).status_code == 200
    assert member.post(f"/v1/pay-apps/{second.pk}/submit", submit).status_code == 200
    assert manager.post(f"/v1/pay-apps/{second.pk}/approve").status_code == 200
    after = member.get(f"/v1/pay-apps/{first.pk}/pdf")
    # Approval added the certificate, nothing else (docs/documents.md).
    certified = pages(after)
    assert "AMOUNT CERTIFIED $ 22,500.00" in certified[0]
    assert "AMOUNT CERTIFIED $ 22,500.00" not in text[0]
    assert certified[1:] == text[1:]
    assert certified[0].split("AMOUNT CERTIFIED")[0] == text[0].split("AMOUNT CERTIFIED")[0]
    again = member.get(f"/v1/pay-apps/{first.pk}/pdf")
    assert again.content == after.content  # stored: the same bytes
    later = pages(member.get(f"/v1/pay-apps/{second.pk}/pdf"))[0]
    assert "(Line 6 from prior Certificate) 22,500.00 8. CURRENT PAYMENT DUE 9,000.00" in later


def test_a_g703_description_that_looks_like_markup_prints_as_written(account, make_api):
    """The G703 description cell is reportlab markup: a cost code named with `&` and `<b>`
    prints as written (escaped), not bold and not as a failed download."""
    project = ProjectFactory(account=account, contract_amount=10_000_000, retainage_pct=10)
    CostCodeFactory(
        project=project, code="08-000", name="Doors & <b>frames</b>", scheduled_value=10_000_000
    )
    pay_app = make_pay_app(project, "2026-09-01", "2026-09-30")
    response = make_api(account, "member").get(f"/v1/pay-apps/{pay_app.pk}/pdf")
    assert response.status_code == 200
    assert "Doors & <b>frames</b>" in " ".join(pages(response))


@pytest.mark.parametrize("role", ["viewer", "agent", "member", "manager", "admin"])
def test_every_role_that_reads_the_pay_app_prints_it(demo, role):
    project, apps = demo
    text = pages(api_for(project.account, role).get(f"/v1/pay-apps/{apps[2].pk}/pdf"))
    assert "CURRENT PAYMENT DUE" in text[0]


def test_another_accounts_key_or_another_projects_key_gets_404(demo):
    project, apps = demo
    path = f"/v1/pay-apps/{apps[2].pk}/pdf"
    elsewhere = ProjectFactory(account=project.account, owner=project.owner)
    clients = [api_for(AccountFactory(), "admin"), api_for(project.account, "viewer", [elsewhere])]
    for api in clients:
        response = api.get(path)
        assert response.status_code == 404
        assert response["Content-Type"].startswith("application/json")
        assert error_of(response)["code"] == "resource_missing"
    response = api_for(project.account).get("/v1/pay-apps/pa_nope/pdf")
    assert (response.status_code, error_of(response)["code"]) == (404, "resource_missing")


def test_unknown_parameters_are_400_and_accept_pdf_is_accepted(demo):
    project, apps = demo
    api = api_for(project.account)
    response = api.get(f"/v1/pay-apps/{apps[2].pk}/pdf", {"expand[]": "project"})
    assert response.status_code == 400
    response = api.get(f"/v1/pay-apps/{apps[2].pk}/pdf", {"color": "red"})
    assert (response.status_code, error_of(response)["code"]) == (400, "parameter_unknown")
    response = api.get(f"/v1/pay-apps/{apps[2].pk}/pdf", headers={"Accept": "application/pdf"})
    assert pages(response)
    response = api.get("/v1/pay-apps/pa_nope/pdf", headers={"Accept": "application/pdf"})
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")


def test_the_admin_download_button_serves_the_same_file(demo, client):
    project, apps = demo
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw")
    client.force_login(user)
    change = client.get(f"/admin/jobcost/payapp/{apps[2].pk}/change/")
    assert change.status_code == 200
    url = reverse("admin:jobcost_payapp_pdf", args=[quote(apps[2].pk)])
    assert url.encode() in change.content and b"Download PDF" in change.content
    response = client.get(url)
    assert response["Content-Type"] == "application/pdf"
    api_pdf = api_for(project.account).get(f"/v1/pay-apps/{apps[2].pk}/pdf")
    assert response.content == api_pdf.content
    client.logout()
    assert client.get(url).status_code == 302  # to the login page
    # Staff who belong to no account see no rows in the back office (docs/backoffice/index.md),
    # so the pay app is not found for them and cannot be printed either.
    clerk = get_user_model().objects.create_user("clerk", "clerk@example.com", "pw")
    clerk.is_staff = True
    clerk.save()
    client.force_login(clerk)
    assert client.get(url).status_code == 404


def test_the_demo_stores_the_documents_of_its_certified_pay_apps(demo):
    """seed_demo goes through the services, so #1 (paid) and #2 (approved) were stored as
    submitted and as certified, and their PDF is the certified one; #3 is a draft."""
    project, apps = demo
    api = api_for(project.account, "viewer")
    for number in (1, 2):
        stored = {
            d.stage: bytes(d.pdf) for d in PayAppDocument.objects.filter(pay_app=apps[number])
        }
        assert sorted(stored) == ["certified", "submitted"]
        assert api.get(f"/v1/pay-apps/{apps[number].pk}/pdf").content == stored["certified"]
    assert not PayAppDocument.objects.filter(pay_app=apps[3]).exists()
