"""/v1/reports/…: the WIP schedule, job cost (and its transactions), AP and AR aging and retainage
as list objects with totals, or as CSV or XLSX files (rules in `selectors.reports`, files in
`documents.report_files`; docs/reports.md)."""

from __future__ import annotations

import datetime

from django.core.exceptions import ValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.utils.mediatypes import _MediaType

from jobcost.api.filters import IsoDateField
from jobcost.api.pagination import page_after, parse_limit
from jobcost.api.renderers import JobcostJSONRenderer
from jobcost.api.schema import ERROR_CODES_KEY
from jobcost.api.viewsets import JobcostViewSet
from jobcost.documents.report_files import (
    CSV_TYPE,
    XLSX_TYPE,
    file_response,
    render_csv,
    render_xlsx,
)
from jobcost.error_codes import ReportErrorCode, RequestErrorCode, ResourceErrorCode
from jobcost.errors import InvalidRequest, NotFound
from jobcost.limits import BUSINESS_DATE_MAX, BUSINESS_DATE_MIN
from jobcost.models import Project
from jobcost.selectors.reports.as_of import report_day
from jobcost.selectors.reports.job_cost import job_cost_report, transactions_report
from jobcost.selectors.reports.payables import ap_aging_report, retainage_report
from jobcost.selectors.reports.receivables import ar_aging_report
from jobcost.selectors.reports.table import FILE_ROWS_MAX, Report, sort_key
from jobcost.selectors.reports.wip import wip_report
from jobcost.serializers.reports import (
    ApAgingReportSerializer,
    ArAgingReportSerializer,
    JobCostReportSerializer,
    JobCostTransactionsReportSerializer,
    RetainageReportSerializer,
    WipReportSerializer,
)
from jobcost.views.report_params import FORMATS, report_parameters

FILE_RENDERERS = {"csv": render_csv, "xlsx": render_xlsx}
ACCEPTED = {CSV_TYPE: "csv", XLSX_TYPE: "xlsx", "application/json": "json"}


def report_doc(serializer, summary: str, description: str, params: tuple[str, ...], errors=None):
    """A report: its parameters, its list object as JSON, and the same rows as CSV and XLSX."""
    return extend_schema(
        summary=summary,
        description=description,
        parameters=report_parameters(params),
        responses={
            (200, "application/json"): serializer,
            (200, CSV_TYPE): OpenApiTypes.STR,
            (200, XLSX_TYPE): OpenApiTypes.BINARY,
        },
        filters=False,
        extensions={ERROR_CODES_KEY: errors} if errors else {},
    )


FILES_TEXT = (
    " The same rows as a file with `Accept: text/csv` or `Accept: application/vnd.openxmlformats"
    "-officedocument.spreadsheetml.sheet`, or `?format=csv|xlsx` (the parameter wins): every "
    f"row (no pages, at most {FILE_ROWS_MAX:,}; past that 400 `report_too_large`), money in "
    "dollars with two decimals; the CSV in UTF-8 with a byte-order mark under the JSON keys, "
    "the XLSX under headers in words with a totals row. A text cell beginning with `=`, `+`, "
    "`-`, `@`, tab or carriage return is written with a leading `'` so that no spreadsheet "
    "runs it. Named `<report>[_<project number>]_<as_of>.csv|xlsx`. Any role may read "
    "reports; a project-restricted key sees its projects only."
)


class ReportViewSet(JobcostViewSet):
    """Read-only report routes; each parses its parameters, calls one selector and answers
    the list object or the file."""

    report_view = True
    serializer_class = WipReportSerializer
    success_texts = {
        "wip": "The WIP schedule: a page of rows and the totals.",
        "job_cost": "The job cost report: a page of cost codes and the totals.",
        "job_cost_transactions": "A page of posted costs and their total.",
        "ap_aging": "The AP aging: a page of vendors and the totals.",
        "ar_aging": "The AR aging: a page of projects and the totals.",
        "retainage": "Retainage receivable and payable: a page of rows and the totals.",
    }

    # --- negotiation: files are chosen here; errors are always the JSON envelope ------------
    def perform_content_negotiation(self, request, force=False):
        return JobcostJSONRenderer(), JobcostJSONRenderer.media_type

    def output_format(self) -> str:
        """`?format=` when given (json, csv or xlsx; else 400), then the media range of
        `Accept` with the highest quality (`q`, the first on a tie) that is JSON, CSV or
        XLSX; JSON when it names none of them (`*/*` included)."""
        requested = self.request.query_params.get("format")
        if requested is not None:
            if requested not in FORMATS:
                raise InvalidRequest(
                    f"format must be one of {', '.join(FORMATS)}; got '{requested}'.",
                    param="format",
                )
            return requested
        header = self.request.META.get("HTTP_ACCEPT", "")
        ranges = []
        for position, text in enumerate(t.strip() for t in header.split(",")):
            if not text:
                continue
            media = _MediaType(text)
            try:
                quality = float(media.params.get("q", "1"))
            except ValueError:
                quality = 0.0
            ranges.append((-quality, position, f"{media.main_type}/{media.sub_type}"))
        for negative_quality, _position, name in sorted(ranges):
            if negative_quality < 0 and name in ACCEPTED:
                return ACCEPTED[name]
        return "json"

    # --- parameters -----------------------------------------------------------------------
    def params(self, known: tuple[str, ...], required: tuple[str, ...] = ()) -> dict:
        """The query parameters as {name: value}: unknown ones 400 `parameter_unknown`,
        missing required ones 400 `parameter_missing`, `as_of` parsed (default today, UTC;
        after today 400), `limit` and `cursor` checked."""
        query = self.request.query_params
        allowed = {*known, "as_of", "format", "limit", "cursor"}
        for name in query:
            if name not in allowed:
                raise InvalidRequest(
                    f"Unknown parameter: {name}.",
                    code=RequestErrorCode.PARAMETER_UNKNOWN,
                    param=name,
                )
            if len(query.getlist(name)) > 1:
                raise InvalidRequest(f"{name} may be given once.", param=name)
        for name in required:
            if name not in query:
                raise InvalidRequest(
                    f"{name} is required.", code=RequestErrorCode.PARAMETER_MISSING, param=name
                )
        values = {name: query.get(name) for name in known}
        values["as_of"] = self.as_of(query.get("as_of"))
        parse_limit(query.get("limit"))
        return values

    @staticmethod
    def as_of(raw: str | None) -> datetime.date:
        """`as_of` read as `YYYY-MM-DD` (else 400), then `report_day`'s rule."""
        if raw is None:
            return report_day(None)
        try:
            day = IsoDateField().clean(raw)
        except ValidationError as exc:
            message = "as_of must be a date as YYYY-MM-DD, e.g. 2026-10-31."
            if exc.code == "range":
                message = f"as_of must be a date from {BUSINESS_DATE_MIN} to {BUSINESS_DATE_MAX}."
            raise InvalidRequest(message, param="as_of") from exc
        return report_day(day)

    # --- answers --------------------------------------------------------------------------
    def answer(self, report: Report):
        """The file when asked for one, else a page of rows with the totals."""
        output = self.output_format()
        if output != "json":
            if len(report.rows) > FILE_ROWS_MAX:
                raise InvalidRequest(
                    f"This report has {len(report.rows):,} rows; a file holds at most "
                    f"{FILE_ROWS_MAX:,}. Narrow it with its filters or read the JSON pages.",
                    code=ReportErrorCode.REPORT_TOO_LARGE,
                )
            return file_response(FILE_RENDERERS[output](report), report, output)
        query = self.request.query_params
        limit = parse_limit(query.get("limit"))
        rows, has_more, next_cursor = page_after(
            report.rows,
            key=lambda row: sort_key(report.spec, row),
            width=len(report.spec.key),
            cursor=query.get("cursor"),
            limit=limit,
            path=self.request.path,
        )
        return Response(
            {
                "object": "list",
                "url": self.request.path,
                "as_of": report.as_of,
                "has_more": has_more,
                "next_cursor": next_cursor,
                "data": rows,
                "totals": report.totals,
            }
        )

    def require_project(self, project_id: str) -> None:
        """404 `resource_missing` (param `project`) unless the key sees the project (at any
        date: a project created after `as_of` answers no rows)."""
        if not self.scope.filter(Project.objects.filter(pk=project_id), "id").exists():
            raise NotFound(f"No such project: '{project_id}'.", param="project")

    # --- routes ---------------------------------------------------------------------------
    @report_doc(
        WipReportSerializer,
        "The WIP schedule",
        "One row per project that was active or in closeout at the end of `as_of` (UTC): "
        "revised contract, estimated total cost, cost to date, percent complete, earned "
        "revenue, billed to date, over and under billing, gross profit to date, projected "
        "gross profit and the loss provision, from what was dated and approved by then, so "
        "a past month-end never moves. Ordered by project number." + FILES_TEXT,
        ("project",),
    )
    @action(detail=False, methods=["get"])
    def wip(self, request, *args, **kwargs):
        params = self.params(("project",))
        return self.answer(wip_report(self.scope, **params))

    @report_doc(
        JobCostReportSerializer,
        "The job cost report of a project",
        "Per cost code at the end of `as_of`: original budget, approved changes, revised "
        "budget, committed, cost to date, cost to complete, projected cost and variance. "
        "Ordered by code." + FILES_TEXT,
        ("project!",),
        errors={
            400: (RequestErrorCode.PARAMETER_MISSING,),
            404: (ResourceErrorCode.RESOURCE_MISSING,),
        },
    )
    @action(detail=False, methods=["get"])
    def job_cost(self, request, *args, **kwargs):
        params = self.params(("project",), required=("project",))
        self.require_project(params["project"])
        return self.answer(
            job_cost_report(self.scope, project_id=params["project"], as_of=params["as_of"])
        )

    @report_doc(
        JobCostTransactionsReportSerializer,
        "The costs posted to a project's cost codes",
        "Every invoice line posted to cost by the end of `as_of` (approved, dated on or "
        "before it): date, vendor, commitment, invoice and amount; the rows behind the job "
        "cost report's cost to date. Ordered by date, invoice and line." + FILES_TEXT,
        ("project!", "cost_code", "vendor"),
        errors={
            400: (RequestErrorCode.PARAMETER_MISSING,),
            404: (ResourceErrorCode.RESOURCE_MISSING,),
        },
    )
    @action(detail=False, methods=["get"])
    def job_cost_transactions(self, request, *args, **kwargs):
        params = self.params(("project", "cost_code", "vendor"), required=("project",))
        self.require_project(params["project"])
        return self.answer(
            transactions_report(
                self.scope,
                project_id=params["project"],
                as_of=params["as_of"],
                cost_code=params["cost_code"],
                vendor=params["vendor"],
            )
        )

    @report_doc(
        ApAgingReportSerializer,
        "The AP aging",
        "Per vendor, the approved and unpaid invoices' net amounts at the end of `as_of` in "
        "current, 1–30, 31–60, 61–90 and over 90 days past due (by due date; by invoice date "
        "+ 30 days when there is none), and the retainage held on their invoices. Ordered by "
        "vendor name." + FILES_TEXT,
        ("project", "vendor"),
    )
    @action(detail=False, methods=["get"])
    def ap_aging(self, request, *args, **kwargs):
        params = self.params(("project", "vendor"))
        return self.answer(ap_aging_report(self.scope, **params))

    @report_doc(
        ArAgingReportSerializer,
        "The AR aging",
        "Per project (with its owner), what the owner owes at the end of `as_of`: each "
        "certificate made by then (its `amount_certified` less the receipts recorded by then) "
        "in current (certified that day), 1–30, 31–60, 61–90 and over 90 days since its "
        "`certified_on`, and the retainage the owner holds on the billing. A past month-end "
        "never moves. Ordered by project number." + FILES_TEXT,
        ("project", "owner"),
    )
    @action(detail=False, methods=["get"])
    def ar_aging(self, request, *args, **kwargs):
        params = self.params(("project", "owner"))
        return self.answer(ar_aging_report(self.scope, **params))

    @report_doc(
        RetainageReportSerializer,
        "Retainage receivable and payable",
        "Per project the retainage the owner holds (G702 line 5 of the pay app billing "
        "`as_of`), and per commitment the retainage withheld from approved invoices; totals "
        "and the net. Ordered by project number." + FILES_TEXT,
        ("project", "vendor"),
    )
    @action(detail=False, methods=["get"])
    def retainage(self, request, *args, **kwargs):
        params = self.params(("project", "vendor"))
        return self.answer(retainage_report(self.scope, **params))
