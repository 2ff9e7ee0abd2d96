"""The report PDFs an accountant prints are laid out (docs/reports.md, "Files"): every glyph
read back from the PDF lies inside the margins, none over another, no rule through one
(tests/pdf_layout.py), for each report on the demo job and on a job of 60 cost codes with
90-character names, long vendor, project and owner names and eight-figure amounts. The
header row repeats on every page, pages read "Page N of M", the filters are in words."""

from __future__ import annotations

import io
import re

import pytest
from pypdf import PdfReader

from jobcost.documents.report_pdf import BOTTOM, FOOTER_Y, MARGIN
from jobcost.models import Account, Project
from jobcost.services.pay_apps import pay_app_approve, pay_app_submit, pay_app_update
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    CostCodeFactory,
    OwnerFactory,
    ProjectFactory,
    VendorFactory,
    make_invoice,
    make_pay_app,
)
from tests.jobcost.admin.pages import member_client
from tests.jobcost.test_seed_demo import seed
from tests.pdf_layout import layout_problems

pytestmark = pytest.mark.django_db

SLUGS = ("wip", "job-cost", "job-cost/transactions", "ap-aging", "ar-aging", "retainage")
CODES = 60
WORDS = "Structural steel erection including connections decking shoring and temporary bracing"


def long_name(prefix: str, width: int = 90) -> str:
    text = f"{prefix} {WORDS} {WORDS}"
    return text[:width].rstrip()


def big_job() -> tuple[Account, Project]:
    """60 cost codes with 90-character names, 12 subcontracts to vendors with long names,
    approved invoices (one paid), a certified pay app; amounts in the tens of millions."""
    account = AccountFactory(name="Harbor Build Company of the Greater Northwest Region, LLC")
    owner = OwnerFactory(account=account, name=long_name("Owner", 120))
    scheduled = 1_234_567_89
    project = ProjectFactory(
        account=account,
        owner=owner,
        number="P-2024-017",
        name=long_name("Lincoln Elementary School Addition and Gymnasium —", 120),
        contract_amount=scheduled * CODES,
    )
    codes = [
        CostCodeFactory(
            project=project,
            code=f"{index // 10 + 1:02d}-{index % 10}00",
            name=long_name(f"{index:02d}"),
            scheduled_value=scheduled,
            budget_amount=scheduled - 98_765_43,
        )
        for index in range(CODES)
    ]
    for index, code in enumerate(codes[:12]):
        vendor = VendorFactory(account=account, name=long_name(f"Vendor {index:02d}"))
        commitment = CommitmentFactory(
            project=project,
            vendor=vendor,
            cost_code=code,
            original_amount=1_200_000_00,
            executed=True,
        )
        make_invoice(
            commitment,
            amount=987_654_32,
            number=f"INV-{index:04d}-2026-LONG-REFERENCE",
            status="paid" if index == 0 else "approved",
        )
    pay_app = make_pay_app(project, "2026-10-01", "2026-10-31")
    pay_app_update(
        pay_app_id=pay_app.pk,
        lines=[{"item": str(item), "this_period": 987_654_32} for item in range(1, 13)],
    )
    pay_app_submit(pay_app_id=pay_app.pk, allow_missing_waivers=True)
    pay_app_approve(pay_app_id=pay_app.pk)
    return account, project


def report_pdfs(account: Account, project: Project, web=None) -> dict[str, bytes]:
    """Each report's PDF downloaded from the back office, filtered to `project`, and the WIP
    of every project."""
    web = web or member_client(account, "viewer")
    pdfs = {}
    for slug in SLUGS:
        response = web.get(f"/admin/reports/{slug}/", {"project": project.pk, "format": "pdf"})
        assert response.status_code == 200, (slug, response.content[:300])
        assert response["Content-Type"] == "application/pdf"
        pdfs[slug] = response.content
    unfiltered = web.get("/admin/reports/wip/", {"format": "pdf"})
    pdfs["wip (every project)"] = unfiltered.content
    return pdfs


def assert_laid_out(pdfs: dict[str, bytes]) -> None:
    for name, pdf in pdfs.items():
        problems = layout_problems(pdf, margin=MARGIN, bottom_margin=FOOTER_Y - 4)
        assert problems == [], (name, problems[:10])


def test_report_pdfs_of_the_demo_job_are_laid_out():
    seed()
    project = Project.objects.get(account__name="Demo Builders", number="2026-014")
    assert_laid_out(report_pdfs(project.account, project))


def test_report_pdfs_of_a_60_line_job_with_long_names_are_laid_out():
    account, project = big_job()
    pdfs = report_pdfs(account, project)
    assert_laid_out(pdfs)
    job_cost = PdfReader(io.BytesIO(pdfs["job-cost"]))
    pages = [page.extract_text() for page in job_cost.pages]
    assert len(pages) > 1
    for number, text in enumerate(pages, start=1):
        assert f"Page {number} of {len(pages)}" in text
        # The header row repeats on every page; its words are whole (never split mid-word).
        assert re.search(r"Original\s+budget", text) and re.search(r"Cost\s+to\s+date", text)
    first = pages[0]
    assert "Job cost report as of" in first
    assert f"Project: {project.number}" in first and "Lincoln Elementary" in first
    # Names wrap inside their column: all 90 characters print, on one or more lines.
    flat = " ".join(" ".join(pages).split())
    assert long_name("00") in flat
    ap = " ".join(PdfReader(io.BytesIO(pdfs["ap-aging"])).pages[0].extract_text().split())
    assert "Every vendor" in ap and long_name("Vendor 03") in ap
    assert BOTTOM > FOOTER_Y
