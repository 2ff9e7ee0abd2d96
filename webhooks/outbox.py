"""The transactional outbox (SPEC §10): every audited change in the catalogue becomes an
event row and one delivery row per subscribed endpoint, in the change's own transaction. A
change that rolls back leaves neither; a committed one is never lost, because the endpoints'
drains (webhooks/drain.py, one task per endpoint on its lane) are only queued after commit and
the beat sweep finds anything a broker outage dropped."""

from __future__ import annotations

import json
import threading

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from audit.context import Actor
from jobcost.api.renderers import dumps
from jobcost.api.scope import Scope
from webhooks.catalogue import RESOURCES, event_type, subscribes
from webhooks.lanes import lane_for
from webhooks.models import DeliveryStatus, EndpointStatus, Event, WebhookDelivery, WebhookEndpoint
from webhooks.tasks import queue_drains


def render_object(object_name: str, account_id: str, object_id: str) -> dict | None:
    """The object as GET would return it now, as plain JSON data."""
    serializer_class = import_string(RESOURCES[object_name][1])
    obj = serializer_class.selector(Scope(account_id)).filter(pk=object_id).first()
    if obj is None:
        return None
    return json.loads(dumps(serializer_class(obj, context={}).data))


def on_entry_recorded(sender, entry, actor: Actor, **kwargs) -> None:
    """Receiver of `audit.services.entry_recorded`: record the event, if it is one."""
    type_ = event_type(entry.target_type, entry.action)
    if type_ is None:
        return
    event_record(
        type_=type_,
        object_name=entry.target_type,
        account_id=entry.account_id,
        object_id=entry.target_id,
        changes=entry.changes,
        actor=actor,
        created=entry.action in ("created", "requested", "proposed"),
    )


def event_record(
    *,
    type_: str,
    object_name: str,
    account_id: str,
    object_id: str,
    changes: dict,
    actor: Actor,
    created: bool,
) -> Event | None:
    """Write the event and its pending deliveries; queue the deliveries after commit.

    `previous_attributes` holds the before-values of the changed fields the object shows
    (absent on creations). `request` is set for API changes only (SPEC §8 event).
    """
    data_object = render_object(object_name, account_id, object_id)
    if data_object is None:
        return None
    previous = None
    if not created:
        previous = {k: v["before"] for k, v in changes.items() if k in data_object}
    from_api = actor.type == "api_key"
    event = Event.objects.create(
        account_id=account_id,
        type=type_,
        api_version=settings.JOBCOST_API_VERSIONS[-1],
        project_id=data_object.get("project") if object_name != "project" else object_id,
        object_id=object_id,
        data={"object": data_object, "previous_attributes": previous},
        request_id=actor.request_id if from_api else None,
        idempotency_key=actor.idempotency_key if from_api else None,
    )
    endpoints = WebhookEndpoint.objects.filter(
        account_id=account_id, status=EndpointStatus.ENABLED, deleted_at__isnull=True
    ).only("id", "events", "failing_since", "slow_since")
    lanes = {e.pk: lane_for(e) for e in endpoints if subscribes(e.events, type_)}
    now = timezone.now()
    WebhookDelivery.objects.bulk_create(
        WebhookDelivery(
            account_id=account_id,
            endpoint_id=endpoint_id,
            event=event,
            status=DeliveryStatus.PENDING,
            next_attempt_at=now,
        )
        for endpoint_id in lanes
    )
    if lanes:
        drains_after_commit(lanes)
    return event


_pending = threading.local()


def drains_after_commit(lanes: dict[str, str]) -> None:
    """Queue a drain of each endpoint in `lanes` ({endpoint_id: lane}) once the current
    transaction commits — once per endpoint, however many events the transaction recorded
    for it: the first of its commit hooks to run queues everything pending in this thread;
    the others find nothing left. Entries of a transaction that rolled back are queued with
    the next commit: a drain with nothing due returns at once."""
    pending = _pending.__dict__.setdefault("lanes", {})
    pending.update(lanes)
    transaction.on_commit(_queue_pending)


def _queue_pending() -> None:
    lanes = _pending.__dict__.pop("lanes", None)
    if lanes:
        queue_drains(lanes)
