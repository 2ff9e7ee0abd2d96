"""Reading a budget spreadsheet (CSV or XLSX) into rows: the file format only, no business rule
(docs/budget-import.md).

The first row is the header; its cells name the columns `code`, `name`, `cost type`,
`scheduled value` and `budget`, in any order and case (`Cost Type`, `cost_type` and
`COST-TYPE` are the same column). Every column is required and no other is allowed. Rows whose
cells are all empty are skipped; every other row is read, numbered as the spreadsheet numbers
it (the header is row 1). Text is trimmed; a cost type is read in any case (`Labor`). Money
is typed in dollars as people type it (`12345.67`, `12,345.67`, `$12,345.67`), read with
`Decimal` into exact integer cents; an empty money cell is $0.00. An XLSX cell is read as its
saved value; a formula the file holds without one (saved by a program that does not
calculate) is refused at its row and column (`formula_not_calculated`), never read as empty.
A refusal of the whole file raises `FileRefused` (400 in the API); a refusal of one cell
becomes a row error `{"row", "column", "code", "message"}` beside the other rows.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation
from enum import StrEnum

from jobcost.error_codes import BudgetImportErrorCode, RequestErrorCode
from jobcost.money import MONEY_MAX, format_dollars

CSV = "csv"
XLSX = "xlsx"
MEDIA_TYPES = {
    "text/csv": CSV,
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": XLSX,
}

# Column header (normalized) → the row key the services take.
COLUMNS = {
    "code": "code",
    "name": "name",
    "cost type": "cost_type",
    "scheduled value": "scheduled_value",
    "budget": "budget_amount",
}
# A file name's extension → its format (a multipart part or a back-office upload).
EXTENSIONS_FORMATS = {".csv": CSV, ".xlsx": XLSX}
# Row key → the column as errors name it.
COLUMN_OF = {key: header for header, key in COLUMNS.items()}
MONEY_KEYS = ("scheduled_value", "budget_amount")
TEXT_KEYS = ("code", "name", "cost_type")
# Any cell is read as at most this many characters before the model's own lengths apply (a
# cell is only ever compared to a 200-character field; this keeps error messages short).
CELL_MAX_CHARS = 1000
# An XLSX is a zip: its parts may hold at most this many bytes once inflated (a 1 MiB upload
# of a zip bomb must not fill the memory).
XLSX_MAX_INFLATED_BYTES = 64 * 1024 * 1024

_GROUPED = re.compile(r"^\d{1,3}(,\d{3})+(\.\d*)?$")
_PLAIN = re.compile(r"^(\d+(\.\d*)?|\.\d+)$")


class UncalculatedFormula:
    """An XLSX cell holding a formula and no saved value (`formula`: its text, `=B2*0.9`):
    what it would show is unknown, so the row is refused rather than read as empty."""

    def __init__(self, formula: str) -> None:
        self.formula = formula

    def __str__(self) -> str:
        return ""  # reads as an empty cell where only emptiness matters (a header, a blank row)


def _formula_error(row: int, column: str | None, cell: UncalculatedFormula) -> dict:
    where = f"column '{column}'" if column else "a column with no header"
    return row_error(
        row,
        column,
        BudgetImportErrorCode.FORMULA_NOT_CALCULATED,
        f"Row {row}, {where}: the cell holds the formula {cell.formula[:60]} with no saved "
        "value. Open the file in a spreadsheet program, let it calculate, save it and upload "
        "it again, or type the value.",
    )


class FileRefused(Exception):
    """The file as a whole cannot be read: `code` (`file_unreadable`, `header_invalid`,
    `file_empty`, `too_many_rows`) and a message saying what to fix."""

    def __init__(self, message: str, *, code: BudgetImportErrorCode) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class ParsedFile:
    """`rows`: one dict per data row (`row`, the five keys of `COLUMNS`; a money cell that
    could not be read holds None and has an error); `errors`: the cell refusals."""

    rows: list[dict] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)


def row_error(row: int | None, column: str | None, code: StrEnum, message: str) -> dict:
    """One refusal as the import object lists it (`code` as its plain string)."""
    return {"row": row, "column": column, "code": str(code), "message": message}


def parse_dollars(value) -> int:
    """Dollars as typed (`12,345.67`, `$12,345.67`, `12345.67`, `12345`) or as a spreadsheet
    number → integer cents, exactly (Decimal, never a float's binary value: an XLSX number is
    read from its shortest decimal form). Empty is 0. Raises ValueError with the reason: not
    an amount, negative, more than two decimals, over the money cap."""
    if value is None:
        return 0
    if isinstance(value, (bool, datetime, date, time)):
        raise ValueError("is not an amount in dollars")
    if isinstance(value, int):
        amount = Decimal(value)
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("is not an amount in dollars")
        amount = Decimal(repr(value))
    else:
        text = str(value).strip()
        if not text:
            return 0
        negative = text.startswith("-") or (text.startswith("(") and text.endswith(")"))
        text = text.strip("()").removeprefix("-").strip().removeprefix("$").strip()
        if negative:
            raise ValueError("must not be negative")
        if not (_PLAIN.match(text) or _GROUPED.match(text)):
            raise ValueError(
                "is not an amount in dollars (write it like 12345.67, 12,345.67 or $12,345.67)"
            )
        try:
            amount = Decimal(text.replace(",", ""))
        except InvalidOperation as exc:  # pragma: no cover - the patterns above exclude it
            raise ValueError("is not an amount in dollars") from exc
    if amount < 0:
        raise ValueError("must not be negative")
    if amount.as_tuple().exponent < -2:
        raise ValueError("has more than two decimals (whole cents only)")
    cents = int(amount.scaleb(2).to_integral_value())
    if cents > MONEY_MAX:
        raise ValueError(f"must be at most {format_dollars(MONEY_MAX)}")
    return cents


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # a code typed as 100 in a spreadsheet cell is "100", not "100.0"
    return str(value).strip()


def _header_key(cell) -> str:
    return re.sub(r"[\s_\-]+", " ", _text(cell)).strip().lower()


def _read_header(cells: list) -> list[str | None]:
    """The row key of each header cell (None for an empty trailing cell); FileRefused when a
    column is unknown, repeated or missing."""
    keys: list[str | None] = []
    seen: set[str] = set()
    for index, cell in enumerate(cells):
        name = _header_key(cell)
        if not name:
            keys.append(None)
            continue
        if name not in COLUMNS:
            raise FileRefused(
                f"Column {index + 1} of the header is '{_text(cell)[:60]}', which is not a "
                f"budget column; the columns are: {', '.join(COLUMNS)}.",
                code=BudgetImportErrorCode.HEADER_INVALID,
            )
        if name in seen:
            raise FileRefused(
                f"The header names '{name}' twice.", code=BudgetImportErrorCode.HEADER_INVALID
            )
        seen.add(name)
        keys.append(COLUMNS[name])
    missing = [name for name in COLUMNS if name not in seen]
    if missing:
        raise FileRefused(
            "The first row must be the header, naming the columns "
            f"{', '.join(COLUMNS)}; it lacks: {', '.join(missing)}.",
            code=BudgetImportErrorCode.HEADER_INVALID,
        )
    return keys


def _read_rows(records, max_rows: int) -> ParsedFile:
    """`records` yields (row number, list of cells), the header first."""
    parsed = ParsedFile()
    header = None
    for number, cells in records:
        if header is None:
            if all(_text(c) == "" for c in cells):
                continue  # blank lines above the header
            header = _read_header(list(cells))
            continue
        cells = list(cells)
        if all(_text(c) == "" for c in cells):
            continue
        if len(parsed.rows) == max_rows:
            raise FileRefused(
                f"The file has more than {max_rows:,} rows; split it into files of at most "
                f"{max_rows:,} rows.",
                code=BudgetImportErrorCode.TOO_MANY_ROWS,
            )
        row: dict = {"row": number}
        for index, key in enumerate(header):
            value = cells[index] if index < len(cells) else None
            if isinstance(value, UncalculatedFormula):
                if key is not None:
                    row[key] = None if key in MONEY_KEYS else ""
                parsed.errors.append(_formula_error(number, COLUMN_OF[key] if key else None, value))
                continue
            if key is None:
                if _text(value):
                    parsed.errors.append(
                        row_error(
                            number,
                            None,
                            RequestErrorCode.PARAMETER_UNKNOWN,
                            f"Column {index + 1} has no header; leave it empty or remove it.",
                        )
                    )
                continue
            column = COLUMN_OF[key]
            if key in MONEY_KEYS:
                try:
                    row[key] = parse_dollars(value)
                except ValueError as exc:
                    row[key] = None
                    shown = _text(value)[:40]
                    parsed.errors.append(
                        row_error(
                            number, column, RequestErrorCode.PARAMETER_INVALID, f"'{shown}' {exc}."
                        )
                    )
            else:
                text = _text(value)[:CELL_MAX_CHARS]
                # Cost types are the API's lowercase values; `Labor` as typed is `labor`.
                row[key] = text.lower() if key == "cost_type" else text
        for index in range(len(header), len(cells)):
            if _text(cells[index]):
                parsed.errors.append(
                    row_error(
                        number,
                        None,
                        RequestErrorCode.PARAMETER_UNKNOWN,
                        f"Column {index + 1} has no header; leave it empty or remove it.",
                    )
                )
                break
        parsed.rows.append(row)
    if header is None:
        raise FileRefused(
            f"The file is empty: the first row must be the header ({', '.join(COLUMNS)}).",
            code=BudgetImportErrorCode.HEADER_INVALID,
        )
    if not parsed.rows:
        raise FileRefused(
            "The file has a header but no rows to import.", code=BudgetImportErrorCode.FILE_EMPTY
        )
    return parsed


class _CountingReader:
    """csv.reader with the number of the record it returned last (`records`)."""

    def __init__(self, text: str) -> None:
        self._reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        self.records = 0

    def __iter__(self):
        return self

    def __next__(self):
        cells = next(self._reader)
        self.records += 1
        return cells


def _csv_rows(content: bytes):
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileRefused(
            f"The CSV is not UTF-8 (byte {exc.start + 1} cannot be read); save it as "
            "'CSV UTF-8' and upload it again.",
            code=BudgetImportErrorCode.FILE_UNREADABLE,
        ) from exc
    if "\x00" in text:
        raise FileRefused(
            "The CSV holds NUL characters; is it a spreadsheet saved under a .csv name?",
            code=BudgetImportErrorCode.FILE_UNREADABLE,
        )
    reader = _CountingReader(text)
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise FileRefused(
                f"The CSV cannot be read at row {reader.records + 1}: {exc}.",
                code=BudgetImportErrorCode.FILE_UNREADABLE,
            ) from exc
        yield reader.records, cells


def _saved(value, written):
    """A cell as read: its saved value (text cut at `CELL_MAX_CHARS`), or UncalculatedFormula
    when the file holds a formula (`written`, `=…`) and no value."""
    if value is None and isinstance(written, str) and written.startswith("="):
        return UncalculatedFormula(written)
    return value[:CELL_MAX_CHARS] if isinstance(value, str) else value


def _xlsx_rows(content: bytes):
    from openpyxl import load_workbook  # imported here: only uploads of XLSX pay for it

    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            inflated = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise FileRefused(
            "The file is not an XLSX workbook (it is not a valid .xlsx archive).",
            code=BudgetImportErrorCode.FILE_UNREADABLE,
        ) from exc
    if inflated > XLSX_MAX_INFLATED_BYTES:
        raise FileRefused(
            f"The workbook unpacks to more than {XLSX_MAX_INFLATED_BYTES // (1024 * 1024)} MiB; "
            "save the budget alone in a new workbook or as CSV.",
            code=BudgetImportErrorCode.FILE_UNREADABLE,
        )
    try:
        workbook = load_workbook(io.BytesIO(content), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds on a damaged workbook
        raise FileRefused(
            "The XLSX workbook cannot be opened; save it again from the spreadsheet program.",
            code=BudgetImportErrorCode.FILE_UNREADABLE,
        ) from exc
    try:
        if not workbook.worksheets:
            raise FileRefused(
                "The workbook has no worksheet.", code=BudgetImportErrorCode.FILE_UNREADABLE
            )
        sheet = workbook.worksheets[0]
        formulas = None
        try:
            # The same sheet read twice: its saved values, and its formulas, to tell a
            # formula with no saved value (None in the first) from an empty cell.
            formulas = load_workbook(io.BytesIO(content), read_only=True, data_only=False)
            values = sheet.iter_rows(values_only=True)
            written = formulas.worksheets[0].iter_rows(values_only=True)
            for number, (cells, texts) in enumerate(zip(values, written, strict=True), start=1):
                yield number, [_saved(cell, text) for cell, text in zip(cells, texts, strict=True)]
        except FileRefused:
            raise
        except Exception as exc:
            raise FileRefused(
                "The first worksheet of the workbook cannot be read; save it again from the "
                "spreadsheet program.",
                code=BudgetImportErrorCode.FILE_UNREADABLE,
            ) from exc
        finally:
            if formulas is not None:
                formulas.close()
    finally:
        workbook.close()


def parse_budget_file(content: bytes, file_format: str, *, max_rows: int) -> ParsedFile:
    """Read a CSV or XLSX budget (the first worksheet) into rows and cell errors; FileRefused
    for a file that cannot be read, a wrong header, no rows, or more than `max_rows` rows."""
    records = _csv_rows(content) if file_format == CSV else _xlsx_rows(content)
    return _read_rows(records, max_rows)
