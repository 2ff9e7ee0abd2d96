"""The audit trail in the admin: read-only (no add, change or delete; the database refuses
UPDATE and DELETE on audit rows anyway)."""

from __future__ import annotations

import json

from django.contrib import admin
from django.utils.html import format_html

from audit.models import AuditEntry
from jobcost.admin.base import ReadOnlyAdmin


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    """Who changed what: filter by target type, action and actor type; search an object's
    or a request's ID."""

    # Read as the API reads an object's audit trail (`GET /v1/<collection>/{id}/audit`);
    # the entries span the account's projects and carry no project, so a project-restricted
    # member does not see this list.
    policy_basename = "projects"
    policy_actions = {}
    scope_project_field = None
    account_wide_only = True

    list_display = (
        "created_at",
        "target_type",
        "target_id",
        "action",
        "actor_type",
        "actor_id",
        "actor_role",
        "request_id",
    )
    list_select_related = False  # an entry holds IDs, not foreign keys
    list_filter = ("target_type", "action", "actor_type")
    search_fields = ("=target_id", "=request_id")
    ordering = ("-created_at", "-id")
    show_full_result_count = False
    fields = (
        "id",
        "created_at",
        "account_id",
        "target_type",
        "target_id",
        "action",
        "actor_type",
        "actor_id",
        "actor_role",
        "request_id",
        "changes_display",
        "note",
    )
    readonly_fields = fields

    @admin.display(description="Changes")
    def changes_display(self, entry: AuditEntry) -> str:
        text = json.dumps(entry.changes, indent=2, sort_keys=True, ensure_ascii=False)
        return format_html("<pre>{}</pre>", text)
