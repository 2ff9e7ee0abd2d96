"""What a key can see: its account, and its projects when restricted (docs/keys.md, "Who may
call what")."""

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
        """The scope of an API key, or of anything of the same shape (`account_id` and a
        `projects` relation): a back-office `Membership` is read the same way. A key read with
        its project IDs already annotated (`project_id_list`, as the API's authentication
        reads it on PostgreSQL) costs no query."""
        listed = getattr(api_key, "project_id_list", None)
        if listed is None:
            listed = api_key.projects.values_list("id", flat=True)
        ids = frozenset(listed)
        return cls(account_id=api_key.account_id, project_ids=ids or None)

    @property
    def restricted(self) -> bool:
        return self.project_ids is not None

    def sees(self, row) -> bool:
        """Whether a loaded row is surely within the scope: of the account, and for a
        restricted key a project of its own or a row whose `project_id` is one (anything else
        is for a query through `filter` to decide)."""
        if getattr(row, "account_id", None) != self.account_id:
            return False
        if self.project_ids is None:
            return True
        if getattr(type(row), "OBJECT", None) == "project":
            return row.pk in self.project_ids
        return getattr(row, "project_id", None) in self.project_ids

    def filter(
        self,
        queryset: QuerySet,
        project_field: str | None = "project",
        account_field: str = "account_id",
    ) -> QuerySet:
        """Limit a queryset to the account, and to the key's projects when restricted.
        `project_field` is the path to the project (`"id"` for projects themselves, None for
        account-level objects such as owners and vendors); `account_field` the lookup of the
        account's ID (`"pk"` for accounts themselves, `"api_key__account_id"` through a key)."""
        queryset = queryset.filter(**{account_field: self.account_id})
        if self.project_ids is not None and project_field is not None:
            lookup = "pk__in" if project_field == "id" else f"{project_field}_id__in"
            queryset = queryset.filter(**{lookup: self.project_ids})
        return queryset
