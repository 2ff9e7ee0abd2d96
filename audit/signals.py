"""Signals that write the audit trail for every audited model (STYLE §7).

`post_init` keeps a snapshot of the loaded values; `post_save` compares and appends one entry
(created / updated / the transition a service named in `instance._audit_action`), with the
service's optional `instance._audit_note` and `instance._audit_extra` (changes of child rows,
such as lines, that the row itself does not hold); `post_delete` appends `deleted`.
Everything runs in the saving transaction.
"""

from django.db.models.signals import post_delete, post_init, post_save

from audit.services import audit_record, audit_record_many
from audit.values import snapshot


def audited_models():
    """The models whose every write lands on the trail."""
    from jobcost.models import (
        Account,
        AgentAction,
        ApiKey,
        BudgetLine,
        ChangeOrder,
        Commitment,
        CostCode,
        DailyLog,
        Invoice,
        LienWaiver,
        Owner,
        PayApp,
        Project,
        Rfi,
        Vendor,
    )
    from webhooks.models import WebhookEndpoint

    return [
        WebhookEndpoint,
        Account,
        ApiKey,
        Owner,
        Vendor,
        Project,
        CostCode,
        BudgetLine,
        Commitment,
        ChangeOrder,
        Invoice,
        LienWaiver,
        PayApp,
        Rfi,
        DailyLog,
        AgentAction,
    ]


def _account_id(instance) -> str:
    return getattr(instance, "account_id", None) or instance.pk


def _on_post_init(sender, instance, **kwargs):
    # Django marks a row loaded from the database (`_state.adding = False`) only after
    # __init__, so snapshot always: for new instances post_save ignores it.
    instance._audit_snapshot = snapshot(instance)


def _on_post_save(sender, instance, created, raw=False, **kwargs):
    if raw:
        return
    if instance.__dict__.pop("_audit_defer_created", False):
        # The service writes child rows first, then calls `record_created` (see there).
        instance._audit_snapshot = snapshot(instance)
        return
    _write_entry(sender, instance, created)


def record_created(instance) -> None:
    """Write the deferred `created` entry of an instance saved with `_audit_defer_created`,
    once its child rows (lines, budget line) exist, so the entry and the event that follows
    it describe the whole object."""
    _write_entry(type(instance), instance, created=True)


def _created_changes(after: dict) -> dict:
    """A creation's changes: every set field but the ID, from nothing to its value."""
    return {
        name: {"before": None, "after": value}
        for name, value in after.items()
        if name != "id" and value not in (None, "")
    }


def _write_entry(sender, instance, created: bool) -> None:
    after = snapshot(instance)
    if created:
        changes = _created_changes(after)
    else:
        before = instance.__dict__.get("_audit_snapshot") or {}
        changes = {
            name: {"before": before.get(name), "after": value}
            for name, value in after.items()
            if before.get(name) != value
        }
    changes.update(instance.__dict__.pop("_audit_extra", None) or {})
    action = instance.__dict__.pop("_audit_action", None) or ("created" if created else "updated")
    note = instance.__dict__.pop("_audit_note", "")
    if changes or action != "updated" or note:
        audit_record(
            target_type=sender.OBJECT,
            target_id=instance.pk,
            account_id=_account_id(instance),
            action=action,
            changes=changes,
            note=note,
        )
    instance._audit_snapshot = after


def record_updated_many(instances: list, *, note: str = "") -> None:
    """Write the `updated` entries of instances changed with `QuerySet.bulk_update` (which
    sends no signal): for each, the same before/after (against the values it was loaded with)
    and `note` as a `save()` would have written, in one INSERT (`audit_record_many`)."""
    entries = []
    for instance in instances:
        after = snapshot(instance)
        before = instance.__dict__.get("_audit_snapshot") or {}
        changes = {
            name: {"before": before.get(name), "after": value}
            for name, value in after.items()
            if before.get(name) != value
        }
        if changes or note:
            entries.append(
                {
                    "target_type": type(instance).OBJECT,
                    "target_id": instance.pk,
                    "account_id": _account_id(instance),
                    "action": "updated",
                    "changes": changes,
                    "note": note,
                }
            )
        instance._audit_snapshot = after
    audit_record_many(entries)


def record_created_many(instances: list) -> None:
    """The `created` entries of new instances inserted with `bulk_create` (which sends no
    signal): for each, the entry a `save()` (or `record_created`) would have written, all in
    one INSERT (`audit_record_many`, which also records their events in bulk)."""
    entries = []
    for instance in instances:
        after = snapshot(instance)
        entries.append(
            {
                "target_type": type(instance).OBJECT,
                "target_id": instance.pk,
                "account_id": _account_id(instance),
                "action": "created",
                "changes": _created_changes(after),
            }
        )
        instance._audit_snapshot = after
    audit_record_many(entries)


def _on_post_delete(sender, instance, **kwargs):
    audit_record(
        target_type=sender.OBJECT,
        target_id=instance.pk,
        account_id=_account_id(instance),
        action="deleted",
        changes={k: {"before": v, "after": None} for k, v in snapshot(instance).items()},
    )


def connect() -> None:
    """Connect the handlers for every audited model (called from AppConfig.ready)."""
    for model in audited_models():
        uid = f"audit:{model._meta.label}"
        post_init.connect(_on_post_init, sender=model, dispatch_uid=uid + ":init")
        post_save.connect(_on_post_save, sender=model, dispatch_uid=uid + ":save")
        post_delete.connect(_on_post_delete, sender=model, dispatch_uid=uid + ":delete")
