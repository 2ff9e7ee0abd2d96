"""Pay apps (AIA G702/G703) in the back office, through `services.pay_apps`.

A draft is created here with `pay_app_create` (project and period); the period's work is
entered through `PATCH /v1/pay-apps/{id}` (lines), so the change page is view-only: the
G702 figures are computed by `selectors.pay_apps.pay_app_figures` on the row read through
`visible.pay_app_list` (the API's figures, exactly) and the G703 rows are a read-only inline.
Submit, submit overriding missing lien waivers, reject (with a reason), approve (the
architect's certificate), record payment and mark paid are buttons (and list actions) calling
the services behind `POST /v1/pay-apps/{id}/…`; the certificate, the owner's payments and
what remains are shown on the page (`pay_app_owner`).
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.utils import quote, unquote
from django.contrib.admin.widgets import AdminDateWidget
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from jobcost.admin.base import (
    ReasonForm,
    ServiceAdmin,
    ServiceForm,
    TransitionActions,
    date_range,
    run_each_with_reason,
    visible_queryset,
)
from jobcost.admin.display import dollars
from jobcost.admin.fields import LabelledChoiceField, with_account
from jobcost.admin.object_steps import ObjectSteps
from jobcost.admin.pay_app_close import (
    DONE,
    EXPLAIN,
    G702_LABELS,
    G702_LINES,
    STEPS,
    STEPS_BY_SLUG,
    G703Grid,
)
from jobcost.admin.pay_app_owner import receipts_table
from jobcost.documents import deadline
from jobcost.documents.pay_app_download import pay_app_pdf_response
from jobcost.errors import Unavailable
from jobcost.models import PayApp, Project, Vendor
from jobcost.selectors import visible
from jobcost.selectors.g702 import G702
from jobcost.selectors.pay_apps import (
    amount_remaining,
    pay_app_figures,
    pay_app_missing_waivers,
)
from jobcost.services import pay_apps

TIMESTAMPS = ("created_at", "updated_at")
G702_FIELDS = tuple(f"{name}_display" for name, _label in G702_LINES)


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


def _figures(pay_app: PayApp) -> G702:
    """The G702 of a pay app read through `visible.pay_app_list` (computed once per row)."""
    cached = pay_app.__dict__.get("_admin_g702")
    if cached is None:
        cached = pay_app.__dict__["_admin_g702"] = pay_app_figures(pay_app)
    return cached


def _owner_figure(name: str, cents: int | None, pay_app: PayApp) -> str:
    """A figure of the owner's side, in dollars, marked `data-owner="<field>"`."""
    return format_html('<span data-owner="{}">{}</span>', name, dollars(cents, pay_app.currency))


def figure(name: str, description: str):
    """A display method for one G702 line."""

    @admin.display(description=description)
    def column(self, pay_app: PayApp) -> str:
        amount = dollars(getattr(_figures(pay_app), name), pay_app.currency)
        return format_html('<span data-g702="{}">{}</span>', name, amount)

    column.__name__ = f"{name}_display"
    return column


@admin.register(PayApp)
class PayAppAdmin(ObjectSteps, TransitionActions, ServiceAdmin):
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
        ("G702 application for payment", {"fields": G702_FIELDS}),
        (
            "Certificate and payments",
            {
                "fields": [
                    "amount_certified_display",
                    "certified_on_display",
                    "certification_note",
                    "amount_paid_display",
                    "amount_remaining_display",
                    "receipts_display",
                ]
            },
        ),
        ("Lien waivers", {"fields": ["lien_waivers_missing_display"]}),
        (
            "Dates",
            {
                "fields": ["submitted_at", "approved_at", "paid_at", *TIMESTAMPS],
                "classes": ["collapse"],
            },
        ),
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
    list_filter = ("project", "status", date_range("period_end", "period ending"))
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

    @admin.display(description="Amount certified")
    def amount_certified_display(self, pay_app: PayApp) -> str:
        return _owner_figure("amount_certified", pay_app.amount_certified, pay_app)

    @admin.display(description="Certified on")
    def certified_on_display(self, pay_app: PayApp) -> str:
        day = pay_app.certified_on
        return f"{day:%b} {day.day}, {day.year}" if day else "—"

    @admin.display(description="Received from the owner")
    def amount_paid_display(self, pay_app: PayApp) -> str:
        return _owner_figure("amount_paid", pay_app.amount_paid, pay_app)

    @admin.display(description="Remaining to receive")
    def amount_remaining_display(self, pay_app: PayApp) -> str:
        remaining = amount_remaining(pay_app.amount_certified, pay_app.amount_paid)
        return _owner_figure("amount_remaining", remaining, pay_app)

    @admin.display(description="Payments")
    def receipts_display(self, pay_app: PayApp) -> str:
        table = receipts_table(pay_app)
        if not table["rows"]:
            return "None recorded."
        head = format_html_join("", '<th scope="col">{}</th>', ((c,) for c in table["columns"]))
        body = format_html_join(
            "",
            '<tr data-receipt><td>{}</td><td>{}</td><td class="money">{}</td></tr>',
            table["rows"],
        )
        return format_html(
            '<table id="receipts"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>', head, body
        )

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
        return ", ".join(v.name for v in vendors) or "None"

    change_form_template = "admin/jobcost/payapp/change_form.html"
    steps = STEPS

    def get_urls(self):
        pdf = path(
            "<path:object_id>/pdf/",
            self.admin_site.admin_view(self.pdf_view),
            name="jobcost_payapp_pdf",
        )
        g703 = path(
            "<path:object_id>/g703/",
            self.admin_site.admin_view(self.g703_view),
            name="jobcost_payapp_g703",
        )
        return [pdf, g703, *super().get_urls()]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """Django's view-only page plus the G703 grid and the transition buttons."""
        pay_app = self.get_object(request, unquote(object_id))
        if pay_app is None:
            raise Http404("No such pay app.")
        context = dict(extra_context or {})
        if "g703" not in context:
            context["g703"] = G703Grid(pay_app, editable=self._may(request, "partial_update"))
        grid = context["g703"]
        context["g703_rows"] = grid.rows()
        context["g703_totals"] = grid.totals()
        context["g703_url"] = reverse("admin:jobcost_payapp_g703", args=[quote(pay_app.pk)])
        pdf = reverse("admin:jobcost_payapp_pdf", args=[quote(pay_app.pk)])
        context["object_links"] = [{"label": "Download PDF", "url": pdf}]
        return super().change_view(request, object_id, form_url, context)

    def g703_view(self, request, object_id):
        """POST of the G703 grid: entries through `pay_app_update`; back to the page."""
        pay_app = self.get_object(request, unquote(object_id))
        if pay_app is None:
            raise Http404("No such pay app.")
        if request.method != "POST" or not self._may(request, "partial_update"):
            raise PermissionDenied
        grid = G703Grid(pay_app, editable=True, data=request.POST)
        if grid.editable and grid.save():
            self.message_user(
                request, grid.message or "This period's entries are saved.", messages.SUCCESS
            )
            return HttpResponseRedirect(
                reverse("admin:jobcost_payapp_change", args=[quote(pay_app.pk)])
            )
        if not grid.editable:
            status = pay_app.get_status_display().lower()
            grid.message = f"Pay app #{pay_app.number} is {status}: its entries cannot change."
        self.message_user(request, grid.refusal_summary(), messages.ERROR)
        # Show the page again (a GET of it) with the typed entries and their refusals; the
        # figures are read afresh, so they are the stored ones.
        request.method = "GET"
        return self.change_view(request, object_id, extra_context={"g703": grid})

    def pdf_view(self, request, object_id):
        """The file GET /v1/pay-apps/{id}/pdf serves, for whoever may view this pay app here."""
        pay_app = self.get_object(request, unquote(object_id))
        if pay_app is None:
            raise Http404("No such pay app.")
        if not self.has_view_permission(request, pay_app):
            raise PermissionDenied
        # A draft is rendered here, within the API's time limit (docs/operations/limits.md); past it
        # the refusal is said on the pay app's page.
        try:
            with deadline.time_limit(settings.JOBCOST_RENDER_TIME_LIMIT):
                return pay_app_pdf_response(pay_app)
        except Unavailable as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return HttpResponseRedirect(
                reverse("admin:jobcost_payapp_change", args=[quote(pay_app.pk)])
            )

    def get_queryset(self, request):
        return visible_queryset(self, request, visible.pay_app_list)

    def get_inlines(self, request, obj):
        # The G703 is the page's own grid (`pay_app_close.G703Grid`), below the form.
        return []

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

    def _confirmed(self, request, queryset, slug: str, title: str):
        """A changelist action as the page's transition `slug`: a confirmation page first
        (with the reason it asks), then the service on each selected pay app."""
        step = STEPS_BY_SLUG[slug]
        asks = step.form.base_fields.get("reason")
        return run_each_with_reason(
            self,
            request,
            queryset,
            lambda pay_app, reason: step.run(pay_app, {"reason": reason}),
            DONE[slug][0].lower() + DONE[slug][1:].rstrip("."),
            title=title,
            required=None if asks is None else step.form is not ReasonForm,
            explain=EXPLAIN[slug],
        )

    @admin.action(description="Submit to the owner…", permissions=["transition"])
    def submit(self, request, queryset):
        return self._confirmed(request, queryset, "submit", "Submit pay apps")

    @admin.action(
        description="Submit over missing lien waivers (with a reason)…",
        permissions=["transition"],
    )
    def submit_overriding_waivers(self, request, queryset):
        return self._confirmed(
            request, queryset, "submit-over-waivers", "Submit pay apps over missing lien waivers"
        )

    @admin.action(
        description="Reject back to draft (with the owner's reason)…", permissions=["transition"]
    )
    def reject(self, request, queryset):
        return self._confirmed(request, queryset, "reject", "Reject pay apps")

    @admin.action(description="Approve (certified by the owner)…", permissions=["transition"])
    def approve(self, request, queryset):
        return self._confirmed(request, queryset, "approve", "Approve pay apps")

    @admin.action(description="Mark paid…", permissions=["transition"])
    def mark_paid(self, request, queryset):
        return self._confirmed(request, queryset, "mark-paid", "Mark pay apps paid")
