"""A report as a file: CSV and XLSX for the API and the back office, PDF for the back office
(docs/reports.md, "Files").

Every file holds every row of the report (no pagination), the columns named as in JSON, in
the same order. Money is dollars with two decimals, written from integer cents with integer
arithmetic (`-1234.50`; in the PDF `(1,234.50)` with separators); percents with two decimals;
dates `YYYY-MM-DD`; an empty cell is null.

- CSV (RFC 4180, UTF-8, CRLF): a header row, then the rows. No totals row, so the file is
  data only; the totals are the JSON's `totals`.
- XLSX: sheet `Report` with the header row, the rows and a bold `Total` row (money as
  numbers formatted `#,##0.00`); sheet `About` with the title, the as-of date and the filters.
  A control character XLSX cannot hold (all below U+0020 but tab, line feed and carriage
  return), in a name or an echoed filter, is written as U+FFFD.
- PDF: landscape letter, the title, as-of date and filters, a table with the columns'
  labels, a totals row; pages numbered.
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from xml.sax.saxutils import escape

from django.conf import settings
from django.http import HttpResponse
from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Font
from reportlab.lib import colors
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from jobcost.documents import deadline
from jobcost.documents.pay_app_pdf import money as pdf_money
from jobcost.money import plain_dollars
from jobcost.selectors.reports.table import CENTS, DATE, PERCENT, Column, Report

CSV_TYPE = "text/csv"
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PDF_TYPE = "application/pdf"
MEDIA_TYPES = {"csv": CSV_TYPE, "xlsx": XLSX_TYPE, "pdf": PDF_TYPE}


def cell_text(column: Column, value) -> str:
    """A value as the CSV writes it."""
    if value is None:
        return ""
    if column.kind == CENTS:
        return plain_dollars(value)
    if column.kind == PERCENT:
        return f"{Decimal(value):.2f}"
    if column.kind == DATE:
        return value.isoformat()
    return str(value)


def render_csv(report: Report) -> bytes:
    """The report's rows as CSV bytes (UTF-8, CRLF line ends)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    columns = report.spec.columns
    writer.writerow([column.name for column in columns])
    for row in report.rows:
        writer.writerow([cell_text(column, row[column.name]) for column in columns])
    return buffer.getvalue().encode()


def _xlsx_text(value):
    """A string with the control characters XLSX cannot hold replaced by U+FFFD; any other
    value as it is."""
    return ILLEGAL_CHARACTERS_RE.sub("\ufffd", value) if isinstance(value, str) else value


def _xlsx_value(column: Column, value):
    if value is None:
        return None
    if column.kind == CENTS:
        return Decimal(value) / 100
    if column.kind == PERCENT:
        return Decimal(value)
    return _xlsx_text(value)


def render_xlsx(report: Report) -> bytes:
    """The report as an XLSX workbook (sheets `Report` and `About`)."""
    book = Workbook()
    sheet = book.active
    sheet.title = "Report"
    columns = report.spec.columns
    sheet.append([column.name for column in columns])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in report.rows:
        sheet.append([_xlsx_value(column, row[column.name]) for column in columns])
    totals = [None] * len(columns)
    totals[0] = "Total"
    for index, column in enumerate(columns):
        if column.name in report.totals and index:
            totals[index] = _xlsx_value(column, report.totals[column.name])
    sheet.append(totals)
    for cell in sheet[sheet.max_row]:
        cell.font = Font(bold=True)
    for index, column in enumerate(columns, start=1):
        if column.kind in (CENTS, PERCENT):
            for (cell,) in sheet.iter_rows(min_row=2, min_col=index, max_col=index):
                cell.number_format = "#,##0.00"
        elif column.kind == DATE:
            for (cell,) in sheet.iter_rows(min_row=2, min_col=index, max_col=index):
                cell.number_format = "yyyy-mm-dd"
    about = book.create_sheet("About")
    for line in _about(report):
        about.append([_xlsx_text(value) for value in line])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _about(report: Report) -> list[list[str]]:
    lines = [["Report", report.spec.title], ["As of", report.as_of.isoformat()]]
    lines += [[name, value] for name, value in report.filters.items() if value is not None]
    derived = [column for column in report.spec.derived]
    lines += [
        [column.label, plain_dollars(report.totals[column.name])]
        for column in derived
        if report.totals.get(column.name) is not None
    ]
    return lines


SMALL = ParagraphStyle("report-small", fontName="Helvetica", fontSize=6.5, leading=8)
TITLE = ParagraphStyle("report-title", fontName="Helvetica-Bold", fontSize=13, leading=16)


def _pdf_cell(column: Column, value) -> str:
    if value is None:
        return ""
    if column.kind == CENTS:
        return pdf_money(value)
    if column.kind == PERCENT:
        return f"{Decimal(value):.2f}%"
    if column.kind == DATE:
        return value.strftime("%b %-d, %Y")
    return str(value)


def render_pdf(
    report: Report, *, account_name: str, columns: tuple[Column, ...], subtitle: str = ""
) -> bytes:
    """The report as a PDF table of `columns` (people read names, so the back office leaves
    the ID columns out), with a totals row and numbered pages; `subtitle` names the filters
    in words (`Project: 2026-014 Lincoln Elementary`)."""
    buffer = io.BytesIO()
    page = landscape(letter)
    doc = SimpleDocTemplate(
        buffer,
        pagesize=page,
        leftMargin=0.4 * inch,
        rightMargin=0.4 * inch,
        topMargin=0.5 * inch,
        bottomMargin=0.6 * inch,
        title=f"{report.spec.title} as of {report.as_of:%b %-d, %Y}",
        author=account_name,
        invariant=1,
    )
    heading = [Paragraph(f"{report.spec.title} — as of {report.as_of:%B %-d, %Y}", TITLE)]
    # Paragraphs read markup: names are escaped so that `<b>` or `&` in one prints as written.
    line = f"{account_name}{' · ' + subtitle if subtitle else ''}"
    heading.append(Paragraph(escape(line), SMALL))
    header = [Paragraph(f"<b>{column.label}</b>", SMALL) for column in columns]
    body = [[_pdf_cell(column, row[column.name]) for column in columns] for row in report.rows]
    totals = [
        _pdf_cell(column, report.totals.get(column.name)) if column.name in report.totals else ""
        for column in columns
    ]
    totals[0] = "Total"
    table = Table([header, *body, totals], repeatRows=1)
    numeric = [i for i, column in enumerate(columns) if column.kind in (CENTS, PERCENT)]
    style = [
        ("FONT", (0, 0), (-1, -1), "Helvetica", 6.5),
        ("FONT", (0, -1), (-1, -1), "Helvetica-Bold", 6.5),
        ("GRID", (0, 0), (-1, -1), 0.25, colors.Color(0.6, 0.6, 0.6)),
        ("BACKGROUND", (0, 0), (-1, 0), colors.Color(0.92, 0.92, 0.92)),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]
    style += [("ALIGN", (i, 1), (i, -1), "RIGHT") for i in numeric]
    table.setStyle(TableStyle(style))

    def footer(canvas, document):
        deadline.check()  # a page laid out: past the time limit, stop (README "Limits")
        canvas.saveState()
        canvas.setFont("Helvetica", 7)
        canvas.drawString(0.4 * inch, 0.35 * inch, f"{account_name} · {report.spec.title}")
        canvas.drawRightString(page[0] - 0.4 * inch, 0.35 * inch, f"Page {document.page}")
        canvas.restoreState()

    with deadline.time_limit(settings.JOBCOST_RENDER_TIME_LIMIT):
        doc.build([*heading, Spacer(1, 8), table], onFirstPage=footer, onLaterPages=footer)
    return buffer.getvalue()


def filename(report: Report, extension: str) -> str:
    """`wip-2026-11-30.csv`, `job-cost-2026-014-2026-11-30.xlsx`."""
    return f"{report.spec.name}-{report.as_of.isoformat()}.{extension}"


def file_response(content: bytes, report: Report, extension: str) -> HttpResponse:
    """The file as a download (`Content-Disposition: attachment`)."""
    content_type = MEDIA_TYPES[extension]
    if extension == "csv":
        content_type += "; charset=utf-8"
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename(report, extension)}"'
    return response
