"""What a key can see: its account, and its projects when restricted (SPEC §2)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet


@dataclass(frozen=True)
class Scope:
    """`project_ids` is None for an unrestricted key, else the only projects it may see."""

    account_id: str
    project_ids: frozenset[str] | None = None

    @classmethod
    def for_key(cls, api_key) -> Scope:
        ids = frozenset(api_key.projects.values_list("id", flat=True))
        return cls(account_id=api_key.account_id, project_ids=ids or None)

    @property
    def restricted(self) -> bool:
        return self.project_ids is not None

    def filter(self, queryset: QuerySet, project_field: str | None = "project") -> QuerySet:
        """Limit a queryset to the account, and to the key's projects when restricted.
        `project_field` is the path to the project (`"id"` for projects themselves, None for
        account-level objects such as owners and vendors)."""
        queryset = queryset.filter(account_id=self.account_id)
        if self.project_ids is not None and project_field is not None:
            lookup = "pk__in" if project_field == "id" else f"{project_field}_id__in"
            queryset = queryset.filter(**{lookup: self.project_ids})
        return queryset
