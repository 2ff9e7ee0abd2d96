"""A pay app printed as a PDF in the AIA G702/G703 layout (docs/documents.md), with ReportLab:
the application and certificate page (G702) and the continuation sheet (G703).

`render_pay_app_pdf(snapshot)` is a pure function of the snapshot dict
(`selectors.pay_app_snapshot`): it reads no model, so the bytes depend on the snapshot and
the code alone, and ReportLab's `invariant` output (no creation date, no random document ID)
makes two renders of one snapshot the same bytes.

Layout (landscape letter, 0.5 in margins; every text cell a wrapping Paragraph or a figure
fitted to its column, so nothing overlaps or leaves the page):
- G702: heading block (owner, contractor, project, architect; application no. and date,
  period, contract date), lines 1–9 beside the contractor's signed statement and notary
  block, the change-order summary beside the architect's certificate for payment with the
  AMOUNT CERTIFIED (a blank line until certified) and the certification note.
- G703: every page repeats the heading block (application no. and date, period to,
  project) and the column headings; a page that continues the change-order rows repeats the
  CHANGE ORDERS band.
- Every page: "Page 2 of 3" and the parties in the footer; a draft carries a DRAFT band and
  a DRAFT watermark.

Dollars are written from integer cents with integer arithmetic (`1,234.50`, negatives in
parentheses: `(1,234.50)`); percentages as stored in the snapshot (`0.00%`, never `-0.00%`).
"""

from __future__ import annotations

import datetime
import io
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas as pdfcanvas
from reportlab.platypus import (
    BaseDocTemplate,
    Frame,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from jobcost.documents import deadline
from jobcost.money import printed_dollars as money

PAGE = landscape(letter)
MARGIN = 0.5 * inch
WIDTH = PAGE[0] - 2 * MARGIN  # 10 in of content
BAND = 0.3 * inch  # the strip under the top margin that holds the DRAFT band
FOOTER = 0.3 * inch  # the strip above the bottom margin that holds the footer
FONT, BOLD = "Helvetica", "Helvetica-Bold"
PAD = 3  # cell padding, points
SMALL = ParagraphStyle("small", fontName=FONT, fontSize=7, leading=8.5)
TEXT = ParagraphStyle("text", fontName=FONT, fontSize=8, leading=10)
FIGURE = ParagraphStyle("figure", parent=SMALL, alignment=TA_RIGHT)
TITLE = ParagraphStyle("title", fontName=BOLD, fontSize=13, leading=16)
HEADING = ParagraphStyle("heading", fontName=BOLD, fontSize=8.5, leading=11)
GRID = colors.Color(0.55, 0.55, 0.55)
SHADE = colors.Color(0.92, 0.92, 0.92)
DRAFT_RED = colors.Color(0.75, 0.1, 0.1)
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
BLANK = "_" * 28
UNKNOWN = "_" * 24  # a name or date the project does not hold: a line to write it on
SIGNATURE_WIDTH = 4.9 * inch  # the right column of the G702, less its padding

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
    ("", "%<br/>(G ÷ C)"),
    ("H", "Balance to Finish (C - G)"),
    ("I", "Retainage"),
)
G703_WIDTHS = tuple(w * inch for w in (0.6, 2.3, 0.95, 0.95, 0.9, 0.9, 0.95, 0.55, 0.95, 0.95))
G703_FIGURES = (
    "scheduled_value",
    "previous",
    "this_period",
    "materials_stored",
    "total_completed_and_stored",
    "percent_complete",
    "balance_to_finish",
    "retainage",
)
CONTRACTOR_STATEMENT = (
    "The undersigned Contractor certifies that to the best of the Contractor's knowledge, "
    "information and belief the Work covered by this Application for Payment has been "
    "completed in accordance with the Contract Documents, that all amounts have been paid by "
    "the Contractor for Work for which previous Certificates for Payment were issued and "
    "payments received from the Owner, and that current payment shown herein is now due."
)
ARCHITECT_STATEMENT = (
    "In accordance with the Contract Documents, based on on-site observations and the data "
    "comprising this application, the Architect certifies to the Owner that to the best of "
    "the Architect's knowledge, information and belief the Work has progressed as indicated, "
    "the quality of the Work is in accordance with the Contract Documents, and the Contractor "
    "is entitled to payment of the AMOUNT CERTIFIED."
)
NOT_NEGOTIABLE = (
    "This Certificate is not negotiable. The AMOUNT CERTIFIED is payable only to the "
    "Contractor named herein. Issuance, payment and acceptance of payment are without "
    "prejudice to any rights of the Owner or Contractor under this Contract."
)
# A certification note longer than this prints below the two columns, where it may run on.
NOTE_INLINE_MAX = 400


def day(iso: str | None) -> str:
    """`"2026-10-31"` → `Oct 31, 2026` (locale-free); None → empty."""
    if not iso:
        return ""
    value = datetime.date.fromisoformat(iso)
    return f"{MONTHS[value.month - 1]} {value.day}, {value.year}"


def render_pay_app_pdf(snapshot: dict) -> bytes:
    """The PDF bytes of a snapshot (`selectors.pay_app_snapshot`): the G702 page, then the
    G703 continuation sheet. Pure: the same snapshot gives the same bytes."""
    app, project = snapshot["application"], snapshot["project"]
    buffer = io.BytesIO()
    top = MARGIN + BAND
    bottom = MARGIN + FOOTER
    doc = BaseDocTemplate(
        buffer,
        pagesize=PAGE,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=top,
        bottomMargin=bottom,
        title=f"Application No. {app['number']} — {project['number']} {project['name']}",
        author=snapshot["contractor"]["name"],
        invariant=1,
    )
    heading = _g703_heading(snapshot)
    _, heading_height = heading.wrap(WIDTH, PAGE[1])
    columns = _g703_column_headings()
    _, columns_height = columns.wrap(WIDTH, PAGE[1])
    full = Frame(MARGIN, bottom, WIDTH, PAGE[1] - top - bottom, 0, 0, 0, 0, id="g702")
    sheet_height = PAGE[1] - top - bottom - heading_height - 6 - columns_height
    sheet = Frame(MARGIN, bottom, WIDTH, sheet_height, 0, 0, 0, 0, id="g703")

    def on_g703(canvas, _doc):
        y = PAGE[1] - top - heading_height
        heading.drawOn(canvas, MARGIN, y)
        columns.drawOn(canvas, MARGIN, y - 6 - columns_height)

    doc.addPageTemplates(
        [
            PageTemplate(id="g702", frames=[full]),
            PageTemplate(id="g703", frames=[sheet], onPage=on_g703),
        ]
    )
    story = [*_g702_page(snapshot), NextPageTemplate("g703"), PageBreak(), *_g703_rows(snapshot)]
    doc.build(story, canvasmaker=_canvas_maker(_footer(snapshot), snapshot["stage"] == "draft"))
    return buffer.getvalue()


def _p(text: str, style: ParagraphStyle = TEXT) -> Paragraph:
    return Paragraph(text, style)


def _labelled(*pairs: tuple[str, str]) -> Paragraph:
    """`LABEL: value` lines in one wrapping paragraph (values escaped)."""
    return _p("<br/>".join(f"<b>{label}:</b> {escape(value)}" for label, value in pairs))


def _project_line(project: dict) -> str:
    return f"{project['number']} {project['name']}"


def _period(app: dict) -> str:
    return f"{day(app['period_start'])} to {day(app['period_end'])}"


def _g702_page(snapshot: dict) -> list:
    app, project = snapshot["application"], snapshot["project"]
    parties = Table(
        [
            [
                _labelled(
                    ("TO OWNER", snapshot["owner"]["name"]),
                    ("FROM CONTRACTOR", snapshot["contractor"]["name"]),
                    ("VIA ARCHITECT", project["architect"] or UNKNOWN),
                ),
                _labelled(
                    ("PROJECT", _project_line(project)),
                    ("CONTRACT DATE", day(project["contract_date"]) or UNKNOWN),
                ),
                _labelled(
                    ("APPLICATION NO", str(app["number"])),
                    ("APPLICATION DATE", day(app["date"])),
                    ("PERIOD", _period(app)),
                    ("PERIOD TO", day(app["period_end"])),
                ),
            ]
        ],
        colWidths=[3.6 * inch, 3.4 * inch, 3.0 * inch],
    )
    parties.setStyle(
        TableStyle(
            [
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("BOX", (0, 0), (-1, -1), 0.4, GRID),
                ("LEFTPADDING", (0, 0), (-1, -1), 4),
                ("RIGHTPADDING", (0, 0), (-1, -1), 4),
            ]
        )
    )
    left, right = 4.95 * inch, 5.05 * inch
    body = Table(
        [
            [_application_lines(snapshot, left - 8), _contractor_block(snapshot)],
            [_change_order_summary(snapshot, left - 8), _certificate_block(snapshot)],
        ],
        colWidths=[left, right],
    )
    body.setStyle(
        TableStyle(
            [
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LEFTPADDING", (0, 0), (0, -1), 0),
                ("RIGHTPADDING", (0, 0), (0, -1), 8),
                ("LEFTPADDING", (1, 0), (1, -1), 8),
                ("RIGHTPADDING", (1, 0), (1, -1), 0),
                ("LINEBEFORE", (1, 0), (1, -1), 0.4, GRID),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 6),
            ]
        )
    )
    story = [
        _p("APPLICATION AND CERTIFICATE FOR PAYMENT (G702)", TITLE),
        Spacer(1, 4),
        parties,
        Spacer(1, 6),
        body,
    ]
    certificate = snapshot["certificate"]
    if certificate and len(certificate["note"]) > NOTE_INLINE_MAX:
        story += [
            Spacer(1, 4),
            _p("<b>Explanation of the amount certified (Architect):</b>", SMALL),
            _p(escape(certificate["note"]), SMALL),
        ]
    return story


def _application_lines(snapshot: dict, width: float) -> list:
    figures = snapshot["g702"]
    pct = snapshot["application"]["retainage_pct"]
    rows = [
        [
            number,
            _p(escape(name.format(pct=pct)), SMALL),
            "" if field is None else money(figures[field]),
        ]
        for number, name, field in G702_LINES
    ]
    table = Table(rows, colWidths=[0.3 * inch, width - 1.55 * inch, 1.25 * inch])
    table.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), FONT, 8),
                ("FONT", (0, 10), (-1, 10), BOLD, 8),  # line 8, current payment due
                ("ALIGN", (2, 0), (2, -1), "RIGHT"),
                ("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
                ("LEFTPADDING", (1, 5), (1, 7), 12),
                ("LINEBELOW", (2, 0), (2, -1), 0.4, GRID),
                ("BACKGROUND", (0, 10), (-1, 10), SHADE),
                ("TOPPADDING", (0, 0), (-1, -1), 1.5),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
            ]
        )
    )
    _fit_figures(table, rows, [2], 1.25 * inch, 8)
    intro = _p(
        "Application is made for payment, as shown below, in connection with the Contract. "
        "The Continuation Sheet (G703) is attached. Amounts in "
        f"{snapshot['application']['currency'].upper()}; negative amounts in parentheses.",
        SMALL,
    )
    return [_p("CONTRACTOR'S APPLICATION FOR PAYMENT", HEADING), intro, Spacer(1, 3), table]


def _change_order_summary(snapshot: dict, width: float) -> list:
    """Additions and deductions approved in previous months and this month; the net change
    equals G702 line 2."""
    s = snapshot["change_orders"]
    additions = s["previous_additions"] + s["this_month_additions"]
    deductions = s["previous_deductions"] + s["this_month_deductions"]
    figure = 1.25 * inch
    rows = [
        [_p("<b>CHANGE ORDER SUMMARY</b>", SMALL), "ADDITIONS", "DEDUCTIONS"],
        [
            _p("Total changes approved in previous months by Owner", SMALL),
            money(s["previous_additions"]),
            money(s["previous_deductions"]),
        ],
        [
            _p("Total approved this month", SMALL),
            money(s["this_month_additions"]),
            money(s["this_month_deductions"]),
        ],
        [_p("<b>TOTALS</b>", SMALL), money(additions), money(deductions)],
        [_p("<b>NET CHANGES by Change Order</b>", SMALL), "", money(additions + deductions)],
    ]
    table = Table(rows, colWidths=[width - 2 * figure, figure, figure])
    table.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), FONT, 8),
                ("FONT", (0, 0), (-1, 0), BOLD, 7.5),
                ("FONT", (0, 3), (-1, -1), BOLD, 8),
                ("GRID", (0, 0), (-1, -1), 0.4, GRID),
                ("BACKGROUND", (0, 0), (-1, 0), SHADE),
                ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
                ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
            ]
        )
    )
    _fit_figures(table, rows, [1, 2], figure, 8)
    return [Spacer(1, 4), table]


def _signature_lines(*labels: str) -> Table:
    """`By: ________  Date: ________` lines to sign on: the labels side by side, the lines
    sharing what is left of the right column's width."""
    gap = 12
    label_widths = [stringWidth(f"{label}:", BOLD, 7) + 3 for label in labels]
    line = (SIGNATURE_WIDTH - sum(label_widths) - gap * (len(labels) - 1)) / len(labels)
    cells, widths, lines = [], [], []
    for i, (label, width) in enumerate(zip(labels, label_widths, strict=True)):
        if i:
            cells.append("")
            widths.append(gap)
        cells += [_p(f"<b>{label}:</b>", SMALL), ""]
        widths += [width, line]
        lines.append(len(cells) - 1)
    table = Table([cells], colWidths=widths)
    table.setStyle(
        TableStyle(
            [
                *[("LINEBELOW", (i, 0), (i, 0), 0.5, colors.black) for i in lines],
                ("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
                ("TOPPADDING", (0, 0), (-1, -1), 9),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
                ("LEFTPADDING", (0, 0), (-1, -1), 0),
                ("RIGHTPADDING", (0, 0), (-1, -1), 0),
            ]
        )
    )
    return table


def _contractor_block(snapshot: dict) -> list:
    return [
        _p(escape(CONTRACTOR_STATEMENT), SMALL),
        Spacer(1, 3),
        _labelled(("CONTRACTOR", snapshot["contractor"]["name"])),
        _signature_lines("By", "Date"),
        Spacer(1, 4),
        _signature_lines("State of", "County of"),
        _p(
            "Subscribed and sworn to before me this ________ day of ____________________, 20____",
            SMALL,
        ),
        _signature_lines("Notary Public", "My commission expires"),
    ]


def _certificate_block(snapshot: dict) -> list:
    certificate = snapshot["certificate"]
    applied = money(snapshot["g702"]["current_payment_due"])
    if certificate is None:
        amount = f"$ {BLANK}"
        when = ""
    else:
        amount = f"$ {money(certificate['amount_certified'])}"
        when = day(certificate["certified_on"])
    amounts = Table(
        [
            [_p("<b>AMOUNT CERTIFIED</b>", TEXT), _p(f"<b>{escape(amount)}</b>", TEXT)],
            [_p("Amount applied for (line 8)", SMALL), _p(f"$ {applied}", SMALL)],
        ],
        colWidths=[1.9 * inch, 3.0 * inch],
    )
    amounts.setStyle(
        TableStyle(
            [
                ("LEFTPADDING", (0, 0), (-1, -1), 0),
                ("TOPPADDING", (0, 0), (-1, -1), 1),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
            ]
        )
    )
    note = (certificate or {}).get("note", "")
    if len(note) > NOTE_INLINE_MAX:
        note_text = "<b>Note:</b> see the explanation below."
    elif note:
        note_text = f"<b>Note:</b> {escape(note)}"
    else:
        note_text = (
            "(Attach explanation if amount certified differs from the amount applied. Initial "
            "all figures on this Application and on the Continuation Sheet that are changed to "
            "conform with the amount certified.)"
        )
    architect = snapshot["project"]["architect"] or UNKNOWN
    return [
        Spacer(1, 4),
        _p("ARCHITECT'S CERTIFICATE FOR PAYMENT", HEADING),
        _p(escape(ARCHITECT_STATEMENT), SMALL),
        Spacer(1, 3),
        amounts,
        _p(note_text, SMALL),
        Spacer(1, 2),
        _labelled(("ARCHITECT", architect), ("CERTIFIED ON", when or UNKNOWN)),
        _signature_lines("By", "Date"),
        Spacer(1, 3),
        _p(escape(NOT_NEGOTIABLE), SMALL),
    ]


def _g703_heading(snapshot: dict) -> Table:
    """The block every G703 page repeats: title, application no. and date, period to,
    project."""
    app, project = snapshot["application"], snapshot["project"]
    table = Table(
        [
            [
                [
                    _p("CONTINUATION SHEET (G703)", TITLE),
                    _p(
                        "Application and Certificate for Payment containing the Contractor's "
                        "signed certification is attached. Amounts in "
                        f"{app['currency'].upper()}; negative amounts in parentheses. "
                        f"Retainage {escape(app['retainage_pct'])}%.",
                        SMALL,
                    ),
                ],
                _labelled(("PROJECT", _project_line(project))),
                _labelled(
                    ("APPLICATION NO", str(app["number"])),
                    ("APPLICATION DATE", day(app["date"])),
                    ("PERIOD TO", day(app["period_end"])),
                ),
            ]
        ],
        colWidths=[3.9 * inch, 3.6 * inch, 2.5 * inch],
    )
    table.setStyle(
        TableStyle(
            [
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LEFTPADDING", (0, 0), (0, 0), 0),
                ("TOPPADDING", (0, 0), (-1, -1), 0),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 0),
            ]
        )
    )
    return table


def _g703_column_headings() -> Table:
    header = [
        _p(f"<b>{letter_}</b><br/>{name}" if letter_ else name, SMALL)
        for letter_, name in G703_HEADINGS
    ]
    table = Table([header], colWidths=G703_WIDTHS)
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.3, GRID),
                ("BACKGROUND", (0, 0), (-1, -1), SHADE),
                ("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
            ]
        )
    )
    return table


def _g703_cells(item: str, description, figures: dict) -> list:
    return [
        item,
        description,
        *(
            f"{figures[key]}%" if key == "percent_complete" else money(figures[key])
            for key in G703_FIGURES
        ),
    ]


def _g703_table(rows: list[list], *, band: bool = False, total: bool = False) -> Table:
    """A run of G703 rows with the column widths of the headings, so the runs read as one
    grid; with `band`, its first row is a band repeated on each page it continues onto."""
    table = Table(rows, colWidths=G703_WIDTHS, repeatRows=1 if band else 0)
    style = [
        ("FONT", (0, 0), (-1, -1), FONT, 7),
        ("GRID", (0, 0), (-1, -1), 0.3, GRID),
        ("ALIGN", (2, 0), (-1, -1), "RIGHT"),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 2),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
    ]
    if band:
        # The band, then change-order rows whose description ("CO-001 — title") spans the
        # item and description columns: the number is printed once.
        style += [
            ("SPAN", (0, 0), (-1, 0)),
            ("BACKGROUND", (0, 0), (-1, 0), SHADE),
            *[("SPAN", (0, r), (1, r)) for r in range(1, len(rows))],
        ]
    if total:
        style += [("FONT", (0, -1), (-1, -1), BOLD, 7), ("BACKGROUND", (0, -1), (-1, -1), SHADE)]
    table.setStyle(TableStyle(style))
    for index, width in enumerate(G703_WIDTHS):
        if index >= 2:
            _fit_figures(table, rows, [index], width, 7, skip_first=band)
    return table


def _g703_rows(snapshot: dict) -> list:
    """The continuation sheet's rows: the cost-code rows, then the change-order rows under
    their band, then the grand total (the page template draws the headings)."""
    base, orders = [], []
    for row in snapshot["rows"]:
        description = _p(escape(row["description"]), SMALL)
        if row["change_order"]:
            orders.append(_g703_cells(description, "", row))
        else:
            base.append(_g703_cells(_item(row["item"]), description, row))
    grand_total = _g703_cells("", _p("<b>GRAND TOTAL</b>", SMALL), snapshot["totals"])
    story = []
    if base:
        story.append(_g703_table(base))
    if orders:
        band = [_p("<b>CHANGE ORDERS</b>", SMALL), *[""] * 9]
        story.append(_g703_table([band, *orders], band=True))
    story.append(_g703_table([grand_total], total=True))
    return story


def _item(item: str):
    """An item number as text, or a wrapping paragraph when it is wider than its column."""
    if stringWidth(item, FONT, 7) + 2 * PAD + 4 <= G703_WIDTHS[0]:
        return item
    return _p(escape(item), SMALL)


def _fit_figures(table: Table, rows, columns, width, size, *, skip_first=False) -> None:
    """Shrink a figure's font (to 5 pt) where it is wider than its column, so no figure runs
    past its cell; past that it wraps (never happens below the money cap)."""
    commands = []
    for r, row in enumerate(rows):
        if skip_first and r == 0:
            continue
        for c in columns:
            text = row[c]
            if not isinstance(text, str) or not text:
                continue
            for fitted in (size, 6, 5.5, 5):
                if stringWidth(text, BOLD, fitted) + 2 * PAD + 1 <= width:
                    break
            if fitted != size:
                commands.append(("FONTSIZE", (c, r), (c, r), fitted))
    if commands:
        table.setStyle(TableStyle(commands))


def _footer(snapshot: dict) -> str:
    app, project = snapshot["application"], snapshot["project"]
    return (
        f"{snapshot['contractor']['name']} · Application No. {app['number']} · "
        f"{_project_line(project)}"
    )


def _fit(text: str, width: float, font: str, size: float) -> str:
    """`text`, cut with an ellipsis to fit `width` points."""
    if stringWidth(text, font, size) <= width:
        return text
    while text and stringWidth(text + "…", font, size) > width:
        text = text[:-1]
    return text + "…"


def _canvas_maker(footer: str, draft: bool):
    """A canvas class that defers each page until the page count is known, then stamps the
    footer ("Page 2 of 3") and, on a draft, the DRAFT band and watermark on every page."""

    class NumberedCanvas(pdfcanvas.Canvas):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._pages: list[dict] = []

        def showPage(self):
            # A page laid out: past the time limit, stop (docs/operations/limits.md).
            deadline.check()
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
            number = f"Page {self._pageNumber} of {count}"
            room = WIDTH - stringWidth(number, FONT, 7.5) - 0.3 * inch
            self.drawString(MARGIN, MARGIN + 0.08 * inch, _fit(footer, room, FONT, 7.5))
            self.drawRightString(width - MARGIN, MARGIN + 0.08 * inch, number)
            if draft:
                self.setFillColor(DRAFT_RED)
                self.rect(MARGIN, height - MARGIN - BAND + 3, WIDTH, BAND - 5, stroke=0, fill=1)
                self.setFillColor(colors.white)
                self.setFont(BOLD, 10.5)
                self.drawCentredString(
                    width / 2,
                    height - MARGIN - BAND + 9,
                    "DRAFT — not submitted; figures may change",
                )
                self.setFillColor(colors.Color(0.75, 0.1, 0.1, alpha=0.08))
                self.setFont(BOLD, 120)
                self.translate(width / 2, height / 2)
                self.rotate(30)
                self.drawCentredString(0, -40, "DRAFT")
            self.restoreState()

    return NumberedCanvas


def pay_app_pdf_filename(project_number: str, number: int) -> str:
    """`2026-014-pay-app-2.pdf` (anything but letters, digits, `-` and `_` becomes `-`)."""
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in project_number)
    return f"{safe}-pay-app-{number}.pdf"
