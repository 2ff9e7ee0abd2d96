"""Certified means frozen (docs/documents.md): what a pay app printed when it
was submitted is what it prints forever. Submission stores the document (stage `submitted`),
approval stores it with the architect's certificate (stage `certified`), and
GET /v1/pay-apps/{id}/pdf serves those bytes: renaming the project, the owner or the account
and marking the pay app paid change nothing, byte for byte, and the stored snapshot renders
to the same bytes in a fresh interpreter. A draft is rendered now and says DRAFT."""

from __future__ import annotations

import datetime
import hashlib
import importlib
import io
import json
import subprocess
import sys

import pdfplumber
import pytest
from django.apps import apps as django_apps
from django.conf import settings

from jobcost.documents.pay_app_pdf import render_pay_app_pdf
from jobcost.models import Account, PayApp, PayAppDocument, Project
from tests.factories import CostCodeFactory, OwnerFactory, ProjectFactory, make_pay_app

pytestmark = pytest.mark.django_db


def text_of(pdf: bytes) -> str:
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return " ".join(
            " ".join((page.extract_text(use_text_flow=True) or "").split())
            for page in document.pages
        )


@pytest.fixture
def job(account):
    owner = OwnerFactory(account=account, name="Harbor County Schools")
    project = ProjectFactory(
        account=account,
        owner=owner,
        number="2026-031",
        name="Harbor Middle School roof",
        contract_amount=10_000_000,
        retainage_pct=10,
        contract_date=datetime.date(2026, 8, 3),
        architect_name="Moss & Lind Architects",
    )
    CostCodeFactory(project=project, code="07-500", name="Roofing", scheduled_value=10_000_000)
    return project


def enter_and_submit(api, pay_app, cents):
    lines = {"lines": [{"item": "1", "this_period": cents}]}
    assert api.patch(f"/v1/pay-apps/{pay_app.pk}", lines).status_code == 200
    response = api.post(f"/v1/pay-apps/{pay_app.pk}/submit", {"allow_missing_waivers": True})
    assert response.status_code == 200, response.content


def pdf_of(api, pay_app) -> bytes:
    response = api.get(f"/v1/pay-apps/{pay_app.pk}/pdf")
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "application/pdf"
    return response.content


def documents(pay_app) -> list[tuple[str, bytes]]:
    return [
        (d.stage, bytes(d.pdf))
        for d in PayAppDocument.objects.filter(pay_app=pay_app).order_by("created_at", "pk")
    ]


def test_renames_and_payment_change_no_byte_of_a_certified_pay_app(job, make_api):
    admin = make_api(job.account, "admin")
    pay_app = make_pay_app(job, "2026-09-01", "2026-09-30")
    enter_and_submit(admin, pay_app, 2_500_000)
    submitted = pdf_of(admin, pay_app)
    assert documents(pay_app) == [("submitted", submitted)]
    approve = {"amount_certified": 2_000_000, "certification_note": "Roof drains not set."}
    assert admin.post(f"/v1/pay-apps/{pay_app.pk}/approve", approve).status_code == 200
    certified = pdf_of(admin, pay_app)
    assert documents(pay_app) == [("submitted", submitted), ("certified", certified)]
    stored = PayAppDocument.objects.get(pay_app=pay_app, stage="certified")
    assert stored.sha256 == hashlib.sha256(certified).hexdigest()
    text = text_of(certified)
    assert "AMOUNT CERTIFIED $ 20,000.00" in text
    assert "Roof drains not set." in text
    assert "TO OWNER: Harbor County Schools FROM CONTRACTOR:" in text
    assert "VIA ARCHITECT: Moss & Lind Architects" in text

    # Rename everything the document names, and take the payment.
    project_patch = {"name": "Renamed project", "number": "2099-999"}
    assert admin.patch(f"/v1/projects/{job.pk}", project_patch).status_code == 200
    owner_patch = {"name": "Renamed owner"}
    assert admin.patch(f"/v1/owners/{job.owner_id}", owner_patch).status_code == 200
    # No service renames an account (docs/backoffice/index.md): an operator's rename.
    Account.objects.filter(pk=job.account_id).update(name="Renamed contractor")
    Project.objects.filter(pk=job.pk).update(architect_name="Someone else")
    paid = admin.post(f"/v1/pay-apps/{pay_app.pk}/mark-paid", {})
    assert paid.status_code == 200, paid.content
    assert PayApp.objects.get(pk=pay_app.pk).status == "paid"

    after = pdf_of(admin, pay_app)
    assert after == certified
    assert after == bytes(PayAppDocument.objects.get(pay_app=pay_app, stage="certified").pdf)
    assert len(documents(pay_app)) == 2  # payment adds nothing
    # Nothing renamed reaches it.
    assert "Renamed" not in text_of(after)


def test_the_stored_snapshot_renders_to_the_same_bytes_in_a_fresh_interpreter(job, make_api):
    """Restarts: ReportLab's invariant output has no date and no random ID, so the snapshot
    the row keeps renders to its stored bytes in another process."""
    admin = make_api(job.account, "admin")
    pay_app = make_pay_app(job, "2026-09-01", "2026-09-30")
    enter_and_submit(admin, pay_app, 1_000_000)
    assert admin.post(f"/v1/pay-apps/{pay_app.pk}/approve").status_code == 200
    stored = PayAppDocument.objects.get(pay_app=pay_app, stage="certified")
    snapshot = json.loads(json.dumps(stored.snapshot))  # as the JSON column gives it back
    assert render_pay_app_pdf(snapshot) == bytes(stored.pdf)
    program = (
        "import json, sys\n"
        "from jobcost.documents.pay_app_pdf import render_pay_app_pdf\n"
        "sys.stdout.buffer.write(render_pay_app_pdf(json.load(sys.stdin)))\n"
    )
    fresh = subprocess.run(
        [sys.executable, "-c", program],
        input=json.dumps(snapshot).encode(),
        capture_output=True,
        cwd=settings.BASE_DIR,
        check=True,
        timeout=60,
    )
    assert fresh.stdout == bytes(stored.pdf)


def test_a_rename_between_submission_and_approval_is_not_certified(job, make_api):
    admin = make_api(job.account, "admin")
    pay_app = make_pay_app(job, "2026-09-01", "2026-09-30")
    enter_and_submit(admin, pay_app, 2_500_000)
    assert admin.patch(f"/v1/projects/{job.pk}", {"name": "New name"}).status_code == 200
    assert admin.post(f"/v1/pay-apps/{pay_app.pk}/approve").status_code == 200
    submitted, certified = (
        PayAppDocument.objects.filter(pay_app=pay_app).order_by("created_at", "pk").all()
    )
    assert certified.snapshot["project"]["name"] == "Harbor Middle School roof"
    assert {**certified.snapshot, "stage": "submitted", "certificate": None} == submitted.snapshot
    assert certified.snapshot["certificate"] == {
        "amount_certified": 2_250_000,
        "certified_on": PayApp.objects.get(pk=pay_app.pk).certified_on.isoformat(),
        "note": "",
    }


def test_a_draft_says_draft_and_is_not_stored(job, make_api):
    member = make_api(job.account, "member")
    pay_app = make_pay_app(job, "2026-09-01", "2026-09-30")
    pdf = pdf_of(member, pay_app)
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        pages = [page.extract_text() for page in document.pages]
    assert len(pages) == 2
    assert all("DRAFT — not submitted; figures may change" in page for page in pages)
    assert documents(pay_app) == []
    # A draft follows its project: it is printed as the project stands now.
    assert member.get(f"/v1/pay-apps/{pay_app.pk}/pdf").content == pdf
    assert (
        make_api(job.account, "admin")
        .patch(f"/v1/projects/{job.pk}", {"name": "Renamed while a draft"})
        .status_code
        == 200
    )
    assert "Renamed while a draft" in text_of(pdf_of(member, pay_app))


def test_rejected_and_submitted_again_stores_a_new_submitted_document(job, make_api):
    admin = make_api(job.account, "admin")
    pay_app = make_pay_app(job, "2026-09-01", "2026-09-30")
    enter_and_submit(admin, pay_app, 2_500_000)
    first = pdf_of(admin, pay_app)
    reject = {"reason": "Stored materials need an invoice."}
    assert admin.post(f"/v1/pay-apps/{pay_app.pk}/reject", reject).status_code == 200
    assert "DRAFT" in text_of(pdf_of(admin, pay_app))
    enter_and_submit(admin, pay_app, 2_000_000)
    second = pdf_of(admin, pay_app)
    assert second != first
    assert "TOTAL COMPLETED & STORED TO DATE (Column G on G703) 20,000.00" in text_of(second)
    assert documents(pay_app) == [("submitted", first), ("submitted", second)]


def test_the_upgrade_stores_documents_for_pay_apps_submitted_before_them(job, make_api):
    """Migration 0009 (docs/documents.md, "Decisions"): a pay app submitted or approved before
    documents were stored gets them, once; a draft gets none."""
    migration = importlib.import_module(
        "jobcost.migrations.0009_store_documents_of_certified_pay_apps"
    )
    approved = make_pay_app(job, "2026-09-01", "2026-09-30", status="approved")
    submitted = make_pay_app(job, "2026-10-01", "2026-10-31", status="submitted")
    PayAppDocument.objects.all().delete()  # as a database upgraded from before them
    draft_project = ProjectFactory(account=job.account)
    CostCodeFactory(project=draft_project, scheduled_value=draft_project.contract_amount)
    draft = make_pay_app(draft_project, "2026-09-01", "2026-09-30")

    migration.store_documents(django_apps, None)
    migration.store_documents(django_apps, None)  # again: nothing more

    assert [stage for stage, _pdf in documents(approved)] == ["submitted", "certified"]
    assert [stage for stage, _pdf in documents(submitted)] == ["submitted"]
    assert documents(draft) == []
    admin = make_api(job.account, "admin")
    assert pdf_of(admin, approved) == documents(approved)[1][1]
    assert "AMOUNT CERTIFIED $ 0.00" in text_of(pdf_of(admin, approved))  # no work billed
