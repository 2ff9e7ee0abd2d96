"""Pay apps (AIA G702/G703) in the back office, through `services.pay_apps`.

A draft is created here with `pay_app_create` (project and period); the period's work is
entered through `PATCH /v1/pay-apps/{id}` (lines), so the change page is view-only: the
G702 figures are computed by `selectors.pay_apps.pay_app_figures` on the row read through
`visible.pay_app_list` (the API's figures, exactly) and the G703 rows are a read-only inline.
Submit, submit overriding missing lien waivers, reject (with a reason), approve and mark
paid are actions calling the services behind `POST /v1/pay-apps/{id}/…`.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.admin.utils import quote, unquote
from django.contrib.admin.widgets import AdminDateWidget
from django.core.exceptions import PermissionDenied
from django.db.models import F
from django.http import Http404
from django.urls import path, reverse
from django.utils.html import format_html

from jobcost.admin.base import (
    ServiceAdmin,
    ServiceForm,
    TransitionActions,
    run_each,
    run_each_with_reason,
    visible_queryset,
)
from jobcost.admin.display import dollars, percent
from jobcost.admin.fields import LabelledChoiceField, with_account
from jobcost.documents.pay_app_pdf import pay_app_pdf_response
from jobcost.models import PayApp, PayAppLine, Project, Vendor
from jobcost.selectors import visible
from jobcost.selectors.g702 import G702, G703Row, g703_row
from jobcost.selectors.pay_apps import pay_app_figures, pay_app_missing_waivers
from jobcost.services import pay_apps

TIMESTAMPS = ("created_at", "updated_at")
# (G702 field, label) in the form's order.
G702_LINES = (
    ("original_contract_sum", "1. Original contract sum"),
    ("net_change_by_change_orders", "2. Net change by change orders"),
    ("contract_sum_to_date", "3. Contract sum to date"),
    ("total_completed_and_stored", "4. Total completed and stored to date"),
    ("retainage_completed_work", "5a. Retainage on completed work"),
    ("retainage_stored_materials", "5b. Retainage on stored materials"),
    ("total_retainage", "5. Total retainage"),
    ("total_earned_less_retainage", "6. Total earned less retainage"),
    ("less_previous_certificates", "7. Less previous certificates for payment"),
    ("current_payment_due", "8. Current payment due"),
    ("balance_to_finish_including_retainage", "9. Balance to finish, including retainage"),
    ("work_this_period", "Work this period"),
    ("retainage_this_period", "Retainage this period"),
    ("net_due_this_period", "Net due this period"),
)
G702_FIELDS = tuple(f"{name}_display" for name, _label in G702_LINES)
G702_LABELS = dict(G702_LINES)


class PayAppAddForm(ServiceForm):
    """`pay_app_create`'s arguments; a blank retainage takes the project's. The period is
    not a model field of the form, so its order is checked by the service (with the API's
    message), not by the model's constraint."""

    project = LabelledChoiceField(
        Project.objects.select_related("account").order_by("account__name", "number"),
        label_of=with_account,
    )
    period_start = forms.DateField(widget=AdminDateWidget)
    period_end = forms.DateField(widget=AdminDateWidget)
    retainage_pct = forms.DecimalField(
        max_digits=5,
        decimal_places=2,
        min_value=0,
        max_value=100,
        required=False,
        help_text="Blank: the project's.",
    )

    class Meta:
        model = PayApp
        fields = ["project", "retainage_pct"]


def _row(line: PayAppLine) -> G703Row:
    """The line's computed G703 row (at its pay app's retainage, annotated by the inline)."""
    cached = line.__dict__.get("_admin_row")
    if cached is None:
        cached = line.__dict__["_admin_row"] = g703_row(line, line.app_retainage_pct)
    return cached


def row_money(name: str, description: str):
    """A display method for one money column of the G703 row."""

    @admin.display(description=description)
    def column(self, line: PayAppLine) -> str:
        return dollars(getattr(_row(line), name), line.currency)

    column.__name__ = f"{name}_display"
    return column


class PayAppLineInline(admin.TabularInline):
    """The G703 continuation sheet, read-only, every column in dollars (SPEC §9)."""

    model = PayAppLine
    extra = 0
    can_delete = False
    verbose_name = "G703 row"
    verbose_name_plural = "G703 continuation sheet"
    fields = readonly_fields = (
        "item",
        "description",
        "scheduled_value_display",
        "previous_display",
        "this_period_display",
        "materials_stored_display",
        "total_completed_and_stored_display",
        "percent_complete_display",
        "balance_to_finish_display",
        "retainage_display",
    )
    scheduled_value_display = row_money("scheduled_value", "C Scheduled value")
    previous_display = row_money("previous", "D Previous applications")
    this_period_display = row_money("this_period", "E This period")
    materials_stored_display = row_money("materials_stored", "F Materials stored")
    total_completed_and_stored_display = row_money(
        "total_completed_and_stored", "G Completed and stored"
    )
    balance_to_finish_display = row_money("balance_to_finish", "H Balance to finish")
    retainage_display = row_money("retainage", "I Retainage")

    @admin.display(description="G ÷ C")
    def percent_complete_display(self, line: PayAppLine) -> str:
        return percent(_row(line).percent_complete)

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                currency=F("pay_app__project__currency"),
                app_retainage_pct=F("pay_app__retainage_pct"),
            )
            .order_by("position")
        )

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            # Only the Meta fields are model fields of the add form; the declared period
            # fields stay on it but out of the model's validation (see PayAppAddForm).
            kwargs["fields"] = PayAppAddForm.Meta.fields
        return super().get_form(request, obj, change=change, **kwargs)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def _figures(pay_app: PayApp) -> G702:
    """The G702 of a pay app read through `visible.pay_app_list` (computed once per row)."""
    cached = pay_app.__dict__.get("_admin_g702")
    if cached is None:
        cached = pay_app.__dict__["_admin_g702"] = pay_app_figures(pay_app)
    return cached


def figure(name: str, description: str):
    """A display method for one G702 line."""

    @admin.display(description=description)
    def column(self, pay_app: PayApp) -> str:
        return dollars(getattr(_figures(pay_app), name), pay_app.currency)

    column.__name__ = f"{name}_display"
    return column


@admin.register(PayApp)
class PayAppAdmin(TransitionActions, ServiceAdmin):
    """Owner billings: created here, read with their G702/G703, moved by actions."""

    policy_basename = "pay-apps"
    # The override is `POST /v1/pay-apps/{id}/submit` with allow_missing_waivers.
    policy_actions = {"submit_overriding_waivers": "submit"}

    add_form = PayAppAddForm
    add_fieldsets = (
        (None, {"fields": ["project", "period_start", "period_end", "retainage_pct"]}),
    )
    change_fieldsets = (
        (
            None,
            {
                "fields": [
                    "id",
                    "project",
                    "number",
                    "status",
                    "period_start",
                    "period_end",
                    "retainage_pct",
                    "rejection_reason",
                ]
            },
        ),
        ("G702 (as GET /v1/pay-apps/{id} computes it)", {"fields": G702_FIELDS}),
        ("Lien waivers", {"fields": ["lien_waivers_missing_display"]}),
        ("Document", {"fields": ["pdf_download"]}),
        ("History", {"fields": ["submitted_at", "approved_at", "paid_at", *TIMESTAMPS]}),
    )
    change_readonly = tuple(name for _title, box in change_fieldsets for name in box["fields"])
    list_display = (
        "project",
        "number",
        "period",
        "status",
        "contract_sum_to_date_display",
        "total_completed_and_stored_display",
        "current_payment_due_display",
        "waivers_missing",
    )
    list_display_links = ("number", "period")
    list_select_related = ("project",)
    list_filter = ("project", "status")
    search_fields = ("project__number", "project__name", "=id")
    ordering = ("project__number", "-number")
    actions = ("submit", "submit_overriding_waivers", "reject", "approve", "mark_paid")

    original_contract_sum_display = figure(
        "original_contract_sum", G702_LABELS["original_contract_sum"]
    )
    net_change_by_change_orders_display = figure(
        "net_change_by_change_orders", G702_LABELS["net_change_by_change_orders"]
    )
    contract_sum_to_date_display = figure(
        "contract_sum_to_date", G702_LABELS["contract_sum_to_date"]
    )
    total_completed_and_stored_display = figure(
        "total_completed_and_stored", G702_LABELS["total_completed_and_stored"]
    )
    retainage_completed_work_display = figure(
        "retainage_completed_work", G702_LABELS["retainage_completed_work"]
    )
    retainage_stored_materials_display = figure(
        "retainage_stored_materials", G702_LABELS["retainage_stored_materials"]
    )
    total_retainage_display = figure("total_retainage", G702_LABELS["total_retainage"])
    total_earned_less_retainage_display = figure(
        "total_earned_less_retainage", G702_LABELS["total_earned_less_retainage"]
    )
    less_previous_certificates_display = figure(
        "less_previous_certificates", G702_LABELS["less_previous_certificates"]
    )
    current_payment_due_display = figure("current_payment_due", G702_LABELS["current_payment_due"])
    balance_to_finish_including_retainage_display = figure(
        "balance_to_finish_including_retainage",
        G702_LABELS["balance_to_finish_including_retainage"],
    )
    work_this_period_display = figure("work_this_period", G702_LABELS["work_this_period"])
    retainage_this_period_display = figure(
        "retainage_this_period", G702_LABELS["retainage_this_period"]
    )
    net_due_this_period_display = figure("net_due_this_period", G702_LABELS["net_due_this_period"])

    @admin.display(description="Period")
    def period(self, pay_app: PayApp) -> str:
        return f"{pay_app.period_start} – {pay_app.period_end}"

    @admin.display(description="Waivers missing")
    def waivers_missing(self, pay_app: PayApp) -> int:
        return len(pay_app_missing_waivers(pay_app))

    @admin.display(description="Lien waivers missing (vendors)")
    def lien_waivers_missing_display(self, pay_app: PayApp) -> str:
        ids = pay_app_missing_waivers(pay_app)
        vendors = Vendor.objects.filter(pk__in=ids).order_by("name", "id")
        return ", ".join(f"{v.name} ({v.pk})" for v in vendors) or "None"

    @admin.display(description="G702/G703 PDF")
    def pdf_download(self, pay_app: PayApp) -> str:
        url = reverse("admin:jobcost_payapp_pdf", args=[quote(pay_app.pk)])
        return format_html('<a class="button" href="{}">Download PDF</a>', url)

    def get_urls(self):
        pdf = path(
            "<path:object_id>/pdf/",
            self.admin_site.admin_view(self.pdf_view),
            name="jobcost_payapp_pdf",
        )
        return [pdf, *super().get_urls()]

    def pdf_view(self, request, object_id):
        """The file GET /v1/pay-apps/{id}/pdf serves, for whoever may view this pay app here."""
        pay_app = self.get_object(request, unquote(object_id))
        if pay_app is None:
            raise Http404("No such pay app.")
        if not self.has_view_permission(request, pay_app):
            raise PermissionDenied
        return pay_app_pdf_response(pay_app)

    def get_queryset(self, request):
        return visible_queryset(self, request, visible.pay_app_list)

    def get_inlines(self, request, obj):
        return [] if obj is None else [PayAppLineInline]

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            # Only the Meta fields are model fields of the add form; the declared period
            # fields stay on it but out of the model's validation (see PayAppAddForm).
            kwargs["fields"] = PayAppAddForm.Meta.fields
        return super().get_form(request, obj, change=change, **kwargs)

    def service_create(self, request, data):
        return pay_apps.pay_app_create(
            project=data["project"],
            period_start=data["period_start"],
            period_end=data["period_end"],
            retainage_pct=data["retainage_pct"],
        )

    def _run(self, request, queryset, service, done: str) -> None:
        run_each(self, request, queryset, lambda pay_app: service(pay_app.pk), done)

    @admin.action(
        description="Submit (draft → submitted; locks the period)", permissions=["transition"]
    )
    def submit(self, request, queryset):
        self._run(request, queryset, lambda pk: pay_apps.pay_app_submit(pay_app_id=pk), "submitted")

    @admin.action(
        description="Submit with missing lien waivers (override, recorded on the audit trail)",
        permissions=["transition"],
    )
    def submit_overriding_waivers(self, request, queryset):
        self._run(
            request,
            queryset,
            lambda pk: pay_apps.pay_app_submit(pay_app_id=pk, allow_missing_waivers=True),
            "submitted (missing lien waivers overridden)",
        )

    @admin.action(
        description="Reject (submitted → draft, with a reason)…", permissions=["transition"]
    )
    def reject(self, request, queryset):
        return run_each_with_reason(
            self,
            request,
            queryset,
            lambda pay_app, reason: pay_apps.pay_app_reject(pay_app_id=pay_app.pk, reason=reason),
            "rejected back to draft",
            title="Reject pay apps",
            required=True,
        )

    @admin.action(description="Approve (submitted → approved)", permissions=["transition"])
    def approve(self, request, queryset):
        self._run(request, queryset, lambda pk: pay_apps.pay_app_approve(pay_app_id=pk), "approved")

    @admin.action(description="Mark paid (approved → paid)", permissions=["transition"])
    def mark_paid(self, request, queryset):
        self._run(
            request, queryset, lambda pk: pay_apps.pay_app_mark_paid(pay_app_id=pk), "marked paid"
        )
