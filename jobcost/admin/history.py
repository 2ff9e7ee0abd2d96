"""An object's "History" page in the back office is its audit trail (docs/backoffice/month.md,
"History"): every entry the services recorded for it — who (user, API key, agent or the
system), when, in which request, what it did, each field's before → after with money in
dollars, and the note — in place of Django's own log, which the services never write."""

from __future__ import annotations

from django.apps import apps
from django.db import models
from django.template.response import TemplateResponse

from audit.models import AuditEntry
from jobcost.admin.display import EMPTY, accounting

ACTOR_WORDS = {"user": "", "api_key": "API key ", "agent": "Agent key ", "system": ""}


def _money_fields() -> frozenset[str]:
    """Every integer-cents field of the job-cost models (their BigIntegerFields)."""
    names = set()
    for model in apps.get_app_config("jobcost").get_models():
        for field in model._meta.get_fields():
            if isinstance(field, models.BigIntegerField) and not isinstance(
                field, models.AutoField
            ):
                names.add(field.name)
    return frozenset(names)


def readable(name: str, value, money: frozenset[str]) -> str:
    """One recorded value as a person reads it: money in dollars, lists and nested objects
    spelled out, None as a dash."""
    if value is None or value == "":
        return EMPTY
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and name in money:
        return accounting(value)
    if isinstance(value, dict):
        return ", ".join(
            f"{key.replace('_', ' ')}: {readable(key, item, money)}" for key, item in value.items()
        )
    if isinstance(value, list):
        return "; ".join(readable(name, item, money) for item in value) or EMPTY
    return str(value)


def _actor(entry: AuditEntry) -> str:
    if entry.actor_type == "system":
        return "System"
    prefix = ACTOR_WORDS.get(entry.actor_type, f"{entry.actor_type} ")
    role = f" ({entry.actor_role})" if entry.actor_role else ""
    return f"{prefix}{entry.actor_id or EMPTY}{role}"


def audit_rows(obj: models.Model) -> list[dict]:
    """The object's audit entries, oldest first, ready for the page (one query)."""
    money = _money_fields()
    rows = []
    for entry in AuditEntry.objects.filter(target_id=obj.pk).order_by("created_at", "id"):
        changes = [
            {
                "field": field.replace("_", " ").replace(".", " "),
                "before": readable(field.rsplit(".", 1)[-1], change.get("before"), money),
                "after": readable(field.rsplit(".", 1)[-1], change.get("after"), money),
            }
            for field, change in (entry.changes or {}).items()
            if isinstance(change, dict)
        ]
        rows.append(
            {
                "entry": entry,
                "actor": _actor(entry),
                "action": entry.action.replace("_", " "),
                "changes": changes,
            }
        )
    return rows


def audit_trail_response(model_admin, request, obj: models.Model) -> TemplateResponse:
    """The History page of `obj` for `model_admin` (the caller checked that the user may
    view it)."""
    opts = model_admin.opts
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"History: {obj}",
        "subtitle": None,
        "object": obj,
        "opts": opts,
        "rows": audit_rows(obj),
        "preserved_filters": model_admin.get_preserved_filters(request),
    }
    return TemplateResponse(request, "admin/jobcost/audit_trail.html", context)
