"""A pay app printed as a PDF: the application and certificate page in the AIA G702 shape and
the continuation sheet in the G703 shape (docs/computations.md), with ReportLab.

Every figure is the stored one the API returns for GET /v1/pay-apps/{id}: the G703 rows are
`selectors.pay_apps.pay_app_rows` and the G702 lines `pay_app_figures`, on the pay app read
through `visible.pay_app_list` (nothing is recomputed here), so a submitted pay app prints the
same figures whenever it is printed. The change-order summary is read from the same rows: the
change-order rows whose change order landed on this pay app (`pay_app.change_orders`) are
"this month", the others "previous months"; additions are the positive ones, deductions the
negative ones.

Dollars are written from integer cents with integer arithmetic (`1,234.50`, negatives in
parentheses: `(1,234.50)`). Pages are numbered "Page 2 of 3"; a draft carries a DRAFT band
and a DRAFT watermark on every page. The output is invariant (no creation date or random
document ID), so two prints of the same figures are the same bytes.
"""

from __future__ import annotations

import io
from xml.sax.saxutils import escape

from django.http import HttpResponse
from reportlab.lib import colors
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfgen import canvas as pdfcanvas
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from jobcost.documents import deadline
from jobcost.models import PayApp, PayAppStatus
from jobcost.money import ratio_pct
from jobcost.selectors.g702 import G702, G703Row
from jobcost.selectors.pay_apps import pay_app_figures, pay_app_rows

PAGE = landscape(letter)
MARGIN = 0.5 * inch
FONT, BOLD = "Helvetica", "Helvetica-Bold"
SMALL = ParagraphStyle("small", fontName=FONT, fontSize=7, leading=8.5)
TITLE = ParagraphStyle("title", fontName=BOLD, fontSize=14, leading=17)
HEADING = ParagraphStyle("heading", fontName=BOLD, fontSize=9, leading=11)
GRID = colors.Color(0.55, 0.55, 0.55)
SHADE = colors.Color(0.92, 0.92, 0.92)
DRAFT_RED = colors.Color(0.75, 0.1, 0.1)

# The G702 lines with their standard names, in the form's order: (number, name, figure).
G702_LINES = (
    ("1.", "ORIGINAL CONTRACT SUM", "original_contract_sum"),
    ("2.", "Net change by Change Orders", "net_change_by_change_orders"),
    ("3.", "CONTRACT SUM TO DATE (Line 1 ± 2)", "contract_sum_to_date"),
    ("4.", "TOTAL COMPLETED & STORED TO DATE (Column G on G703)", "total_completed_and_stored"),
    ("5.", "RETAINAGE:", None),
    ("a.", "{pct}% of Completed Work (Columns D + E on G703)", "retainage_completed_work"),
    ("b.", "{pct}% of Stored Material (Column F on G703)", "retainage_stored_materials"),
    ("", "Total Retainage (Lines 5a + 5b, or Total in Column I of G703)", "total_retainage"),
    (
        "6.",
        "TOTAL EARNED LESS RETAINAGE (Line 4 minus Line 5 Total)",
        "total_earned_less_retainage",
    ),
    (
        "7.",
        "LESS PREVIOUS CERTIFICATES FOR PAYMENT (Line 6 from prior Certificate)",
        "less_previous_certificates",
    ),
    ("8.", "CURRENT PAYMENT DUE", "current_payment_due"),
    (
        "9.",
        "BALANCE TO FINISH, INCLUDING RETAINAGE (Line 3 minus Line 6)",
        "balance_to_finish_including_retainage",
    ),
)
G703_HEADINGS = (
    ("A", "Item No."),
    ("B", "Description of Work"),
    ("C", "Scheduled Value"),
    ("D", "Work Completed From Previous Application"),
    ("E", "Work Completed This Period"),
    ("F", "Materials Presently Stored (not in D or E)"),
    ("G", "Total Completed and Stored to Date (D + E + F)"),
    ("", "% (G ÷ C)"),
    ("H", "Balance to Finish (C − G)"),
    ("I", "Retainage"),
)


def money(cents: int) -> str:
    """`123450` → `1,234.50`; `-123450` → `(1,234.50)`; integer arithmetic only."""
    whole, fraction = divmod(abs(int(cents)), 100)
    text = f"{whole:,}.{fraction:02d}"
    return f"({text})" if cents < 0 else text


def pct(value) -> str:
    """A percentage with two decimals: `Decimal("37.5")` → `37.50%`."""
    return f"{value:.2f}%"


def render_pay_app_pdf(pay_app: PayApp) -> bytes:
    """The PDF of a pay app read through `visible.pay_app_list` (its lines, change orders and
    line 7 prefetched): one G702 page, then the G703 continuation sheet."""
    rows = pay_app_rows(pay_app)
    figures = pay_app_figures(pay_app)
    project = pay_app.project
    draft = pay_app.status == PayAppStatus.DRAFT
    footer = (
        f"{project.account.name} · Application No. {pay_app.number} · "
        f"{project.number} {project.name}"
    )
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(
        buffer,
        pagesize=PAGE,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN + 0.3 * inch,
        bottomMargin=MARGIN + 0.2 * inch,
        title=f"Application No. {pay_app.number} — {project.number} {project.name}",
        author=project.account.name,
        invariant=1,
    )
    story = [
        *_g702_page(pay_app, figures, rows),
        PageBreak(),
        *_g703_sheet(pay_app, rows),
    ]
    doc.build(story, canvasmaker=_canvas_maker(footer, draft))
    return buffer.getvalue()


def _g702_page(pay_app: PayApp, figures: G702, rows: list[G703Row]) -> list:
    project = pay_app.project
    period = f"{pay_app.period_start.isoformat()} to {pay_app.period_end.isoformat()}"
    parties = Table(
        [
            ["To owner:", project.owner.name, "Application No.:", str(pay_app.number)],
            ["Project:", f"{project.number} {project.name}", "Period:", period],
            ["From contractor:", project.account.name, "Status:", pay_app.status],
            ["Contract for:", project.name, "Currency:", pay_app.currency.upper()],
        ],
        colWidths=[1.2 * inch, 4.3 * inch, 1.3 * inch, 3.2 * inch],
        hAlign="LEFT",
    )
    parties.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), FONT, 9),
                ("FONT", (0, 0), (0, -1), BOLD, 9),
                ("FONT", (2, 0), (2, -1), BOLD, 9),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
                ("TOPPADDING", (0, 0), (-1, -1), 2),
            ]
        )
    )
    retainage = _plain_pct(pay_app.retainage_pct)
    lines = [
        [
            number,
            name.format(pct=retainage),
            "" if field is None else money(getattr(figures, field)),
        ]
        for number, name, field in G702_LINES
    ]
    summary = Table(lines, colWidths=[0.35 * inch, 4.2 * inch, 1.35 * inch], hAlign="LEFT")
    summary.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), FONT, 8.5),
                ("FONT", (0, 10), (-1, 10), BOLD, 8.5),  # line 8, current payment due
                ("ALIGN", (2, 0), (2, -1), "RIGHT"),
                ("LEFTPADDING", (1, 5), (1, 7), 14),
                ("LINEBELOW", (2, 0), (2, -1), 0.4, GRID),
                ("BACKGROUND", (0, 10), (-1, 10), SHADE),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
            ]
        )
    )
    changes = Table(
        _change_order_summary(pay_app, rows),
        colWidths=[2.3 * inch, 1.15 * inch, 1.15 * inch],
        hAlign="LEFT",
    )
    changes.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), FONT, 8),
                ("FONT", (0, 0), (-1, 0), BOLD, 8),
                ("FONT", (0, 3), (-1, -1), BOLD, 8),
                ("GRID", (0, 0), (-1, -1), 0.4, GRID),
                ("BACKGROUND", (0, 0), (-1, 0), SHADE),
                ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
                ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
            ]
        )
    )
    body = Table(
        [
            [
                [Paragraph("CONTRACTOR'S APPLICATION FOR PAYMENT", HEADING), summary],
                [Paragraph("CHANGE ORDER SUMMARY", HEADING), Spacer(1, 4), changes],
            ]
        ],
        colWidths=[6.1 * inch, 3.9 * inch],
        hAlign="LEFT",
    )
    body.setStyle(
        TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0)])
    )
    note = Paragraph(
        "Application is made for payment, as shown above, in connection with the Contract. "
        "The continuation sheet (G703 shape) is attached. Amounts in "
        f"{pay_app.currency.upper()}; negative amounts are in parentheses.",
        SMALL,
    )
    return [
        Paragraph("APPLICATION AND CERTIFICATE FOR PAYMENT (G702)", TITLE),
        Spacer(1, 6),
        parties,
        Spacer(1, 10),
        body,
        Spacer(1, 10),
        note,
    ]


def _change_order_summary(pay_app: PayApp, rows: list[G703Row]) -> list[list[str]]:
    """Additions and deductions approved in previous months and this month, from the
    change-order rows of the G703; the net change equals G702 line 2."""
    this_month = {co.pk for co in pay_app.change_orders.all()}
    sums = {True: [0, 0], False: [0, 0]}  # landed this month → [additions, deductions]
    for row in rows:
        if row.change_order is None:
            continue
        side = 0 if row.scheduled_value >= 0 else 1
        sums[row.change_order in this_month][side] += row.scheduled_value
    additions = sums[False][0] + sums[True][0]
    deductions = sums[False][1] + sums[True][1]
    return [
        ["", "ADDITIONS", "DEDUCTIONS"],
        [
            Paragraph("Total changes approved in previous months by Owner", SMALL),
            money(sums[False][0]),
            money(sums[False][1]),
        ],
        [Paragraph("Total approved this month", SMALL), money(sums[True][0]), money(sums[True][1])],
        ["TOTALS", money(additions), money(deductions)],
        [Paragraph("<b>NET CHANGES by Change Order</b>", SMALL), "", money(additions + deductions)],
    ]


def _g703_sheet(pay_app: PayApp, rows: list[G703Row]) -> list:
    header = [
        Paragraph(f"<b>{letter_}</b><br/>{name}" if letter_ else f"<br/>{name}", SMALL)
        for letter_, name in G703_HEADINGS
    ]
    data = [header]
    change_order_start = None
    for row in rows:
        if row.change_order is not None and change_order_start is None:
            change_order_start = len(data)
            data.append(["", "CHANGE ORDERS", "", "", "", "", "", "", "", ""])
        data.append(
            [
                row.item,
                Paragraph(escape(row.description), SMALL),
                money(row.scheduled_value),
                money(row.previous),
                money(row.this_period),
                money(row.materials_stored),
                money(row.total_completed_and_stored),
                pct(row.percent_complete),
                money(row.balance_to_finish),
                money(row.retainage),
            ]
        )
    scheduled = sum(r.scheduled_value for r in rows)
    total = sum(r.total_completed_and_stored for r in rows)
    data.append(
        [
            "",
            "GRAND TOTAL",
            money(scheduled),
            money(sum(r.previous for r in rows)),
            money(sum(r.this_period for r in rows)),
            money(sum(r.materials_stored for r in rows)),
            money(total),
            pct(ratio_pct(total, scheduled)),
            money(sum(r.balance_to_finish for r in rows)),
            money(sum(r.retainage for r in rows)),
        ]
    )
    widths = [0.55, 2.45, 0.95, 0.95, 0.9, 0.9, 0.95, 0.6, 0.9, 0.85]
    table = Table(data, colWidths=[w * inch for w in widths], repeatRows=1)
    style = [
        ("FONT", (0, 0), (-1, -1), FONT, 7.5),
        ("FONT", (0, -1), (-1, -1), BOLD, 7.5),
        ("GRID", (0, 0), (-1, -1), 0.3, GRID),
        ("BACKGROUND", (0, 0), (-1, 0), SHADE),
        ("BACKGROUND", (0, -1), (-1, -1), SHADE),
        ("ALIGN", (2, 1), (-1, -1), "RIGHT"),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
    ]
    if change_order_start is not None:
        style.append(("FONT", (0, change_order_start), (-1, change_order_start), BOLD, 7.5))
        style.append(("SPAN", (1, change_order_start), (-1, change_order_start)))
    table.setStyle(TableStyle(style))
    retainage = _plain_pct(pay_app.retainage_pct)
    intro = Paragraph(
        f"Application No. {pay_app.number}, period {pay_app.period_start.isoformat()} to "
        f"{pay_app.period_end.isoformat()}; retainage {retainage}%. Amounts in "
        f"{pay_app.currency.upper()}; negative amounts are in parentheses.",
        SMALL,
    )
    return [
        Paragraph("CONTINUATION SHEET (G703)", TITLE),
        Spacer(1, 4),
        intro,
        Spacer(1, 6),
        table,
    ]


def _plain_pct(value) -> str:
    """`Decimal("10.00")` → `10`, `Decimal("7.50")` → `7.5` (never `1E+1`)."""
    return format(value.normalize(), "f")


def _canvas_maker(footer: str, draft: bool):
    """A canvas class that defers each page until the page count is known, then stamps the
    footer ("Page 2 of 3") and, on a draft, the DRAFT band and watermark on every page."""

    class NumberedCanvas(pdfcanvas.Canvas):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._pages: list[dict] = []

        def showPage(self):
            deadline.check()  # a page laid out: past the time limit, stop (README "Limits")
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self):
            count = len(self._pages)
            for state in self._pages:
                self.__dict__.update(state)
                self._stamp(count)
                super().showPage()
            super().save()

        def _stamp(self, count: int) -> None:
            width, height = PAGE
            self.saveState()
            self.setFont(FONT, 7.5)
            self.setFillColor(colors.black)
            self.drawString(MARGIN, MARGIN - 0.05 * inch, footer)
            self.drawRightString(
                width - MARGIN, MARGIN - 0.05 * inch, f"Page {self._pageNumber} of {count}"
            )
            if draft:
                self.setFillColor(DRAFT_RED)
                self.rect(0, height - 0.4 * inch, width, 0.4 * inch, stroke=0, fill=1)
                self.setFillColor(colors.white)
                self.setFont(BOLD, 11)
                self.drawCentredString(
                    width / 2,
                    height - 0.27 * inch,
                    "DRAFT — not submitted; figures may change",
                )
                self.setFillColor(colors.Color(0.75, 0.1, 0.1, alpha=0.08))
                self.setFont(BOLD, 120)
                self.translate(width / 2, height / 2)
                self.rotate(30)
                self.drawCentredString(0, -40, "DRAFT")
            self.restoreState()

    return NumberedCanvas


def pay_app_pdf_filename(pay_app: PayApp) -> str:
    """`2026-014-pay-app-2.pdf` (the project number is letters, digits and dashes)."""
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in pay_app.project.number)
    return f"{safe}-pay-app-{pay_app.number}.pdf"


def pay_app_pdf_response(pay_app: PayApp) -> HttpResponse:
    """The PDF as a download, for the API route and the admin's button alike."""
    response = HttpResponse(render_pay_app_pdf(pay_app), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{pay_app_pdf_filename(pay_app)}"'
    return response
