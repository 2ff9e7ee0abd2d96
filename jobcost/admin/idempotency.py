"""Stored idempotent responses (docs/conventions.md), read-only: for support, never edited by
hand."""

from __future__ import annotations

from django.contrib import admin

from jobcost.admin.base import ReadOnlyAdmin
from jobcost.models import IdempotencyRecord


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    """What a key's request with an Idempotency-Key produced (replayed for 24 h)."""

    policy_basename = None  # support data of the operators: no member sees it
    scope_account_field = "api_key__account_id"
    scope_project_field = None

    list_display = ("key", "api_key", "method", "path", "response_status", "created_at")
    list_select_related = ("api_key",)
    list_filter = ("method", "response_status")
    search_fields = ("=key", "path")
    ordering = ("-created_at", "-id")
    show_full_result_count = False
