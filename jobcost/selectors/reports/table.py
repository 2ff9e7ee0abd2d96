"""A report's shape: its columns (one definition read by the JSON schema, the CSV and XLSX
files, the PDF and the back office), its rows and its totals (docs/reports.md)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass, field

# Column kinds: how a value is typed in JSON and written in a file.
ID = "id"  # a prefixed ID (string, or null where the column says so)
TEXT = "text"
CENTS = "cents"  # integer cents in JSON; dollars with two decimals in files
PERCENT = "percent"  # an exact decimal 0–100 (two places)
DATE = "date"  # YYYY-MM-DD
INTEGER = "integer"

# Every report answers at most this many rows in a CSV, XLSX or PDF file (a JSON list pages
# through any number): past it the request is 400 `report_too_large` (docs/errors.md).
FILE_ROWS_MAX = 100_000


@dataclass(frozen=True)
class Column:
    """One column: `name` (the JSON key and the file's header), `kind` (above), `label` (the
    heading people read in the back office and the PDF), `nullable` and `help` (the schema's
    description)."""

    name: str
    kind: str
    label: str
    help: str = ""
    nullable: bool = False


@dataclass(frozen=True)
class ReportSpec:
    """What a report is: `name` (the route, `wip`), `title`, `columns`, the columns it sums
    into `totals`, the row key (column names, unique per row, that order the rows and that
    the cursor holds) and the extra totals computed from the sums (`derived`)."""

    name: str
    title: str
    columns: tuple[Column, ...]
    summed: tuple[str, ...]
    key: tuple[str, ...]
    derived: tuple[Column, ...] = ()
    derive: Callable[[dict], dict] | None = None

    def column(self, name: str) -> Column:
        return next(column for column in self.columns if column.name == name)

    @property
    def totals_columns(self) -> tuple[Column, ...]:
        return tuple(self.column(name) for name in self.summed) + self.derived


def sort_key(spec: ReportSpec, row: dict) -> tuple[str, ...]:
    """The row's key as strings (numbers zero-padded) so rows sort and compare by it."""
    parts = []
    for name in spec.key:
        value = row[name]
        if isinstance(value, int):
            parts.append(f"{value:020d}")
        elif isinstance(value, datetime.date):
            parts.append(value.isoformat())
        else:
            parts.append("" if value is None else str(value))
    return tuple(parts)


@dataclass
class Report:
    """A computed report: `rows` (dicts keyed by the spec's column names, in key order) and
    `totals` (`currency`, then each summed column over every row, then the derived ones; all
    null when the rows mix currencies), `as_of` the day, `filters` the filters applied
    ({name: value}) for the file's heading. Every row has a `currency` column."""

    spec: ReportSpec
    as_of: datetime.date
    rows: list[dict]
    filters: dict = field(default_factory=dict)
    totals: dict = field(init=False)

    def __post_init__(self) -> None:
        self.rows.sort(key=lambda row: sort_key(self.spec, row))
        currencies = {row["currency"] for row in self.rows}
        if len(currencies) > 1:
            # Dollars and euros do not add up: the totals say so instead of summing them.
            self.totals = {"currency": None, **dict.fromkeys(self.total_names)}
            return
        totals = {name: sum(row[name] for row in self.rows) for name in self.spec.summed}
        if self.spec.derive is not None:
            totals.update(self.spec.derive(totals))
        self.totals = {"currency": currencies.pop() if currencies else None, **totals}

    @property
    def total_names(self) -> list[str]:
        return [column.name for column in self.spec.totals_columns]


def money(name: str, label: str, help: str = "") -> Column:
    return Column(name, CENTS, label, help)


def project_columns() -> tuple[Column, ...]:
    """`project`, `project_number`, `project_name`: who the row is about, by ID and in words."""
    return (
        Column("project", ID, "Project ID", "The project's ID (`prj_…`)."),
        Column("project_number", TEXT, "Project number"),
        Column("project_name", TEXT, "Project"),
    )
