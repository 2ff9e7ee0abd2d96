"""Field values as the API shows them, for the before/after of audit entries. Bottom layer:
imports nothing of the project; what a model skips, masks or renames it declares itself
(`audit.audited.Audited`)."""

import datetime
from decimal import Decimal

from django.db import models

# Timestamps every write moves: never part of an entry's changes.
TIMESTAMPS = frozenset({"created_at", "updated_at"})


def format_timestamp(value: datetime.datetime) -> str:
    """ISO 8601 in UTC with a `Z` and whole seconds: `2026-11-20T14:03:07Z`."""
    return value.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def json_value(value):
    """Cents stay ints, percents become exact numbers, times become `Z` strings."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime.datetime):
        return format_timestamp(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def snapshot(instance: models.Model) -> dict:
    """The audited fields of an instance as {api_name: json value}: concrete fields that are
    loaded (a deferred field is skipped rather than fetched, so snapshots never query), less
    the model's `AUDIT_SKIP`; its `AUDIT_MASKED` fields keep only their prefix and last four
    characters (`whsec_…abcd`, so a rotation still reads as a change); its `AUDIT_NAMES`
    rename fields whose API name differs."""
    model = type(instance)
    skip = TIMESTAMPS | getattr(model, "AUDIT_SKIP", frozenset())
    masked = getattr(model, "AUDIT_MASKED", frozenset())
    names = getattr(model, "AUDIT_NAMES", {})
    values = {}
    loaded = instance.__dict__
    for field in instance._meta.concrete_fields:
        if field.name in skip or field.attname not in loaded:
            continue
        value = loaded[field.attname]
        if field.name in masked and value:
            value = f"{value.partition('_')[0]}_…{value[-4:]}"
        values[names.get(field.name, field.name)] = json_value(value)
    return values
