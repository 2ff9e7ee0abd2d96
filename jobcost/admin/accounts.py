"""Accounts and API keys (docs/keys.md, "Who may call what"): keys are created here with the secret
shown once.

The secret is rendered in the response to the add form only (never stored, never put in a
message or the session, sent with `Cache-Control: no-store`); afterwards only `secret_hint`
is visible. Keys are never edited; the `revoke` action calls `api_key_revoke`.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.utils import quote
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import add_never_cache_headers

from jobcost.admin.base import (
    ReadOnlyAdmin,
    ServiceAdmin,
    ServiceForm,
    confirm_each,
    is_operator,
)
from jobcost.admin.fields import LabelledMultipleChoiceField, with_account
from jobcost.models import Account, ApiKey, Membership, Project
from jobcost.services.api_keys import account_get_or_create, api_key_create, api_key_revoke

TIMESTAMPS = ("created_at", "updated_at")


class AccountForm(ServiceForm):
    """`account_get_or_create`'s one argument: the company name (unique)."""

    class Meta:
        model = Account
        fields = ["name"]


@admin.register(Account)
class AccountAdmin(ServiceAdmin):
    """Contractor companies. Created by name through `account_get_or_create`; there is no
    service to change an account yet, so the change page is view-only."""

    policy_basename = "accounts"
    scope_account_field = "pk"
    scope_project_field = None

    add_form = change_form = AccountForm
    add_fieldsets = ((None, {"fields": ["name"]}),)
    change_fieldsets = (
        (None, {"fields": ["id", "name", "rate_limit_per_second", "rate_limit_burst"]}),
        ("Timestamps", {"fields": TIMESTAMPS}),
    )
    change_readonly = ("id", "name", "rate_limit_per_second", "rate_limit_burst", *TIMESTAMPS)
    list_display = ("name", "id", "rate_limit_per_second", "rate_limit_burst", "created_at")
    list_select_related = False  # an account has no relation to follow
    search_fields = ("name", "=id")
    ordering = ("name",)

    def has_add_permission(self, request) -> bool:
        """Only operators create accounts; a member sees their own."""
        return is_operator(request) and super().has_add_permission(request)

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def service_create(self, request, data):
        return account_get_or_create(name=data["name"])


class ApiKeyCreateForm(ServiceForm):
    """What `api_key_create` takes: account, role, label and optional project restriction."""

    projects = LabelledMultipleChoiceField(
        Project.objects.select_related("account").order_by("account__name", "number"),
        label_of=with_account,
        required=False,
        help_text="Restrict the key to these projects (of the same account); empty: all.",
    )

    class Meta:
        model = ApiKey
        fields = ["account", "role", "name", "projects"]


@admin.register(ApiKey)
class ApiKeyAdmin(ServiceAdmin):
    """API keys: add (secret shown once), view, revoke. Never edited, never deleted."""

    policy_basename = "api-keys"
    scope_project_field = None

    add_form = change_form = ApiKeyCreateForm
    add_fieldsets = ((None, {"fields": ["account", "role", "name", "projects"]}),)
    change_fieldsets = (
        (None, {"fields": ["id", "account", "name", "role", "projects"]}),
        ("Secret", {"fields": ["secret_hint", "api_version", "revoked_at"]}),
        ("Timestamps", {"fields": TIMESTAMPS}),
    )
    change_readonly = (
        "id",
        "account",
        "name",
        "role",
        "projects",
        "secret_hint",
        "api_version",
        "revoked_at",
        *TIMESTAMPS,
    )
    param_fields = {"project": "projects"}
    list_display = ("__str__", "account", "role", "secret_hint", "revoked_at", "created_at")
    list_select_related = ("account",)
    list_filter = ("role", ("revoked_at", admin.EmptyFieldListFilter), "account")
    search_fields = ("name", "=id", "secret_hint")
    actions = ("revoke",)

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_revoke_permission(self, request) -> bool:
        return request.user.has_perm("jobcost.change_apikey")

    def service_create(self, request, data):
        key, secret = api_key_create(
            account=data["account"],
            role=data["role"],
            name=data["name"],
            projects=list(data["projects"]),
        )
        key.secret_once = secret
        return key

    def response_add(self, request, obj, post_url_continue=None):
        """Show the secret once, in this response only."""
        messages.success(request, f"API key {obj.pk} created. Copy its secret now.")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "API key created",
            "key": obj,
            "secret": obj.secret_once,
            "change_url": reverse("admin:jobcost_apikey_change", args=[quote(obj.pk)]),
        }
        response = TemplateResponse(request, "admin/jobcost/apikey/secret_once.html", context)
        add_never_cache_headers(response)  # includes no-store: no cache may keep the secret
        return response

    @admin.action(description="Revoke selected API keys…", permissions=["revoke"])
    def revoke(self, request, queryset):
        return confirm_each(
            self,
            request,
            queryset,
            lambda key: api_key_revoke(api_key_id=key.pk),
            "revoked (requests with it get 401 api_key_revoked within a second)",
            title="Revoke API keys",
            explain="Requests made with a revoked key are refused within a second. A revoked "
            "key cannot be restored: make a new one.",
        )


@admin.register(Membership)
class MembershipAdmin(ReadOnlyAdmin):
    """Who belongs to which account, with which role and projects: for operators only (made
    with `manage.py create_backoffice_user`; no account user sees other people's access)."""

    policy_basename = None
    scope_project_field = None
    fields = readonly_fields = ("id", "user", "account", "role", "projects", "created_at")
    list_display = ("user", "account", "role", "created_at")
    list_select_related = ("user", "account")
    list_filter = ("role", "account")
    search_fields = ("user__username", "user__email", "account__name", "=id")
    ordering = ("account__name", "user__username")
