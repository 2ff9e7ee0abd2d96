"""Field values as the API shows them, for the before/after of audit entries."""

import datetime
from decimal import Decimal

from django.db import models

from jobcost.api.renderers import format_timestamp

# Not part of any API object: timestamps every write moves, the key hash, and the webhook
# endpoint's internal failure clock (it would log an entry at every failure streak).
SKIPPED_FIELDS = {"created_at", "updated_at", "secret_hash", "failing_since"}

# Webhook signing secrets never reach the append-only trail in full: masked as the API shows
# them (`whsec_…abcd`), so a rotation still reads as a change.
MASKED_FIELDS = {"secret", "previous_secret"}


# Stored fields whose API name differs: the budget's PATCHable `cost_to_complete` is stored
# as the estimate (null while never set, i.e. computed).
API_NAMES = {"cost_to_complete_estimate": "cost_to_complete"}


def api_name(field: models.Field) -> str:
    """`owner_id` → `owner`; a field stored under another name gets its API name."""
    return API_NAMES.get(field.name, field.name)


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
    loaded (a deferred field is skipped rather than fetched, so snapshots never query)."""
    values = {}
    loaded = instance.__dict__
    for field in instance._meta.concrete_fields:
        if field.name in SKIPPED_FIELDS or field.attname not in loaded:
            continue
        value = loaded[field.attname]
        if field.name in MASKED_FIELDS and value:
            value = f"whsec_…{value[-4:]}"
        values[api_name(field)] = json_value(value)
    return values
