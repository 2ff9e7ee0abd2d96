"""Daily logs, written through `services.daily_logs`.

A log is one project's day: weather, notes, delays and the crews on site (manpower rows).
The manpower rows are part of the log's own form (a small formset rendered as one field),
so they reach `daily_log_create` / `daily_log_update` in the same call as the rest of the
log: the service replaces the rows as a whole, and a refusal (a second log for the same
day, a vendor of another account, a closed project) writes nothing. Lists read through
`visible.daily_log_list`, with the day's total headcount and worker-hours.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import DecimalField, IntegerField, Sum, Value
from django.db.models.functions import Coalesce
from django.forms.formsets import BaseFormSet, formset_factory
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from jobcost.admin.base import ServiceAdmin, ServiceForm, visible_queryset
from jobcost.admin.display import EMPTY
from jobcost.admin.fields import LabelledChoiceField, with_account
from jobcost.models import DailyLog, Project, Vendor
from jobcost.selectors import visible
from jobcost.services import daily_logs

TIMESTAMPS = ("created_at", "updated_at")
MAX_HOURS = Decimal("9999999.99")
ROW_FIELDS = ("trade", "vendor", "headcount", "hours")


class ManpowerRowForm(forms.Form):
    """One crew: the API's manpower row (vendor blank for the contractor's own forces)."""

    trade = forms.CharField(max_length=100)
    vendor = forms.ChoiceField(required=False)
    headcount = forms.IntegerField(min_value=0, max_value=100_000)
    hours = forms.DecimalField(
        label="Worker-hours", min_value=0, max_value=MAX_HOURS, max_digits=9, decimal_places=2
    )

    def __init__(self, *args, vendor_choices=(), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["vendor"].choices = vendor_choices


ManpowerFormSet = formset_factory(ManpowerRowForm, extra=3, can_delete=True, can_delete_extra=False)


def _row_key(row: dict[str, Any]) -> tuple:
    """A row as comparable values (vendor by ID, hours as a number)."""
    vendor = row.get("vendor")
    vendor_id = getattr(vendor, "pk", vendor) or None
    return (row["trade"], vendor_id, row["headcount"], Decimal(row["hours"]))


class ManpowerWidget(forms.Widget):
    """Renders the manpower formset as a table (one row per crew, blank rows to add one,
    "Remove" to drop one) and reads it back from the posted data as a bound formset."""

    use_fieldset = True

    def __init__(self, attrs=None) -> None:
        super().__init__(attrs)
        self.vendor_choices: list[tuple[str, str]] = [("", "Own forces")]

    def formset(self, name: str, data=None, initial=None) -> BaseFormSet:
        return ManpowerFormSet(
            data,
            prefix=name,
            initial=initial,
            form_kwargs={"vendor_choices": self.vendor_choices},
        )

    def value_from_datadict(self, data, files, name) -> BaseFormSet:
        return self.formset(name, data=data)

    def value_omitted_from_data(self, data, files, name) -> bool:
        return f"{name}-TOTAL_FORMS" not in data

    def id_for_label(self, id_):
        return None

    def render(self, name, value, attrs=None, renderer=None) -> str:
        if isinstance(value, BaseFormSet):
            formset = value
        else:
            initial = [
                {**row, "vendor": getattr(row.get("vendor"), "pk", row.get("vendor")) or ""}
                for row in value or []
            ]
            formset = self.formset(name, initial=initial)
        labels = [ManpowerRowForm.base_fields[f].label or f.capitalize() for f in ROW_FIELDS]
        head = format_html_join("", "<th>{}</th>", ((label,) for label in [*labels, "Remove"]))
        rows = format_html_join(
            "\n",
            "<tr>{}</tr>",
            (
                (
                    format_html_join(
                        "",
                        "<td>{}{}</td>",
                        (
                            (form[field].errors, form[field]) if field in form.fields else ("", "")
                            for field in (*ROW_FIELDS, "DELETE")
                        ),
                    ),
                )
                for form in formset.forms
            ),
        )
        return format_html(
            '{}{}<table class="manpower"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>',
            formset.management_form,
            formset.non_form_errors(),
            head,
            rows,
        )


class ManpowerField(forms.Field):
    """The log's manpower rows, cleaned to `daily_log_create`'s list of dicts (`trade`,
    `vendor` — a Vendor or None —, `headcount`, `hours`), in the order shown; removed and
    blank rows are dropped. `set_vendors` fills the vendor choices (one query per form)."""

    widget = ManpowerWidget
    default_error_messages = {"invalid": "Correct the manpower rows below."}

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)
        self.vendors: dict[str, Vendor] = {}

    def set_vendors(self, queryset) -> None:
        self.vendors = {vendor.pk: vendor for vendor in queryset}
        self.widget.vendor_choices = [
            ("", "Own forces"),
            *((pk, with_account(vendor)) for pk, vendor in self.vendors.items()),
        ]

    def _rows(self, formset: BaseFormSet) -> list[dict[str, Any]]:
        if not formset.is_valid():
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return [
            {
                "trade": form.cleaned_data["trade"],
                "vendor": self.vendors.get(form.cleaned_data["vendor"]),
                "headcount": form.cleaned_data["headcount"],
                "hours": form.cleaned_data["hours"],
            }
            for index, form in enumerate(formset.forms)
            if not form.cleaned_data.get("DELETE")
            and (index < formset.initial_form_count() or form.has_changed())
        ]

    def clean(self, value) -> list[dict[str, Any]]:
        if not isinstance(value, BaseFormSet):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return self._rows(value)

    def has_changed(self, initial, data) -> bool:
        try:
            rows = self._rows(data) if isinstance(data, BaseFormSet) else data or []
        except forms.ValidationError:
            return True
        return [_row_key(row) for row in rows] != [_row_key(row) for row in initial or []]


def _project_field() -> LabelledChoiceField:
    return LabelledChoiceField(
        Project.objects.select_related("account").order_by("account__name", "number"),
        label_of=with_account,
    )


class _ServiceChecksDays:
    """One log per project and day is the service's rule (409 `resource_already_exists`,
    param `date`): Django's own check of the unique constraint is skipped (by leaving `date`
    out of the model validation; the form field still parses it), so the form shows the
    service's message, the one the API gives."""

    def _get_validation_exclusions(self) -> set[str]:
        return super()._get_validation_exclusions() | {"date"}


class DailyLogAddForm(_ServiceChecksDays, ServiceForm):
    """`daily_log_create`'s arguments, manpower rows included."""

    project = _project_field()
    manpower = ManpowerField(help_text="One row per crew; leave a row blank to skip it.")

    class Meta:
        model = DailyLog
        fields = ["project", "date", "weather", "notes", "delays"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        vendors = Vendor.objects.select_related("account").order_by("account__name", "name")
        self.fields["manpower"].set_vendors(self.scope_choices(vendors))


class DailyLogChangeForm(_ServiceChecksDays, ServiceForm):
    """What `daily_log_update` edits; the manpower rows are replaced as a whole."""

    manpower = ManpowerField(
        help_text="Replaces the day's crews as a whole: edit, remove or add rows."
    )

    class Meta:
        model = DailyLog
        fields = ["date", "weather", "notes", "delays"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        log = self.instance
        vendors = Vendor.objects.filter(account_id=log.account_id).select_related("account")
        self.fields["manpower"].set_vendors(vendors.order_by("name"))
        self.initial.setdefault(
            "manpower",
            [
                {
                    "trade": row.trade,
                    "vendor": row.vendor_id,
                    "headcount": row.headcount,
                    "hours": row.hours,
                }
                for row in log.manpower.all()
            ],
        )


class _ManpowerParams(dict):
    """Service params → form fields: `manpower[2].vendor` belongs to the manpower field."""

    def get(self, key, default=None):
        if isinstance(key, str) and key.startswith("manpower"):
            return "manpower"
        return super().get(key, default)


@admin.register(DailyLog)
class DailyLogAdmin(ServiceAdmin):
    """Daily logs: `daily_log_create` / `daily_log_update`, manpower rows in the form."""

    policy_basename = "daily-logs"

    add_form, change_form = DailyLogAddForm, DailyLogChangeForm
    add_fieldsets = (
        (None, {"fields": ["project", "date", "weather"]}),
        ("Manpower", {"fields": ["manpower"]}),
        ("Notes", {"fields": ["notes", "delays"]}),
    )
    change_fieldsets = (
        (None, {"fields": ["id", "project", "date", "weather"]}),
        ("Manpower", {"fields": ["manpower", "total_headcount_display", "total_hours_display"]}),
        ("Notes", {"fields": ["notes", "delays"]}),
        ("Timestamps", {"fields": TIMESTAMPS}),
    )
    change_readonly = (
        "id",
        "project",
        "total_headcount_display",
        "total_hours_display",
        *TIMESTAMPS,
    )
    param_fields = _ManpowerParams()
    list_display = (
        "date",
        "project",
        "weather",
        "total_headcount_display",
        "total_hours_display",
    )
    list_display_links = ("date",)
    list_select_related = ("project",)
    list_filter = ("project",)
    date_hierarchy = "date"
    search_fields = ("weather", "notes", "delays", "project__number", "project__name", "=id")
    ordering = ("-date", "project__number")

    def get_fieldsets(self, request, obj=None):
        """For a viewer (no change permission) the crews are shown as text, not the form."""
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or self.has_change_permission(request, obj):
            return fieldsets
        return tuple(
            (title, {**box, "fields": [f if f != "manpower" else "crews" for f in box["fields"]]})
            for title, box in fieldsets
        )

    @admin.display(description="Crews")
    def crews(self, log: DailyLog) -> str:
        rows = [
            (row.trade, row.vendor.name if row.vendor else "Own forces", row.headcount, row.hours)
            for row in log.manpower.select_related("vendor")
        ]
        if not rows:
            return EMPTY
        return format_html_join(mark_safe("<br>"), "{} ({}): {} workers, {} worker-hours", rows)

    @admin.display(description="Total headcount", ordering="total_headcount")
    def total_headcount_display(self, log: DailyLog) -> str:
        return f"{log.total_headcount:,}"

    @admin.display(description="Total worker-hours", ordering="total_hours")
    def total_hours_display(self, log: DailyLog) -> str:
        hours = getattr(log, "total_hours", None)
        return EMPTY if hours is None else f"{hours:,.2f}"

    def get_queryset(self, request):
        return visible_queryset(self, request, visible.daily_log_list).annotate(
            total_headcount=Coalesce(
                Sum("manpower__headcount"), Value(0), output_field=IntegerField()
            ),
            total_hours=Coalesce(
                Sum("manpower__hours"),
                Value(Decimal("0")),
                output_field=DecimalField(max_digits=12, decimal_places=2),
            ),
        )

    def service_create(self, request, data):
        return daily_logs.daily_log_create(
            project=data["project"],
            date=data["date"],
            weather=data["weather"],
            manpower=data["manpower"],
            notes=data["notes"],
            delays=data["delays"],
        )

    def service_update(self, request, obj, changes):
        return daily_logs.daily_log_update(daily_log_id=obj.pk, changes=changes)
