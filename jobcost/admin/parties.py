"""Owners and vendors, written through `services.parties`."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from jobcost.admin.base import ServiceAdmin, ServiceForm
from jobcost.models import Owner, Vendor
from jobcost.services import parties

TIMESTAMPS = ("created_at", "updated_at")
OWNER_FIELDS = ["name", "email", "address"]
VENDOR_FIELDS = ["name", "email", "tax_id_last4", "trade"]


class OwnerAddForm(ServiceForm):
    """`owner_create`'s arguments."""

    class Meta:
        model = Owner
        fields = ["account", *OWNER_FIELDS]


class OwnerChangeForm(ServiceForm):
    """What `owner_update` changes (the account is fixed)."""

    class Meta:
        model = Owner
        fields = OWNER_FIELDS


@admin.register(Owner)
class OwnerAdmin(ServiceAdmin):
    """Owners: `owner_create` / `owner_update`."""

    policy_basename = "owners"
    scope_project_field = None

    add_form, change_form = OwnerAddForm, OwnerChangeForm
    add_fieldsets = ((None, {"fields": ["account", *OWNER_FIELDS]}),)
    change_fieldsets = (
        (None, {"fields": ["id", "account", *OWNER_FIELDS]}),
        ("Timestamps", {"fields": TIMESTAMPS}),
    )
    change_readonly = ("id", "account", *TIMESTAMPS)
    list_display = ("name", "account", "email", "created_at")
    list_select_related = ("account",)
    list_filter = ("account",)
    search_fields = ("name", "email", "=id")

    def service_create(self, request, data):
        return parties.owner_create(
            account_id=data["account"].pk,
            name=data["name"],
            email=data["email"],
            address=data["address"],
        )

    def service_update(self, request, obj, changes):
        return parties.owner_update(owner_id=obj.pk, changes=changes)


def _tax_id_field() -> forms.RegexField:
    return forms.RegexField(
        r"^[0-9]{4}$",
        required=False,
        max_length=4,
        label="Tax ID (last 4)",
        error_messages={"invalid": "Enter the last four digits of the tax ID."},
    )


class VendorAddForm(ServiceForm):
    """`vendor_create`'s arguments."""

    tax_id_last4 = _tax_id_field()

    class Meta:
        model = Vendor
        fields = ["account", *VENDOR_FIELDS]


class VendorChangeForm(ServiceForm):
    """What `vendor_update` changes (the account is fixed)."""

    tax_id_last4 = _tax_id_field()

    class Meta:
        model = Vendor
        fields = VENDOR_FIELDS


@admin.register(Vendor)
class VendorAdmin(ServiceAdmin):
    """Vendors: `vendor_create` / `vendor_update`."""

    policy_basename = "vendors"
    scope_project_field = None

    add_form, change_form = VendorAddForm, VendorChangeForm
    add_fieldsets = ((None, {"fields": ["account", *VENDOR_FIELDS]}),)
    change_fieldsets = (
        (None, {"fields": ["id", "account", *VENDOR_FIELDS]}),
        ("Timestamps", {"fields": TIMESTAMPS}),
    )
    change_readonly = ("id", "account", *TIMESTAMPS)
    list_display = ("name", "account", "trade", "email", "tax_id_last4", "created_at")
    list_select_related = ("account",)
    list_filter = ("account", "trade")
    search_fields = ("name", "trade", "email", "=id")

    def service_create(self, request, data):
        return parties.vendor_create(
            account_id=data["account"].pk,
            name=data["name"],
            email=data["email"],
            tax_id_last4=data["tax_id_last4"],
            trade=data["trade"],
        )

    def service_update(self, request, obj, changes):
        return parties.vendor_update(vendor_id=obj.pk, changes=changes)
