"""Projects: edits through `project_create` / `project_update`, status moves as actions, the
budget inline and the rollups (docs/computations.md) read through the same selectors as the API
(`visible.with_rollups` + `projects.project_rollup`), so the figures are the API's."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path

from jobcost.admin import budget_import
from jobcost.admin.base import (
    ReadOnlyInline,
    ServiceAdmin,
    ServiceForm,
    confirm_each,
    money_column,
    role_allows,
)
from jobcost.admin.budget_forecast import COLUMNS, Forecast
from jobcost.admin.display import accounting, percent
from jobcost.admin.fields import DollarsField, LabelledChoiceField, with_account
from jobcost.admin.object_pages import object_or_404, page_context, page_url
from jobcost.models import PROJECT_INITIAL, BudgetLine, Owner, Project, ProjectStatus
from jobcost.selectors.projects import project_rollup
from jobcost.selectors.rollups import ProjectRollup
from jobcost.selectors.visible import with_rollups
from jobcost.services.projects import project_create, project_update

TIMESTAMPS = ("created_at", "updated_at")
ROLLUPS = (
    "revised_contract_display",
    "cost_to_date_display",
    "percent_complete_display",
    "projected_cost_display",
    "projected_margin_display",
    "billed_to_date_display",
    "earned_revenue_display",
    "over_under_billing_display",
)


def _owner_field() -> LabelledChoiceField:
    return LabelledChoiceField(
        Owner.objects.select_related("account").order_by("account__name", "name"),
        label_of=with_account,
    )


class ProjectAddForm(ServiceForm):
    """`project_create`'s arguments; money in dollars, status `bid` or `active`."""

    owner = _owner_field()
    contract_amount = DollarsField(label="Contract amount ($)")
    status = forms.ChoiceField(
        choices=[(s.value, s.label) for s in PROJECT_INITIAL],
        initial=ProjectStatus.BID,
    )

    class Meta:
        model = Project
        fields = [
            "account",
            "number",
            "name",
            "owner",
            "contract_amount",
            "currency",
            "retainage_pct",
            "status",
            "contract_date",
            "architect_name",
        ]


class ProjectChangeForm(ServiceForm):
    """`project_update`'s writable fields; the service refuses `contract_amount` outside bid."""

    contract_amount = DollarsField(label="Contract amount ($)")

    class Meta:
        model = Project
        fields = [
            "number",
            "name",
            "contract_amount",
            "retainage_pct",
            "contract_date",
            "architect_name",
        ]


class BudgetLineInline(ReadOnlyInline):
    """The project's budget, read-only (edit a line on its own page: `budget_line_update`)."""

    model = BudgetLine
    fk_name = "project"
    show_change_link = True
    fields = readonly_fields = (
        "cost_code",
        "original_amount_display",
        "approved_changes_display",
        "revised_amount_display",
        "committed_display",
        "actual_display",
        "cost_to_complete_display",
        "projected_cost_display",
        "variance_display",
    )
    original_amount_display = money_column("original_amount", "Original")
    approved_changes_display = money_column("approved_changes", "Approved changes")
    revised_amount_display = money_column("revised_amount", "Revised")
    committed_display = money_column("committed", "Committed")
    actual_display = money_column("actual", "Actual")
    cost_to_complete_display = money_column("cost_to_complete", "Cost to complete")
    projected_cost_display = money_column("projected_cost", "Projected cost")
    variance_display = money_column("variance", "Variance")

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("cost_code", "project")
            .order_by("cost_code__code")
        )


def _rollup(project: Project) -> ProjectRollup:
    """The project's rollup from its `with_rollups` annotations (re-read when missing)."""
    cached = project.__dict__.get("_admin_rollup")
    if cached is None:
        source = project
        if not hasattr(project, "rollup_cost_to_date"):
            source = with_rollups(Project.objects.filter(pk=project.pk)).get()
        cached = project.__dict__["_admin_rollup"] = project_rollup(source)
    return cached


def rollup_money(name: str, description: str, ordering: str | None = None):
    """A display method for one money figure of `ProjectRollup`."""

    @admin.display(description=description, ordering=ordering)
    def column(self, project: Project) -> str:
        return accounting(getattr(_rollup(project), name), project.currency)

    column.__name__ = f"{name}_display"
    return column


# The contract's fields, as the add and change pages both show them (what the G702 prints).
CONTRACT_FIELDS = [
    "contract_amount",
    "currency",
    "retainage_pct",
    "contract_date",
    "architect_name",
]


@admin.register(Project)
class ProjectAdmin(ServiceAdmin):
    """Projects with their budget and live rollups; status moves are actions."""

    policy_basename = "projects"
    scope_project_field = "id"
    # Status moves are `PATCH /v1/projects/{id}` with a status.
    policy_actions = {
        "activate": "partial_update",
        "move_to_closeout": "partial_update",
        "reopen": "partial_update",
        "close": "partial_update",
    }

    add_form, change_form = ProjectAddForm, ProjectChangeForm
    add_fieldsets = (
        (None, {"fields": ["account", "number", "name", "owner", "status"]}),
        ("Contract", {"fields": CONTRACT_FIELDS}),
    )
    change_fieldsets = (
        (None, {"fields": ["id", "account", "number", "name", "owner", "status"]}),
        (
            "Contract",
            {"fields": [*CONTRACT_FIELDS, "approved_changes_display"]},
        ),
        ("Figures to date", {"fields": ROLLUPS}),
        ("Timestamps", {"fields": TIMESTAMPS}),
    )
    change_readonly = ("id", "account", "owner", "status", "currency", "approved_changes_display")
    change_readonly += ROLLUPS + TIMESTAMPS
    list_display = (
        "number",
        "name",
        "account",
        "owner",
        "status",
        "contract_amount_display",
        "revised_contract_display",
        "cost_to_date_display",
        "percent_complete_display",
        "projected_margin_display",
    )
    list_display_links = ("number", "name")
    list_select_related = ("account", "owner")
    list_filter = ("status", "account")
    search_fields = ("number", "name", "owner__name", "=id")
    actions = ("activate", "move_to_closeout", "reopen", "close")

    contract_amount_display = money_column(
        "contract_amount", "Contract", ordering="contract_amount"
    )
    approved_changes_display = money_column("approved_changes", "Approved changes")
    revised_contract_display = rollup_money("revised_contract", "Revised contract")
    cost_to_date_display = rollup_money("cost_to_date", "Cost to date", "rollup_cost_to_date")
    projected_cost_display = rollup_money("projected_cost", "Projected cost")
    billed_to_date_display = rollup_money("billed_to_date", "Billed to date")
    earned_revenue_display = rollup_money("earned_revenue", "Earned revenue")
    over_under_billing_display = rollup_money(
        "over_under_billing", "Over/(under) billing (positive: over-billed)"
    )

    @admin.display(description="% complete")
    def percent_complete_display(self, project: Project) -> str:
        return percent(_rollup(project).percent_complete)

    @admin.display(description="Projected margin")
    def projected_margin_display(self, project: Project) -> str:
        return percent(_rollup(project).projected_margin_pct)

    change_form_template = "admin/jobcost/change_form.html"

    def get_urls(self):
        budget = path(
            "<path:object_id>/budget/",
            self.admin_site.admin_view(self.budget_view),
            name="jobcost_project_budget",
        )
        wrap = self.admin_site.admin_view
        imports = [
            path(
                "<path:object_id>/budget-import/",
                wrap(
                    lambda request, object_id: budget_import.upload_view(self, request, object_id)
                ),
                name="jobcost_project_budget_import",
            ),
            path(
                "<path:object_id>/budget-import/<str:import_id>/",
                wrap(
                    lambda request, object_id, import_id: budget_import.result_view(
                        self, request, object_id, import_id
                    )
                ),
                name="jobcost_project_budget_import_result",
            ),
            path(
                "<path:object_id>/budget-import/<str:import_id>/status/",
                wrap(
                    lambda request, object_id, import_id: budget_import.status_view(
                        self, request, object_id, import_id
                    )
                ),
                name="jobcost_project_budget_import_status",
            ),
        ]
        return [budget, *imports, *super().get_urls()]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, unquote(object_id))
        context = dict(extra_context or {})
        if obj is not None:
            url = page_url(self, obj, "budget")
            context["object_links"] = [{"label": "Budget and forecast", "url": url}]
            if budget_import.may_import(request):
                context["object_links"].append(
                    {"label": "Import budget", "url": page_url(self, obj, "budget_import")}
                )
        return super().change_view(request, object_id, form_url, context)

    def budget_view(self, request, object_id):
        """The project's budget and forecast: GET shows it, POST saves the typed costs to
        complete (for a role that may edit budget lines, as `PATCH /v1/budgets/{id}`)."""
        project = object_or_404(self, request, object_id)
        editable = role_allows(request, "budgets", "partial_update")
        forecast = Forecast(project, data=request.POST if request.method == "POST" else None)
        if request.method == "POST":
            if not editable:
                raise PermissionDenied
            changed = forecast.save()
            if not forecast.errors:
                self.message_user(
                    request,
                    f"{project}: {changed} cost{'s' if changed != 1 else ''} to complete saved.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(page_url(self, project, "budget"))
        context = {
            **page_context(self, request, project, f"Budget and forecast: {project}"),
            "columns": COLUMNS,
            "rows": forecast.rows(),
            "totals": forecast.totals(),
            "errors": forecast.errors,
            "editable": editable,
        }
        return TemplateResponse(request, "admin/jobcost/project/budget.html", context)

    def get_queryset(self, request):
        return with_rollups(super().get_queryset(request))

    def get_inlines(self, request, obj):
        return [] if obj is None else [BudgetLineInline]

    def service_create(self, request, data):
        return project_create(
            account_id=data["account"].pk,
            number=data["number"],
            name=data["name"],
            owner=data["owner"],
            contract_amount=data["contract_amount"],
            currency=data["currency"],
            retainage_pct=data["retainage_pct"],
            status=data["status"],
        )

    def service_update(self, request, obj, changes):
        return project_update(project_id=obj.pk, changes=changes)

    def _move(self, request, queryset, status: str, done: str, title: str, explain: str):
        return confirm_each(
            self,
            request,
            queryset,
            lambda project: project_update(project_id=project.pk, changes={"status": status}),
            done,
            title=title,
            explain=explain,
        )

    @admin.action(description="Activate (bid → active)…", permissions=["change"])
    def activate(self, request, queryset):
        return self._move(
            request,
            queryset,
            ProjectStatus.ACTIVE,
            "now active",
            "Activate projects",
            "An active project takes commitments, invoices and pay apps. Its contract amount "
            "and original budget are then fixed: later changes go through change orders.",
        )

    @admin.action(description="Move to closeout (active → closeout)…", permissions=["change"])
    def move_to_closeout(self, request, queryset):
        return self._move(
            request,
            queryset,
            ProjectStatus.CLOSEOUT,
            "now in closeout",
            "Move projects to closeout",
            "Closeout is the last billing and retainage stage; the project can be reopened.",
        )

    @admin.action(description="Reopen (closeout → active)…", permissions=["change"])
    def reopen(self, request, queryset):
        return self._move(
            request,
            queryset,
            ProjectStatus.ACTIVE,
            "reopened (active)",
            "Reopen projects",
            "The project goes back to active.",
        )

    @admin.action(description="Close (closeout → closed; no more writes)…", permissions=["change"])
    def close(self, request, queryset):
        return self._move(
            request,
            queryset,
            ProjectStatus.CLOSED,
            "closed",
            "Close projects",
            "A closed project takes no more writes of any kind: no invoices, pay apps, change "
            "orders or edits to it or its records. This cannot be undone here.",
        )
