"""A report as a spreadsheet file: CSV and XLSX for the API and the back office (docs/reports.md,
"Files"); the PDF is `report_pdf.py`.

Every file holds every row of the report (no pagination), the columns in the JSON's order.

- CSV (RFC 4180, UTF-8 with a byte-order mark, CRLF): a header row of the JSON keys, then
  the rows; money as dollars with two decimals (`-1234.50`, integer arithmetic), percents
  with two decimals, dates `YYYY-MM-DD`, null an empty cell. No totals row: the file is data.
- XLSX: sheet `Report` with the header row in words (the columns' labels), frozen; the rows;
  a bold `Total` row when the report has money columns. Money is a number of dollars
  (`Decimal(cents) / 100`, exact) formatted `#,##0.00;(#,##0.00)`, a date a date, a percent a
  number. Columns fitted to their text. Sheet `About`: the title, the as-of date, the filters,
  the derived totals.
  A control character XLSX cannot hold (all below U+0020 but tab, line feed and carriage
  return) is written as U+FFFD; a carriage return as a line feed (XML reads it so).

Both: a text cell (names, numbers people type, IDs, filters echoed) that begins with `=`, `+`,
`-`, `@`, tab or carriage return is written with a leading `'` (OWASP "CSV injection"), so no
spreadsheet program reads it as a formula; in the XLSX it is a string cell besides. Numbers
(money, percents, counts) stay numbers, negative ones included.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import date
from decimal import Decimal

from django.http import HttpResponse
from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE, TYPE_STRING
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter

from jobcost.models import Project
from jobcost.money import plain_dollars
from jobcost.selectors.reports.table import CENTS, DATE, INTEGER, PERCENT, Column, Report

CSV_TYPE = "text/csv"
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PDF_TYPE = "application/pdf"
MEDIA_TYPES = {"csv": CSV_TYPE, "xlsx": XLSX_TYPE, "pdf": PDF_TYPE}

# What a spreadsheet program reads as the start of a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
MONEY_FORMAT = "#,##0.00;(#,##0.00)"
PERCENT_FORMAT = "0.00"
DATE_FORMAT = "yyyy-mm-dd"
# Column widths in characters: at least a short heading's, at most this (longer text wraps).
WIDTH_MIN, WIDTH_MAX = 8, 60
NUMERIC = (CENTS, PERCENT, INTEGER)


def inert_text(text: str) -> str:
    """`text` as a spreadsheet shows it and never runs it: `'` + text when it begins with
    `=`, `+`, `-`, `@`, tab or carriage return; else as it is."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def cell_text(column: Column, value) -> str:
    """A value as the CSV writes it (text made inert, numbers as numbers)."""
    if value is None:
        return ""
    if column.kind == CENTS:
        return plain_dollars(value)
    if column.kind == PERCENT:
        return f"{Decimal(value):.2f}"
    if column.kind == DATE:
        return value.isoformat()
    if column.kind == INTEGER:
        return str(int(value))
    return inert_text(str(value))


def render_csv(report: Report) -> bytes:
    """The report's rows as CSV bytes (UTF-8 with a BOM, CRLF line ends; header = JSON keys)."""
    buffer = io.StringIO()
    buffer.write("\ufeff")  # Excel reads the file as UTF-8 only when it starts with a BOM
    writer = csv.writer(buffer, lineterminator="\r\n")
    columns = report.spec.columns
    writer.writerow([column.name for column in columns])
    for row in report.rows:
        writer.writerow([cell_text(column, row[column.name]) for column in columns])
    return buffer.getvalue().encode()


def xlsx_line_ends(text: str) -> str:
    """Carriage returns as line feeds: XML reads a bare CR in a cell as LF (the workbook
    cannot keep one), so the file says so rather than leave it to the reader."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _xlsx_text(value: str) -> str:
    """Text XLSX can hold (control characters → U+FFFD, CR → LF), made inert first."""
    return xlsx_line_ends(inert_text(ILLEGAL_CHARACTERS_RE.sub("\ufffd", value)))


def _xlsx_value(column: Column, value):
    if value is None:
        return None
    if column.kind == CENTS:
        return Decimal(int(value)) / 100  # exact: at most two decimals
    if column.kind == PERCENT:
        return Decimal(value)
    if column.kind == INTEGER:
        return int(value)
    if column.kind == DATE:
        return value
    return _xlsx_text(str(value))


def _shown_width(column: Column, value) -> int:
    """About how many characters the cell shows (for the column's width)."""
    if value is None:
        return 0
    if column.kind == CENTS:
        return len(f"{abs(int(value)) // 100:,}") + 5  # separators, cents, parentheses
    if column.kind == DATE:
        return 10
    if isinstance(value, str):
        return max(len(line) for line in value.split("\n")) if value else 0
    return len(str(value))


def _put(sheet, row: int, column_index: int, column: Column, value) -> None:
    """Write one cell: text as a string cell (never a formula), numbers and dates formatted."""
    cell = sheet.cell(row=row, column=column_index)
    cell.value = value
    if isinstance(value, str):
        cell.data_type = TYPE_STRING
    elif column.kind == CENTS:
        cell.number_format = MONEY_FORMAT
    elif column.kind == PERCENT:
        cell.number_format = PERCENT_FORMAT
    elif column.kind == DATE:
        cell.number_format = DATE_FORMAT


def render_xlsx(report: Report) -> bytes:
    """The report as an XLSX workbook (sheets `Report` and `About`)."""
    book = Workbook()
    sheet = book.active
    sheet.title = "Report"
    columns = report.spec.columns
    widths = [len(column.label) for column in columns]
    bold = Font(bold=True)
    for index, column in enumerate(columns, start=1):
        cell = sheet.cell(row=1, column=index, value=column.label)
        cell.data_type = TYPE_STRING
        cell.font = bold
    for number, row in enumerate(report.rows, start=2):
        for index, column in enumerate(columns, start=1):
            value = _xlsx_value(column, row[column.name])
            _put(sheet, number, index, column, value)
            widths[index - 1] = max(widths[index - 1], _shown_width(column, value))
    if any(column.kind == CENTS for column in columns):
        total_row = len(report.rows) + 2
        label = sheet.cell(row=total_row, column=1, value="Total")
        label.data_type = TYPE_STRING
        for index, column in enumerate(columns, start=1):
            if index > 1 and column.name in report.totals:
                value = _xlsx_value(column, report.totals[column.name])
                _put(sheet, total_row, index, column, value)
                widths[index - 1] = max(widths[index - 1], _shown_width(column, value))
        for cell in sheet[total_row]:
            cell.font = bold
    wrap = Alignment(wrap_text=True, vertical="top")
    for index, width in enumerate(widths, start=1):
        letter = get_column_letter(index)
        sheet.column_dimensions[letter].width = min(max(width, WIDTH_MIN), WIDTH_MAX) + 2
        if width > WIDTH_MAX:
            for (cell,) in sheet.iter_rows(min_row=2, min_col=index, max_col=index):
                cell.alignment = wrap
    sheet.freeze_panes = "A2"  # the header row stays in view
    about = book.create_sheet("About")
    for number, (label, value) in enumerate(about_lines(report), start=1):
        about.cell(row=number, column=1, value=label).data_type = TYPE_STRING
        cell = about.cell(row=number, column=2)
        if isinstance(value, str):
            cell.value = _xlsx_text(value)
            cell.data_type = TYPE_STRING
        else:  # the as-of date, a derived total in dollars
            cell.value = value
            cell.number_format = DATE_FORMAT if isinstance(value, date) else MONEY_FORMAT
    about.column_dimensions["A"].width = 24
    about.column_dimensions["B"].width = 60
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def filter_label(name: str) -> str:
    """`cost_code` → `Cost code`."""
    return name.replace("_", " ").capitalize()


def about_lines(report: Report) -> list[tuple[str, object]]:
    """The `About` sheet: the title, the as-of date (a date), the filters given (label,
    value as given) and the derived totals (the retainage report's net) in dollars (Decimal)."""
    lines: list[tuple[str, object]] = [("Report", report.spec.title), ("As of", report.as_of)]
    lines += [
        (filter_label(name), str(value))
        for name, value in report.filters.items()
        if value is not None
    ]
    lines += [
        (column.label, Decimal(int(report.totals[column.name])) / 100)
        for column in report.spec.derived
        if report.totals.get(column.name) is not None
    ]
    return lines


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _safe_part(text: str) -> str:
    """A file-name part: letters, digits, `.`, `_` and `-` only (anything else `-`), at
    most 40 characters, never starting with a dot or a dash."""
    return _UNSAFE.sub("-", text).strip("-.")[:40].strip("-.")


def project_number(report: Report) -> str | None:
    """The number of the project the report is filtered to, or None."""
    project_id = report.filters.get("project")
    if not project_id:
        return None
    for row in report.rows:
        if row.get("project") == project_id and row.get("project_number"):
            return row["project_number"]
    return Project.objects.filter(pk=project_id).values_list("number", flat=True).first()


def filename(report: Report, extension: str) -> str:
    """`wip_2026-10-31.csv`, `job-cost_P-2024-017_2026-10-31.xlsx`: the report, the project's
    number when filtered to one, the as-of date; sanitized (`_safe_part`)."""
    parts = [report.spec.name]
    number = project_number(report)
    if number and _safe_part(number):
        parts.append(_safe_part(number))
    parts.append(report.as_of.isoformat())
    return f"{'_'.join(parts)}.{extension}"


def file_response(content: bytes, report: Report, extension: str) -> HttpResponse:
    """The file as a download (`Content-Disposition: attachment` with `filename`)."""
    content_type = MEDIA_TYPES[extension]
    if extension == "csv":
        content_type += "; charset=utf-8"
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename(report, extension)}"'
    return response
