"""A report as the PDF an accountant prints (back office only; docs/reports.md, "Files").

Landscape letter. On top the title with the as-of date, then the account and the filters in
words (`Project: P-2024-017 Lincoln Elementary · Every vendor`). One table: the columns people
read (the caller leaves the IDs out) under their labels, a bold totals row, the header row
repeated on every page; "Page N of M" at the foot of each page.

Layout (every glyph inside the margins, none over another, no rule through one — asserted by
tests/jobcost/admin/test_report_pdf_layout.py):

- Figures (money, percents, counts, dates) never wrap: their column is as wide as its widest
  figure, total included. Names wrap at spaces (Paragraph cells) in the width left over,
  shared by the text columns in proportion to their longest text.
- Headings wrap at spaces only: a column is at least as wide as the longest word of its
  label, so no heading is broken mid-word.
- The font steps down from 7 to 5 points until the figures fit the page's width; past that
  (sums beyond a trillion dollars across a dozen columns) every column gets a share of the
  width in proportion to its text and the figures wrap in their cells.
"""

from __future__ import annotations

import io
from decimal import Decimal
from xml.sax.saxutils import escape

from django.conf import settings
from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT, TA_RIGHT
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas as pdfcanvas
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from jobcost.documents import deadline
from jobcost.documents.report_files import filter_label
from jobcost.money import printed_dollars as money
from jobcost.selectors.reports.table import CENTS, DATE, INTEGER, PERCENT, Column, Report

PAGE = landscape(letter)
MARGIN = 0.4 * inch
BOTTOM = 0.6 * inch  # the frame ends here; the footer sits below it
FOOTER_Y = 0.3 * inch
# The table's width: the page less the margins and the frame's own padding (6 points a side,
# SimpleDocTemplate's default).
WIDTH = PAGE[0] - 2 * MARGIN - 12
FONT, BOLD = "Helvetica", "Helvetica-Bold"
SIZES = (7.0, 6.5, 6.0, 5.5, 5.0)
PAD = 2.5  # a cell's left and right padding (points)
SLACK = 1.0  # added to every measured width, so rounding never wraps a word
TEXT_MIN = 48.0  # a text column is at least this wide (points) before the headings' words
TEXT_CAP = 220.0  # a text column's share is measured up to this width
WORD_CAP = 120.0  # a word longer than this (points) may break inside its cell
FIGURES = (CENTS, PERCENT, INTEGER, DATE)
WORDS = ("status", "type")  # codes people read as words: `active` → `Active`
TITLE = ParagraphStyle("report-title", fontName=BOLD, fontSize=13, leading=16)
SUBTITLE = ParagraphStyle("report-subtitle", fontName=FONT, fontSize=8, leading=10)


def figure(column: Column, value) -> str:
    """A cell's text as printed: money `(1,234.50)`, `37.50%`, `Oct 31, 2026`, names as
    stored."""
    if value is None:
        return ""
    if column.kind == CENTS:
        return money(value)
    if column.kind == PERCENT:
        return f"{Decimal(value):.2f}%"
    if column.kind == DATE:
        return value.strftime("%b %-d, %Y")
    if column.name in WORDS:
        return str(value).replace("_", " ").capitalize()  # `active` → `Active`
    return str(value)


def _widest_word(text: str, font: str, size: float) -> float:
    return max((stringWidth(word, font, size) for word in text.split()), default=0.0)


def _fit(columns, cells, totals, size: float) -> list[float] | None:
    """Column widths (points) at font `size` that fit the page, or None when the figures
    alone are too wide."""
    available = WIDTH
    widths, whole, natural, full = [], [], [], []
    for index, column in enumerate(columns):
        heading = _widest_word(column.label, BOLD, size)
        if column.kind in FIGURES:
            wide = max(
                [stringWidth(row[index], FONT, size) for row in cells]
                + [stringWidth(totals[index], BOLD, size), heading]
            )
            widths.append(wide + 2 * PAD + SLACK)
            whole.append(None)
            natural.append(None)
            full.append(None)
        else:
            longest = max(
                [stringWidth(row[index], FONT, size) for row in cells]
                + [stringWidth(totals[index], BOLD, size), stringWidth(column.label, BOLD, size)]
            )
            low = max(heading, min(TEXT_MIN, longest)) + 2 * PAD + SLACK
            widths.append(low)
            word = max([_widest_word(row[index], FONT, size) for row in cells] + [0.0])
            whole.append(max(low, min(word, WORD_CAP) + 2 * PAD + SLACK))
            natural.append(max(low, min(longest, TEXT_CAP) + 2 * PAD + SLACK))
            full.append(max(low, longest + 2 * PAD + SLACK))
    spare = available - sum(widths)
    if spare < 0:
        return None
    # Text columns grow in steps, each shared in proportion when the page is short: to their
    # longest word (an invoice number stays whole), to TEXT_CAP, then to their whole text, so
    # a name wraps only when the page has no room for it on one line.
    for target in (whole, natural, full):
        wants = {i: target[i] - widths[i] for i in range(len(columns)) if target[i] is not None}
        wanted = sum(want for want in wants.values() if want > 0)
        if wanted <= 0 or spare <= 0:
            continue
        for i, want in wants.items():
            if want > 0:
                grow = want if wanted <= spare else spare * want / wanted
                widths[i] += grow
        spare = available - sum(widths)
    return widths


def _squeeze(columns, cells, totals, size: float) -> list[float]:
    """The last resort when the figures alone are wider than the page even at the smallest
    size: every column as wide as its heading's longest word, then a share of the rest in
    proportion to its text (names up to TEXT_CAP); the figures then wrap in their cells."""
    base, wants = [], []
    for index, column in enumerate(columns):
        texts = [row[index] for row in cells] + [totals[index], column.label]
        wide = max(stringWidth(text, BOLD, size) for text in texts)
        base.append(_widest_word(column.label, BOLD, size) + 2 * PAD + SLACK)
        wants.append((wide if column.kind in FIGURES else min(wide, TEXT_CAP)) + 2 * PAD)
    spare = WIDTH - sum(base)
    if spare <= 0:  # not even the headings' words fit: shares of the page
        return [WIDTH * want / sum(wants) for want in wants]
    # Each heading's longest word first (no heading breaks mid-word), then the rest of the
    # page in proportion to what each column's text would take beyond it.
    more = [max(want - low, 0.0) for want, low in zip(wants, base, strict=True)]
    total = sum(more) or 1.0
    return [low + spare * extra / total for low, extra in zip(base, more, strict=True)]


def _canvas_maker(footer: str):
    """A canvas that holds each page until the count is known, then prints the footer and
    "Page N of M" on every page."""

    class NumberedCanvas(pdfcanvas.Canvas):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._held: list[dict] = []

        def showPage(self):
            # A page laid out: past the time limit, stop (docs/operations/limits.md).
            deadline.check()
            self._held.append(dict(self.__dict__))
            self._startPage()

        def save(self):
            count = len(self._held)
            for state in self._held:
                self.__dict__.update(state)
                self.saveState()
                self.setFont(FONT, 7)
                number = f"Page {self._pageNumber} of {count}"
                self.drawRightString(PAGE[0] - MARGIN, FOOTER_Y, number)
                room = PAGE[0] - 2 * MARGIN - stringWidth(number, FONT, 7) - 18
                text = footer
                while text and stringWidth(text, FONT, 7) > room:
                    text = text[:-2] + "…"
                self.drawString(MARGIN, FOOTER_Y, text)
                self.restoreState()
                super().showPage()
            super().save()

    return NumberedCanvas


def filters_in_words(report: Report, subtitle: str) -> str:
    """The filters chosen (`subtitle`, in words) and those not chosen (`Every vendor`)."""
    words = [subtitle] if subtitle else []
    words += [
        f"Every {filter_label(name).lower()}"
        for name, value in report.filters.items()
        if value is None
    ]
    return " · ".join(words)


def render_pdf(
    report: Report, *, account_name: str, columns: tuple[Column, ...], subtitle: str = ""
) -> bytes:
    """The report as a PDF table of `columns` (people read names, so the back office leaves
    the ID columns out), with a totals row and pages numbered "Page N of M"; `subtitle` names
    the filters chosen in words (`Project: 2026-014 Lincoln Elementary`)."""
    cells = [[figure(column, row[column.name]) for column in columns] for row in report.rows]
    totals = [
        figure(column, report.totals.get(column.name)) if column.name in report.totals else ""
        for column in columns
    ]
    totals[0] = "Total"
    size, widths = SIZES[-1], None
    for size in SIZES:
        widths = _fit(columns, cells, totals, size)
        if widths is not None:
            break
    squeezed = widths is None
    if squeezed:
        widths = _squeeze(columns, cells, totals, size)
    leading = size + 1.5
    left = ParagraphStyle("cell", fontName=FONT, fontSize=size, leading=leading)
    heading_left = ParagraphStyle(
        "heading", fontName=BOLD, fontSize=size, leading=leading, alignment=TA_LEFT
    )
    heading_right = ParagraphStyle("heading-right", parent=heading_left, alignment=TA_RIGHT)
    bold_left = ParagraphStyle("total", parent=left, fontName=BOLD)

    def text_cell(text: str, style) -> Paragraph:
        # Paragraphs read markup: a name is escaped so that `<b>` or `&` prints as written.
        return Paragraph(escape(text).replace("\n", "<br/>"), style)

    figures = [i for i, column in enumerate(columns) if column.kind in FIGURES]
    header = [
        text_cell(column.label, heading_right if i in figures else heading_left)
        for i, column in enumerate(columns)
    ]
    right = ParagraphStyle("figure", parent=left, alignment=TA_RIGHT)
    bold_right = ParagraphStyle("total-figure", parent=bold_left, alignment=TA_RIGHT)

    def cell(i: int, value: str, bold: bool = False):
        if i not in figures:
            return text_cell(value, bold_left if bold else left)
        # A squeezed table's figures wrap inside their cells rather than run into the next.
        return text_cell(value, bold_right if bold else right) if squeezed else value

    body = [[cell(i, value) for i, value in enumerate(row)] for row in cells]
    total_row = [cell(i, value, bold=True) for i, value in enumerate(totals)]
    table = Table([header, *body, total_row], colWidths=widths, repeatRows=1, hAlign="LEFT")
    style = [
        ("FONT", (0, 0), (-1, -1), FONT, size, leading),
        ("FONT", (0, -1), (-1, -1), BOLD, size, leading),
        ("GRID", (0, 0), (-1, -1), 0.25, colors.Color(0.6, 0.6, 0.6)),
        ("BACKGROUND", (0, 0), (-1, 0), colors.Color(0.92, 0.92, 0.92)),
        ("BACKGROUND", (0, -1), (-1, -1), colors.Color(0.96, 0.96, 0.96)),
        ("VALIGN", (0, 0), (-1, 0), "BOTTOM"),
        ("VALIGN", (0, 1), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), PAD),
        ("RIGHTPADDING", (0, 0), (-1, -1), PAD),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
    ]
    style += [("ALIGN", (i, 1), (i, -1), "RIGHT") for i in figures]
    table.setStyle(TableStyle(style))

    buffer = io.BytesIO()
    title = f"{report.spec.title} as of {report.as_of:%B %-d, %Y}"
    doc = SimpleDocTemplate(
        buffer,
        pagesize=PAGE,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=BOTTOM,
        title=title,
        author=account_name,
        invariant=1,
    )
    line = " · ".join(part for part in (account_name, filters_in_words(report, subtitle)) if part)
    story = [
        Paragraph(escape(title), TITLE),
        Paragraph(escape(line), SUBTITLE),
        Spacer(1, 8),
        table,
    ]
    with deadline.time_limit(settings.JOBCOST_RENDER_TIME_LIMIT):
        doc.build(story, canvasmaker=_canvas_maker(f"{account_name} · {title}"))
    return buffer.getvalue()
