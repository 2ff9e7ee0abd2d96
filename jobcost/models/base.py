"""Shared model pieces: timestamps, the list index, loaded relations (IDs: `audit.ids`)."""

from django.db import models
from django.utils import timezone


class TimestampedModel(models.Model):
    """`created_at` set once at insert, `updated_at` on every save (docs/conventions.md)."""

    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


def list_index(name: str, *scope: str) -> models.Index:
    """The keyset index behind every list: scope columns, then (created_at, id) newest first."""
    return models.Index(fields=[*scope, "-created_at", "-id"], name=name)


def loaded(obj: models.Model, relation: str):
    """The related object of `relation` when it is already loaded (select_related or an
    earlier access), else None: names (`__str__`) use it without a query of their own."""
    return obj._state.fields_cache.get(relation)
