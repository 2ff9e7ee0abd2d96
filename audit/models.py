"""The audit entry: append-only, refused UPDATE and DELETE by the database itself."""

from django.db import models
from django.utils import timezone

from audit.ids import prefixed_id


class AppendOnlyError(Exception):
    """Raised when code tries to change or delete an audit entry."""


class AuditEntryQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnlyError("Audit entries are append-only.")

    def delete(self):
        raise AppendOnlyError("Audit entries are append-only.")


class AuditEntry(models.Model):
    """One change to one object (docs/resources.md, audit_entry).

    `target_id` is the changed object's prefixed ID and `target_type` its object name;
    `action` is `created`, `updated`, `deleted` or a transition (`executed`, `approved`, …);
    `changes` maps each field to {before, after} in API representation (cents, percents).
    """

    OBJECT = "audit_entry"
    PREFIX = "aud"
    id = prefixed_id(PREFIX)
    account_id = models.CharField(max_length=40, db_index=True)
    target_type = models.CharField(max_length=40)
    target_id = models.CharField(max_length=40)
    action = models.CharField(max_length=40)
    actor_type = models.CharField(max_length=16)
    # NULL, not "", is the API's null: a system change has no actor id or request id.
    actor_id = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    actor_role = models.CharField(max_length=40, null=True, blank=True)  # noqa: DJ001
    request_id = models.CharField(max_length=40, null=True, blank=True)  # noqa: DJ001
    changes = models.JSONField(default=dict)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = AuditEntryQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "audit entries"
        indexes = [
            models.Index(fields=["target_id", "created_at", "id"], name="audit_target_time"),
            models.Index(fields=["account_id", "-created_at", "-id"], name="audit_list"),
        ]

    def __str__(self) -> str:
        """`Commitment approved, Nov 24, 2026 14:05` (what, done, when)."""
        what = self.target_type.replace("_", " ").capitalize()
        return f"{what} {self.action.replace('_', ' ')}, {self.created_at:%b %-d, %Y %H:%M}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnlyError("Audit entries are append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("Audit entries are append-only.")

    @property
    def updated_at(self):
        return self.created_at
