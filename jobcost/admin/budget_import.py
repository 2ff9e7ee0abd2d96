"""The project's "Import budget" pages in the back office (docs/budget-import.md).

Upload a CSV or XLSX → a dry run through `services.budget_imports.budget_import_start` (the
service behind `POST /v1/projects/{id}/budget-import?dry_run=true`) → its table, each row
with its code, name, cost type, scheduled value and budget in dollars and its outcome or
refusals → "Import these rows" runs `budget_import_confirm`, the same rules again, in one
transaction. Files over `BUDGET_IMPORT_SYNC_MAX_ROWS` rows run on a Celery worker; the page
shows a progress bar that polls a small JSON status view. The project is read through the
admin's scoped queryset (another account's is 404), the import through the project; only a
role that may create cost codes may use the pages (as the API's role policy says).
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.admin.utils import quote
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpResponseRedirect, JsonResponse
from django.template.response import TemplateResponse
from django.urls import reverse

from jobcost.admin.base import REFUSALS, role_allows
from jobcost.admin.display import accounting
from jobcost.admin.object_pages import object_or_404, page_context
from jobcost.budget_files import EXTENSIONS_FORMATS, MEDIA_TYPES
from jobcost.errors import translate
from jobcost.models import BudgetImport, Project
from jobcost.services.budget_imports import budget_import_confirm, budget_import_start


class BudgetFileForm(forms.Form):
    """The budget file: a .csv (UTF-8) or .xlsx of at most 1 MiB."""

    file = forms.FileField(
        label="Budget file (.csv or .xlsx)",
        help_text="Header row: code, name, cost type, scheduled value, budget. Amounts in "
        "dollars (12,345.67). At most 1 MiB and 10,000 rows.",
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > settings.MAX_REQUEST_BODY_BYTES:
            raise forms.ValidationError("The file is over 1 MiB; split it into smaller files.")
        name = (upload.name or "").lower()
        part_type = (upload.content_type or "").split(";")[0].strip().lower()
        file_format = MEDIA_TYPES.get(part_type) or next(
            (fmt for ext, fmt in EXTENSIONS_FORMATS.items() if name.endswith(ext)), None
        )
        if file_format is None:
            raise forms.ValidationError("Choose a .csv or .xlsx file.")
        upload.file_format = file_format
        return upload


def may_import(request) -> bool:
    """The API's rule for `POST /v1/projects/{id}/budget-import` (who may create cost codes)."""
    return role_allows(request, "projects", "budget_import")


def _urls(project: Project, budget_import: BudgetImport | None = None) -> dict:
    # The project's ID as the admin writes it in a URL (`quote`; `object_or_404` unquotes it):
    # unquoted, an ID whose random part starts with one of the admin's escapes (`_5F`, `_2F`,
    # …) would be read back as another ID and the page would be 404.
    project_id = quote(project.pk)
    urls = {"upload": reverse("admin:jobcost_project_budget_import", args=[project_id])}
    if budget_import is not None:
        args = [project_id, budget_import.pk]
        urls["page"] = reverse("admin:jobcost_project_budget_import_result", args=args)
        urls["status"] = reverse("admin:jobcost_project_budget_import_status", args=args)
    return urls


def _import_of(project: Project, import_id: str) -> BudgetImport:
    budget_import = BudgetImport.objects.filter(project=project, pk=import_id).first()
    if budget_import is None:
        raise Http404("No budget import here.")
    return budget_import


def table_rows(budget_import: BudgetImport) -> list[dict]:
    """Each row of the file with its figures in dollars and its refusals (or "ok")."""
    refusals: dict[int | None, list[dict]] = {}
    for error in budget_import.errors:
        refusals.setdefault(error["row"], []).append(error)
    return [
        {
            "row": row["row"],
            "code": row["code"],
            "name": row["name"],
            "cost_type": row["cost_type"],
            "scheduled_value": accounting(row["scheduled_value"]),
            "budget": accounting(row["budget_amount"]),
            "errors": refusals.get(row["row"], []),
        }
        for row in budget_import.rows
    ]


def upload_view(model_admin, request, object_id: str):
    """GET: the upload form; POST: the dry run, then its page."""
    project = object_or_404(model_admin, request, object_id)
    if not may_import(request):
        raise PermissionDenied
    form = BudgetFileForm(request.POST or None, request.FILES or None)
    refusal = None
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            with transaction.atomic():
                checked = budget_import_start(
                    project=project,
                    content=upload.read(),
                    file_format=upload.file_format,
                    file_name=upload.name or "",
                    dry_run=True,
                )
        except REFUSALS as exc:
            refusal = translate(exc).message
        else:
            return HttpResponseRedirect(_urls(project, checked)["page"])
    context = {
        **page_context(model_admin, request, project, f"Import budget: {project}"),
        "form": form,
        "refusal": refusal,
        "budget_import": None,
    }
    return TemplateResponse(request, "admin/jobcost/project/budget_import.html", context)


def result_view(model_admin, request, object_id: str, import_id: str):
    """GET: a dry run's table (and its "Import these rows" button), an import's outcome, or
    the progress bar of one still running. POST (from a succeeded dry run): the import."""
    project = object_or_404(model_admin, request, object_id)
    if not may_import(request):
        raise PermissionDenied
    budget_import = _import_of(project, import_id)
    refusal = None
    if request.method == "POST":
        try:
            with transaction.atomic():
                imported = budget_import_confirm(dry_run_id=budget_import.pk)
        except REFUSALS as exc:
            refusal = translate(exc).message
        else:
            if imported.status == "succeeded":
                model_admin.message_user(
                    request, f"{project}: {imported.rows_total:,} cost codes imported."
                )
            return HttpResponseRedirect(_urls(project, imported)["page"])
    unreadable = [e for e in budget_import.errors if e["row"] is None]
    context = {
        **page_context(model_admin, request, project, f"Import budget: {project}"),
        "budget_import": budget_import,
        "rows": table_rows(budget_import) if budget_import.finished else [],
        "whole_file_errors": unreadable,
        "urls": _urls(project, budget_import),
        "refusal": refusal,
        "form": BudgetFileForm(),
    }
    return TemplateResponse(request, "admin/jobcost/project/budget_import.html", context)


def status_view(model_admin, request, object_id: str, import_id: str):
    """The import's progress as JSON, for the page's progress bar."""
    project = object_or_404(model_admin, request, object_id)
    if not may_import(request):
        raise PermissionDenied
    budget_import = _import_of(project, import_id)
    return JsonResponse(
        {
            "id": budget_import.pk,
            "status": budget_import.status,
            "rows_total": budget_import.rows_total,
            "rows_done": budget_import.rows_done,
            "finished": budget_import.finished,
        }
    )
