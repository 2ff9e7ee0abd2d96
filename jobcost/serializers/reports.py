"""The reports' JSON shapes for the OpenAPI schema, built from each report's columns (the one
definition the rows, the files and the back office also read; docs/reports.md).

A report answers a list object: `object: "list"`, `url`, `as_of`, `has_more`, `next_cursor`,
`data` (a page of rows) and `totals` (over every row, not the page). Rows are plain dicts
built by `selectors.reports`; these serializers only describe them.
"""

from __future__ import annotations

from rest_framework import serializers

from jobcost.api.fields import PercentField
from jobcost.api.serializers import ConstField
from jobcost.selectors.reports.job_cost import JOB_COST, TRANSACTIONS
from jobcost.selectors.reports.payables import AP_AGING, RETAINAGE
from jobcost.selectors.reports.receivables import AR_AGING
from jobcost.selectors.reports.table import (
    CENTS,
    DATE,
    INTEGER,
    PERCENT,
    Column,
    ReportSpec,
)
from jobcost.selectors.reports.wip import WIP


def _field(column: Column, *, nullable: bool) -> serializers.Field:
    """Cents and counts are integers, percents exact numbers, dates `YYYY-MM-DD`, the rest
    (IDs, text) strings."""
    options = {"read_only": True, "allow_null": nullable, "help_text": column.help or column.label}
    kinds = {CENTS: serializers.IntegerField, INTEGER: serializers.IntegerField}
    kinds |= {PERCENT: PercentField, DATE: serializers.DateField}
    return kinds.get(column.kind, serializers.CharField)(**options)


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.replace("-", "_").split("_"))


def _serializer(name: str, fields: dict) -> type[serializers.Serializer]:
    return type(f"{name}Serializer", (serializers.Serializer,), fields)


def report_serializer(spec: ReportSpec) -> type[serializers.Serializer]:
    """`<Name>Report`: the list object of `spec`, with `<Name>Row` and `<Name>Totals`."""
    name = _pascal(spec.name)
    row = _serializer(f"{name}Row", {c.name: _field(c, nullable=c.nullable) for c in spec.columns})
    totals = _serializer(
        f"{name}Totals",
        {
            "currency": serializers.CharField(
                read_only=True,
                allow_null=True,
                help_text="The rows' currency; null when there are no rows or they mix "
                "currencies (then every total is null).",
            ),
            **{c.name: _field(c, nullable=True) for c in spec.totals_columns},
        },
    )
    return _serializer(
        f"{name}Report",
        {
            "object_name": "report",
            "expandable": {},
            "object": ConstField("list"),
            "url": serializers.CharField(read_only=True),
            "as_of": serializers.DateField(read_only=True, help_text="The report's day."),
            "has_more": serializers.BooleanField(read_only=True),
            "next_cursor": serializers.CharField(read_only=True, allow_null=True),
            "data": row(many=True, read_only=True),
            "totals": totals(read_only=True, help_text="Over every row, not only this page."),
        },
    )


WipReportSerializer = report_serializer(WIP)
JobCostReportSerializer = report_serializer(JOB_COST)
JobCostTransactionsReportSerializer = report_serializer(TRANSACTIONS)
ApAgingReportSerializer = report_serializer(AP_AGING)
ArAgingReportSerializer = report_serializer(AR_AGING)
RetainageReportSerializer = report_serializer(RETAINAGE)
