"""The signals that write the audit trail for every `Audited` model (docs/audit.md).

`pre_save` fixes the `before` of an update (the values `track()` remembered, else the stored
row, read once in the saving transaction); `post_save` compares and appends one entry —
`created`, `updated`, or the transition, note and extra changes a service passed to
`audit.services.save`; `post_delete` appends `deleted`. Everything runs in the saving
transaction. Rows that are only read are never touched.
"""

from __future__ import annotations

from django.apps import apps
from django.db.models.signals import post_delete, post_save, pre_save

from audit.audited import Audited
from audit.services import audit_record, changes_between, created_changes, write_entry
from audit.values import snapshot


def _on_pre_save(sender, instance, raw=False, **kwargs):
    if raw or instance._state.adding or "_audit_before" in instance.__dict__:
        return
    stored = sender._base_manager.filter(pk=instance.pk).first()
    instance._audit_before = snapshot(stored) if stored is not None else {}


def _on_post_save(sender, instance, created, raw=False, **kwargs):
    if raw:
        return
    intent = instance.__dict__.pop("_audit_intent", None) or {}
    if intent.get("defer"):
        # The service writes child rows first, then calls `audit.services.record_created`.
        instance._audit_before = snapshot(instance)
        return
    after = snapshot(instance)
    if created:
        changes = created_changes(after)
    else:
        changes = changes_between(instance.__dict__.get("_audit_before") or {}, after)
    write_entry(
        instance,
        action=intent.get("action") or ("created" if created else "updated"),
        changes={**changes, **(intent.get("extra") or {})},
        note=intent.get("note", ""),
    )
    instance._audit_before = after


def _on_post_delete(sender, instance, **kwargs):
    audit_record(
        target_type=sender.OBJECT,
        target_id=instance.pk,
        account_id=getattr(instance, "account_id", None) or instance.pk,
        action="deleted",
        changes={k: {"before": v, "after": None} for k, v in snapshot(instance).items()},
    )


def audited_models() -> list:
    """Every installed concrete model that inherits `Audited`."""
    return [model for model in apps.get_models() if issubclass(model, Audited)]


def connect() -> None:
    """Connect the handlers for every audited model (called from AppConfig.ready)."""
    for model in audited_models():
        uid = f"audit:{model._meta.label}"
        pre_save.connect(_on_pre_save, sender=model, dispatch_uid=uid + ":before")
        post_save.connect(_on_post_save, sender=model, dispatch_uid=uid + ":save")
        post_delete.connect(_on_post_delete, sender=model, dispatch_uid=uid + ":delete")
