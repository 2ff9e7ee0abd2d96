"""An object's "History" page in the back office is its audit trail (docs/backoffice/month.md,
"History"): every entry the services recorded for it — who (user, API key, agent or the
system), when, what it did, each field's before → after, and the note — in place of Django's
own log, which the services never write.

It reads as an accountant speaks: money in dollars (every integer-cents field, and every
figure of a G703 or coding line), percentages with `%`, dates and times in the site's local
format, status and kind codes as their labels, and every record ID as the record's name (a
vendor's name, `Pay app #2 (Oct 2026)`): no raw cents, IDs, codes or ISO timestamps. IDs are
named only from the object's own account. The request's ID stays on the row's `data-request`
attribute for support, out of the text.
"""

from __future__ import annotations

import datetime
import re
from collections import defaultdict

from django.apps import apps
from django.db import models
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.formats import date_format

from audit.models import AuditEntry
from jobcost.admin.display import EMPTY, accounting
from jobcost.models import ApiKey

ACTOR_WORDS = {"user": "", "api_key": "API key ", "agent": "Agent key ", "system": ""}
# A record's ID: `<prefix>_<opaque>` (docs/conventions.md, "IDs").
ID = re.compile(r"\b([a-z]{1,5})_[0-9A-Za-z]{12,}\b")
ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# Money the services record that is no model field: a pay app's receipts so far and what
# remains of its amount certified (services.pay_app_payments).
COMPUTED_MONEY = frozenset({"amount_paid", "amount_remaining"})
# Paths whose numbers are money whatever the key: a pay app's G703 rows (`lines.3`), a change
# order's or an invoice's lines.
MONEY_PATHS = ("lines.",)


def _money_fields() -> frozenset[str]:
    """Every integer-cents field of the job-cost models (their BigIntegerFields)."""
    names = set()
    for model in apps.get_app_config("jobcost").get_models():
        for field in model._meta.get_fields():
            if isinstance(field, models.BigIntegerField) and not isinstance(
                field, models.AutoField
            ):
                names.add(field.name)
    return frozenset(names) | COMPUTED_MONEY


def _models_by_prefix() -> dict[str, type[models.Model]]:
    """Every model with a prefixed ID, by its prefix (`vnd` → Vendor)."""
    return {
        model.PREFIX: model
        for model in apps.get_models()
        if isinstance(getattr(model, "PREFIX", None), str)
    }


# Relations whose record a model's name reads when it is loaded (`models.common.loaded`).
NAMED_THROUGH = frozenset({"cost_code", "project", "invoice", "change_order"})


class Namer:
    """Names the records an audit trail mentions, from one account only: collect every ID
    first (`collect`), then `name(id)` gives the record's name, or "a record" for one that is
    gone or of another account. One query per kind of record named."""

    def __init__(self, account_id: str | None) -> None:
        self.account_id = account_id
        self.wanted: dict[str, set[str]] = defaultdict(set)
        self.names: dict[str, str] = {}

    def collect(self, value) -> None:
        if isinstance(value, str):
            for match in ID.finditer(value):
                self.wanted[match.group(1)].add(match.group(0))
        elif isinstance(value, dict):
            for item in value.values():
                self.collect(item)
        elif isinstance(value, list):
            for item in value:
                self.collect(item)

    def resolve(self) -> None:
        by_prefix = _models_by_prefix()
        for prefix, ids in self.wanted.items():
            model = by_prefix.get(prefix)
            if model is None:
                continue
            rows = model._default_manager.filter(pk__in=ids)
            field_names = {f.name for f in model._meta.get_fields()}
            # The relations a name reads only when loaded (a budget line's cost code).
            rows = rows.select_related(*(NAMED_THROUGH & field_names))
            if model._meta.model_name == "account":
                rows = rows.filter(pk=self.account_id)
            elif "account" in field_names:
                rows = rows.filter(account_id=self.account_id)
            else:
                continue  # a record of no account is never named here
            for row in rows:
                self.names[row.pk] = str(row)

    def name(self, record_id: str) -> str:
        return self.names.get(record_id, "a record")

    def in_text(self, text: str) -> str:
        """A note with every ID named: `Ampere Electric, Inc. (vnd_…)` loses its parenthesized
        ID; a bare ID becomes the record's name."""
        text = re.sub(r"\s*\(" + ID.pattern + r"\)", "", text)
        text = re.sub(r"(?<!\.)\.\.(?!\.)", ".", text)  # `Inc. (vnd_…).` → `Inc.`
        return ID.sub(lambda match: self.name(match.group(0)), text)


def _when(text: str) -> str:
    """An ISO timestamp or date as the site writes it (`Nov. 28, 2026, 4:45 p.m.`)."""
    if ISO_DATE.match(text):
        return date_format(datetime.date.fromisoformat(text), "DATE_FORMAT")
    moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return date_format(timezone.localtime(moment), "DATETIME_FORMAT")


def _field_label(model: type[models.Model], name: str) -> str:
    """`period_end` → `Period end`, `lines.CO-001` → `Line CO-001`, a field's verbose name
    where the model has one."""
    if name.startswith("lines."):
        return f"Line {name.removeprefix('lines.')}"
    if name.endswith("_pct"):
        name = name.removesuffix("_pct") + " (%)"
    try:
        label = str(model._meta.get_field(name).verbose_name)
    except Exception:  # a recorded name that is not a model field (`lien_waivers_missing`)
        label = name.replace("_", " ").replace(".", " ")
    return label[:1].upper() + label[1:]


class Reader:
    """Turns one object's recorded values into words (see the module)."""

    def __init__(self, model: type[models.Model], namer: Namer) -> None:
        self.model = model
        self.namer = namer
        self.money = _money_fields()

    def choices(self, name: str) -> dict:
        try:
            field = self.model._meta.get_field(name)
        except Exception:
            return {}
        return {str(value): str(label) for value, label in (field.choices or ())}

    def value(self, path: str, value) -> str:
        """One recorded value at `path` (`amount`, `lines.3.this_period`) in words."""
        key = path.rsplit(".", 1)[-1]
        if value is None or value == "":
            return EMPTY
        if isinstance(value, bool):
            return "yes" if value else "no"
        if key.endswith("_pct") and re.fullmatch(r"-?\d+(\.\d+)?", str(value)):
            return f"{value}%"
        if isinstance(value, int):
            if key in self.money or path.startswith(MONEY_PATHS):
                return accounting(value)
            return f"{value:,}"
        if isinstance(value, dict):
            return ", ".join(
                f"{sub.replace('_', ' ')}: {self.value(f'{path}.{sub}', item)}"
                for sub, item in value.items()
            )
        if isinstance(value, list):
            return "; ".join(self.value(path, item) for item in value) or EMPTY
        text = str(value)
        labels = self.choices(key)
        if text in labels:
            return labels[text]
        if ISO_DATE.match(text) or ISO_DATETIME.match(text):
            return _when(text)
        if ID.fullmatch(text):
            return self.namer.name(text)
        return self.namer.in_text(text)


def _actor(entry: AuditEntry, keys: dict[str, str]) -> str:
    if entry.actor_type == "system":
        return "System"
    prefix = ACTOR_WORDS.get(entry.actor_type, f"{entry.actor_type} ")
    role = f" ({entry.actor_role})" if entry.actor_role else ""
    who = entry.actor_id or EMPTY
    if entry.actor_type in ("api_key", "agent"):
        who = keys.get(entry.actor_id, "(revoked or removed)")
    return f"{prefix}{who}{role}"


def audit_rows(obj: models.Model) -> list[dict]:
    """The object's audit entries, oldest first, ready for the page: one query for the
    entries, one per kind of record their values name, one for the API keys that acted."""
    entries = list(AuditEntry.objects.filter(target_id=obj.pk).order_by("created_at", "id"))
    account_id = getattr(obj, "account_id", None) or (
        obj.pk if obj._meta.model_name == "account" else None
    )
    namer = Namer(account_id)
    for entry in entries:
        namer.collect(entry.changes or {})
        namer.collect(entry.note or "")
    namer.resolve()
    key_ids = {e.actor_id for e in entries if e.actor_type in ("api_key", "agent")}
    keys = {
        key.pk: key.name or "unnamed key"
        for key in ApiKey.objects.filter(pk__in=key_ids, account_id=account_id)
    }
    reader = Reader(type(obj), namer)
    rows = []
    for entry in entries:
        changes = [
            {
                "field": _field_label(type(obj), field),
                "before": reader.value(field, change.get("before")),
                "after": reader.value(field, change.get("after")),
            }
            for field, change in (entry.changes or {}).items()
            if isinstance(change, dict)
        ]
        rows.append(
            {
                "entry": entry,
                "actor": _actor(entry, keys),
                "action": entry.action.replace("_", " "),
                "changes": changes,
                "note": namer.in_text(entry.note or ""),
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
