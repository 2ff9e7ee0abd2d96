"""The back office's Reports section (docs/backoffice/reports.md): the WIP schedule, the job
cost report with its drill-down to transactions, the AP and AR aging and retainage, each as of a day
picked on the page, with totals, and downloadable as CSV, XLSX and PDF.

Every figure comes from the same selectors as `/v1/reports/…` (`jobcost.selectors.reports`),
scoped as the user's membership scopes an API key; the files are the API's files (the PDF is
the back office's alone). Reports only read, so every role may open them (the API's policy
for `reports`); a staff user with no membership sees no Reports section and gets 403.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.contrib.admin.utils import quote
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone

from jobcost.admin.base import EVERY_ACCOUNT, membership_of, request_scope, role_allows
from jobcost.admin.display import accounting, percent
from jobcost.documents.report_files import file_response, render_csv, render_xlsx
from jobcost.documents.report_pdf import render_pdf
from jobcost.errors import InvalidRequest, Unavailable
from jobcost.models import CostCode, Owner, Project, Vendor
from jobcost.selectors.reports.as_of import report_day
from jobcost.selectors.reports.job_cost import (
    JOB_COST,
    TRANSACTIONS,
    job_cost_report,
    transactions_report,
)
from jobcost.selectors.reports.payables import (
    AP_AGING,
    RETAINAGE,
    ap_aging_report,
    retainage_report,
)
from jobcost.selectors.reports.receivables import AR_AGING, ar_aging_report
from jobcost.selectors.reports.table import (
    CENTS,
    DATE,
    FILE_ROWS_MAX,
    ID,
    PERCENT,
    Column,
    Report,
    ReportSpec,
)
from jobcost.selectors.reports.wip import WIP, wip_report


@dataclass(frozen=True)
class Page:
    """One report page: its URL `slug`, the report's spec, how to build it from the form's
    values, the filters the form offers and whether a project is required."""

    slug: str
    spec: ReportSpec
    build: Callable[..., Report]
    filters: tuple[str, ...]
    needs_project: bool = False
    about: str = ""
    # Columns the page leaves out: a one-project report names its project in its heading.
    omit: tuple[str, ...] = ()
    # Columns shown inside another's cell, before its text: {"project_name": "project_number"}
    # reads "2026-014 Lincoln Elementary" in one column, so that a wide report fits the screen.
    prefix: tuple[tuple[str, str], ...] = ()


PAGES = {
    page.slug: page
    for page in (
        Page(
            "wip",
            WIP,
            lambda scope, as_of, project, **_: wip_report(scope, as_of=as_of, project=project),
            ("project",),
            about="Every project active or in closeout at the end of the day: earned revenue "
            "against billings, and the loss provision of a job projected to lose money.",
            omit=("project_number", "status"),
            prefix=(("project_name", "project_number"),),
        ),
        Page(
            "job-cost",
            JOB_COST,
            lambda scope, as_of, project, **_: job_cost_report(
                scope, project_id=project, as_of=as_of
            ),
            ("project",),
            needs_project=True,
            about="Per cost code: budget, changes, committed, cost to date and the forecast. "
            "A cost code opens the costs posted to it.",
            omit=("project_number", "project_name"),
        ),
        Page(
            "job-cost-transactions",
            TRANSACTIONS,
            lambda scope, as_of, project, cost_code, vendor, **_: transactions_report(
                scope, project_id=project, as_of=as_of, cost_code=cost_code, vendor=vendor
            ),
            ("project", "cost_code", "vendor"),
            needs_project=True,
            about="Every invoice line posted to the project's cost by the end of the day.",
            omit=("project_number", "project_name"),
        ),
        Page(
            "ap-aging",
            AP_AGING,
            lambda scope, as_of, project, vendor, **_: ap_aging_report(
                scope, as_of=as_of, project=project, vendor=vendor
            ),
            ("project", "vendor"),
            about="Approved, unpaid invoices (net of retainage) by days past due, and the "
            "retainage held per vendor.",
        ),
        Page(
            "ar-aging",
            AR_AGING,
            lambda scope, as_of, project, owner, **_: ar_aging_report(
                scope, as_of=as_of, project=project, owner=owner
            ),
            ("project", "owner"),
            about="What each owner owes on the certified pay apps, by days since "
            "certification, and the retainage the owner holds per project.",
        ),
        Page(
            "retainage",
            RETAINAGE,
            lambda scope, as_of, project, vendor, **_: retainage_report(
                scope, as_of=as_of, project=project, vendor=vendor
            ),
            ("project", "vendor"),
            about="Retainage the owner holds on the latest billing, and retainage withheld "
            "from each subcontract.",
        ),
    )
}
# The pages listed in the Reports section (the transactions open from the job cost report).
LISTED = ("wip", "job-cost", "ap-aging", "ar-aging", "retainage")
FILTERS = ("project", "owner", "cost_code", "vendor")


class ReportForm(forms.Form):
    """The page's choices: the day, and the filters the report takes, offered among what the
    user can see."""

    as_of = forms.DateField(
        label="As of",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        help_text="The end of this day (UTC); empty for today.",
    )
    # Django's message would repeat the value sent (an ID); people read a sentence.
    NOT_OFFERED = {"invalid_choice": "Select a valid choice: that one is not among those offered."}
    project = forms.ChoiceField(label="Project", required=False, error_messages=NOT_OFFERED)
    cost_code = forms.ChoiceField(label="Cost code", required=False, error_messages=NOT_OFFERED)
    vendor = forms.ChoiceField(label="Vendor", required=False, error_messages=NOT_OFFERED)
    owner = forms.ChoiceField(label="Owner", required=False, error_messages=NOT_OFFERED)

    def __init__(self, data, *, scope, page: Page):
        super().__init__(data)
        self.page = page
        for name in FILTERS:
            if name not in page.filters:
                del self.fields[name]
        if "project" in self.fields:
            projects = scope.filter(Project.objects.order_by("number"), "id")
            empty = "Choose a project" if page.needs_project else "Every project"
            self.fields["project"].choices = [("", empty)] + [
                (p.pk, f"{p.number} {p.name}") for p in projects
            ]
            self.fields["project"].required = page.needs_project
        if "vendor" in self.fields:
            vendors = scope.filter(Vendor.objects.order_by("name"), None)
            self.fields["vendor"].choices = [("", "Every vendor")] + [
                (v.pk, v.name) for v in vendors
            ]
        if "owner" in self.fields:
            owners = scope.filter(Owner.objects.order_by("name"), None)
            self.fields["owner"].choices = [("", "Every owner")] + [(o.pk, o.name) for o in owners]
        if "cost_code" in self.fields:
            codes = scope.filter(CostCode.objects.order_by("project__number", "code"))
            project = (data or {}).get("project")
            if project:
                codes = codes.filter(project_id=project)
            self.fields["cost_code"].choices = [("", "Every cost code")] + [
                (c.pk, f"{c.code} {c.name}") for c in codes
            ]

    def clean_as_of(self):
        try:
            return report_day(self.cleaned_data.get("as_of"))
        except InvalidRequest as refusal:
            raise forms.ValidationError(refusal.message) from refusal

    def chosen(self) -> str:
        """The filters chosen, in words: `Project: 2026-014 Lincoln Elementary`."""
        words = []
        for name in FILTERS:
            value = self.cleaned_data.get(name)
            if name in self.fields and value:
                label = dict(self.fields[name].choices).get(value, value)
                words.append(f"{self.fields[name].label}: {label}")
        return ", ".join(words)

    def values(self) -> dict:
        """The report's arguments: `as_of` and each filter (None when not chosen)."""
        return {
            "as_of": self.cleaned_data["as_of"],
            **{name: self.cleaned_data.get(name) or None for name in FILTERS},
        }


def _cell(column: Column, value, currency: str | None) -> str:
    if value is None:
        return "—"
    if column.kind == CENTS:
        return accounting(value, currency or "usd")
    if column.kind == PERCENT:
        return percent(value)
    if column.kind == DATE:
        return value.strftime("%b %-d, %Y")
    return str(value)


def shown_columns(spec: ReportSpec, omit: tuple[str, ...] = ()) -> tuple[Column, ...]:
    """What people read: every column but the IDs, the currency (amounts carry it) and
    `omit`."""
    return tuple(
        c for c in spec.columns if c.kind != ID and c.name != "currency" and c.name not in omit
    )


def _links(page: Page, row: dict, values: dict) -> dict[str, str]:
    """The drill-downs of a row: a WIP project to its job cost report, a cost code to its
    transactions, a transaction to its invoice."""
    as_of = values["as_of"].isoformat()
    if page.slug == "wip":
        query = urlencode({"project": row["project"], "as_of": as_of})
        return {"project_name": f"{reverse('admin:reports_job-cost')}?{query}"}
    if page.slug == "job-cost":
        query = urlencode(
            {"project": row["project"], "cost_code": row["cost_code"], "as_of": as_of}
        )
        url = f"{reverse('admin:reports_job-cost-transactions')}?{query}"
        return {"code": url, "name": url}
    if page.slug == "job-cost-transactions":
        url = reverse("admin:jobcost_invoice_change", args=[quote(row["invoice"])])
        return {"invoice_number": url}
    return {}


def _prefixed(row: dict, prefix: str | None, text: str) -> str:
    """A cell's text with the column shown inside it; a project's cell says when the project
    is in closeout, since the page leaves the status column out."""
    if prefix and row.get(prefix):
        text = f"{row[prefix]} {text}"
        if prefix == "project_number" and row.get("status") == "closeout":
            text = f"{text} (in closeout)"
    return text


def table(page: Page, report: Report, values: dict) -> dict:
    """The report as the template draws it: headings, rows of cells (text, column name,
    money or not, link) and the totals row."""
    columns = shown_columns(page.spec, page.omit)
    prefixes = dict(page.prefix)
    rows = []
    for row in report.rows:
        links = _links(page, row, values)
        rows.append(
            [
                {
                    "name": c.name,
                    "text": _prefixed(
                        row, prefixes.get(c.name), _cell(c, row[c.name], row.get("currency"))
                    ),
                    "numeric": c.kind in (CENTS, PERCENT),
                    "url": links.get(c.name),
                }
                for c in columns
            ]
        )
    totals = [
        {
            "name": c.name,
            "text": _cell(c, report.totals.get(c.name), report.totals.get("currency"))
            if c.name in report.totals
            else "",
            "numeric": c.kind in (CENTS, PERCENT),
        }
        for c in columns
    ]
    totals[0]["text"] = "Total"
    derived = [
        (c.label, accounting(report.totals[c.name], report.totals.get("currency") or "usd"))
        for c in page.spec.derived
        if report.totals.get(c.name) is not None
    ]
    return {"headings": columns, "rows": rows, "totals": totals, "derived": derived}


def _download(report: Report, extension: str, request, form: ReportForm) -> HttpResponse:
    if extension == "pdf":
        member = membership_of(request)
        name = member.account.name if member is not None else "Every account"
        content = render_pdf(
            report,
            account_name=name,
            columns=shown_columns(report.spec, form.page.omit),
            subtitle=form.chosen(),
        )
        return file_response(content, report, "pdf")
    render = render_csv if extension == "csv" else render_xlsx
    return file_response(render(report), report, extension)


def _refuse_unless_reader(request) -> None:
    if not role_allows(request, "reports", "wip"):
        raise PermissionDenied("Reports are read by members of an account.")


def report_view(site, page: Page):
    """The view of one report page (GET only: a report changes nothing)."""

    def view(request):
        _refuse_unless_reader(request)
        scope = request_scope(request)
        scope = EVERY_ACCOUNT if scope is None else scope
        data = request.GET.copy()
        if not data.get("as_of"):
            data["as_of"] = timezone.now().date().isoformat()  # the date box shows the day
        form = ReportForm(data, scope=scope, page=page)
        context = {
            **site.each_context(request),
            "title": page.spec.title,
            "page": page,
            "form": form,
            "pages": [PAGES[slug] for slug in LISTED],
        }
        if form.is_valid():
            values = form.values()
            report = page.build(scope, **values)
            extension = request.GET.get("format")
            if extension in ("csv", "xlsx", "pdf") and len(report.rows) <= FILE_ROWS_MAX:
                try:
                    return _download(report, extension, request, form)
                except Unavailable as exc:  # a PDF past its time limit: said on the page
                    messages.error(request, exc.message)
            query = {k: v.isoformat() if k == "as_of" else v for k, v in values.items() if v}
            context.update(
                report=report,
                table=table(page, report, values),
                downloads=[
                    (label, f"?{urlencode({**query, 'format': extension})}")
                    for label, extension in (
                        ("CSV", "csv"),
                        ("Excel (XLSX)", "xlsx"),
                        ("PDF", "pdf"),
                    )
                ],
                too_large=len(report.rows) > FILE_ROWS_MAX,
            )
        return TemplateResponse(request, "admin/jobcost/reports/report.html", context)

    return view


def index_view(site):
    def view(request):
        _refuse_unless_reader(request)
        context = {
            **site.each_context(request),
            "title": "Reports",
            "pages": [PAGES[slug] for slug in LISTED],
        }
        return TemplateResponse(request, "admin/jobcost/reports/index.html", context)

    return view


def report_urls(site) -> list:
    """`/admin/reports/` and one URL per report (`admin:reports_<slug>`)."""
    urls = [path("reports/", site.admin_view(index_view(site)), name="reports_index")]
    for page in PAGES.values():
        route = page.slug.replace("job-cost-transactions", "job-cost/transactions")
        urls.append(
            path(
                f"reports/{route}/",
                site.admin_view(report_view(site, page)),
                name=f"reports_{page.slug}",
            )
        )
    return urls


def reports_section(request) -> dict | None:
    """The Reports section of the home page and the sidebar (an app entry as Django's
    `get_app_list` builds them), or None when the user may not read reports."""
    if not role_allows(request, "reports", "wip"):
        return None
    return {
        "name": "Reports",
        "app_label": "reports",
        "app_url": reverse("admin:reports_index"),
        "has_module_perms": True,
        "models": [
            {
                "name": PAGES[slug].spec.title,
                "object_name": slug.replace("-", ""),
                "admin_url": reverse(f"admin:reports_{slug}"),
                "add_url": None,
                "view_only": True,
                "perms": {"view": True},
            }
            for slug in LISTED
        ],
    }
