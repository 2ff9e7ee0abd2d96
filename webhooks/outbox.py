"""The transactional outbox (docs/webhooks.md): every audited change in the catalogue
becomes an event row and one delivery row per subscribed endpoint, in the change's own transaction.
A
change that rolls back leaves neither; a committed one is never lost, because the endpoints'
drains (webhooks/drain.py, one task per endpoint on its lane) are only queued after commit and
the beat sweep finds anything a broker outage dropped."""

from __future__ import annotations

import json
import threading
from collections import defaultdict

from django.conf import settings
from django.db import connection, transaction
from django.db.models.sql import InsertQuery
from django.utils import timezone

from audit.context import Actor
from jobcost.api.output import render_many
from jobcost.api.renderers import dumps
from jobcost.resources import RESOURCES
from jobcost.scope import Scope
from jobcost.selectors import fetch, fresh, prepared
from webhooks.catalogue import event_type, subscribes
from webhooks.lanes import lane_for
from webhooks.models import DeliveryStatus, EndpointStatus, Event, WebhookDelivery, WebhookEndpoint
from webhooks.tasks import queue_drains

# A render of up to this many objects of a type (a service's write, a small batch) reuses SQL
# compiled once per count, and its rows are kept for the response (`jobcost.selectors.fresh`);
# a bulk write's larger chunks compile theirs and keep none, so the kept SQL stays a few dozen
# statements per selector and the kept rows a few per write.
PREPARED_IDS = 8


def render_object(object_name: str, account_id: str, object_id: str) -> dict | None:
    """The object as GET would return it now, as plain JSON data."""
    return render_objects(object_name, account_id, [object_id]).get(object_id)


def render_objects(object_name: str, account_id: str, object_ids) -> dict[str, dict]:
    """{id: the object as GET would return it now} for the visible ones: read in one query
    (with its prefetches), whose SQL is compiled once per selector and number of IDs up to
    `PREPARED_IDS`, and rendered by the serializer compiled as a GET renders it
    (`jobcost.api.output`)."""
    serializer_class = RESOURCES[object_name].serializer_class
    selector, ids = serializer_class.selector, sorted(set(object_ids))

    def build(account_id, ids):
        return selector(Scope(account_id)).filter(pk__in=ids)

    if len(ids) > PREPARED_IDS:
        # A bulk write's chunk: no response reuses its rows, so none is kept (a 10,000-row
        # import would keep them all in the thread until its next service call).
        rows = fetch.fetch(build(account_id, ids))
    else:
        rows = fetch.many(
            (render_objects, selector, len(ids)), build, account_id=account_id, ids=ids
        )
        fresh.keep(serializer_class, rows)
    data = json.loads(dumps(render_many(serializer_class, rows, context={})))
    return {obj.pk: rendered for obj, rendered in zip(rows, data, strict=True)}


def _created(action: str) -> bool:
    return action in ("created", "requested", "proposed")


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
        created=_created(entry.action),
    )


def on_entries_recorded(sender, entries, actor: Actor, insert=None, **kwargs) -> None:
    """Receiver of `audit.services.entries_recorded` (a bulk write of entries): the same
    events and deliveries as `on_entry_recorded` per entry, in a constant number of queries —
    one render query per object type; one statement that inserts the events (and the audit
    entries, when `insert` hands them over) and reads the enabled endpoints of every account
    concerned; one INSERT of deliveries."""
    typed = [(e, t) for e in entries if (t := event_type(e.target_type, e.action)) is not None]
    wanted: dict[tuple[str, str], set[str]] = defaultdict(set)
    for entry, _type in typed:
        wanted[(entry.target_type, entry.account_id)].add(entry.target_id)
    rendered: dict[tuple[str, str], dict] = {}
    for (object_name, account_id), ids in wanted.items():
        for object_id, data in render_objects(object_name, account_id, ids).items():
            rendered[(object_name, object_id)] = data
    events = [
        _event(
            type_=type_,
            object_name=entry.target_type,
            account_id=entry.account_id,
            object_id=entry.target_id,
            changes=entry.changes,
            actor=actor,
            created=_created(entry.action),
            data_object=rendered[(entry.target_type, entry.target_id)],
        )
        for entry, type_ in typed
        if (entry.target_type, entry.target_id) in rendered
    ]
    _record(events, entries_insert=insert)


def _event(
    *,
    type_: str,
    object_name: str,
    account_id: str,
    object_id: str,
    changes: dict,
    actor: Actor,
    created: bool,
    data_object: dict,
) -> Event:
    """The unsaved event row of one change (see `event_record`)."""
    previous = None
    if not created:
        previous = {k: v["before"] for k, v in changes.items() if k in data_object}
    from_api = actor.type == "api_key"
    return Event(
        account_id=account_id,
        type=type_,
        api_version=settings.JOBCOST_API_VERSIONS[-1],
        project_id=data_object.get("project") if object_name != "project" else object_id,
        object_id=object_id,
        data={"object": data_object, "previous_attributes": previous},
        request_id=actor.request_id if from_api else None,
        idempotency_key=actor.idempotency_key if from_api else None,
    )


def _record(events: list[Event], entries_insert=None) -> None:
    """Insert the events and their pending deliveries (one per subscribed endpoint); queue a
    drain of each endpoint owed something, on its lane, after commit. `entries_insert`: the
    audit entries' pending INSERT (`audit.services.PendingInsert`), run in the same
    statement as the events'."""
    if not events:
        return
    endpoints_of = _insert_and_read_endpoints(events, entries_insert)
    now = timezone.now()
    lanes: dict[str, str] = {}
    deliveries = []
    for event in events:
        for endpoint in endpoints_of[event.account_id]:
            if subscribes(endpoint.events, event.type):
                lanes[endpoint.pk] = lane_for(endpoint)
                deliveries.append(
                    WebhookDelivery(
                        account_id=event.account_id,
                        endpoint_id=endpoint.pk,
                        event=event,
                        status=DeliveryStatus.PENDING,
                        next_attempt_at=now,
                    )
                )
    WebhookDelivery.objects.bulk_create(deliveries)
    if lanes:
        drains_after_commit(lanes)


def _insert_and_read_endpoints(
    events: list[Event], entries_insert=None
) -> dict[str, list[WebhookEndpoint]]:
    """Insert the events (and the audit entries of `entries_insert`, when given) and read the
    enabled endpoints of their accounts ({account ID: endpoints}); on PostgreSQL in one
    statement (the INSERTs as CTEs of the SELECT)."""
    accounts = sorted({event.account_id for event in events})
    if connection.vendor != "postgresql":
        Event.objects.bulk_create(events)
        found = list(_enabled_endpoints(accounts))
    else:
        insert = InsertQuery(Event)
        insert.insert_values(Event._meta.concrete_fields, events)
        ((insert_sql, insert_params),) = insert.get_compiler(connection=connection).as_sql()
        # Compiled once per number of accounts (`prepared.statement`): a write's SQL.
        select = prepared.statement(
            (_enabled_endpoints, len(accounts)), _enabled_endpoints, accounts=accounts
        )
        if select is None:
            select = _enabled_endpoints(accounts).query.sql_with_params()
        select_sql, select_params = select
        ctes, params = [f"inserted AS ({insert_sql})"], [*insert_params]
        entries = entries_insert.take() if entries_insert is not None else None
        if entries is not None:
            ctes.insert(0, f"entries AS ({entries[0]})")
            params[:0] = entries[1]
        found = list(
            WebhookEndpoint.objects.raw(
                f"WITH {', '.join(ctes)} {select_sql}", [*params, *select_params]
            )
        )
        for event in events:
            event._state.adding = False
            event._state.db = connection.alias
    endpoints_of: dict[str, list[WebhookEndpoint]] = {account_id: [] for account_id in accounts}
    for endpoint in found:
        endpoints_of[endpoint.account_id].append(endpoint)
    return endpoints_of


def _enabled_endpoints(accounts):
    """The enabled, undeleted endpoints of `accounts` (IDs), with what `_record` reads."""
    return WebhookEndpoint.objects.filter(
        account_id__in=accounts, status=EndpointStatus.ENABLED, deleted_at__isnull=True
    ).only("id", "account_id", "events", "failing_since", "slow_since")


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
    (absent on creations). `request` is set for API changes only (docs/resources.md, event).
    """
    data_object = render_object(object_name, account_id, object_id)
    if data_object is None:
        return None
    event = _event(
        type_=type_,
        object_name=object_name,
        account_id=account_id,
        object_id=object_id,
        changes=changes,
        actor=actor,
        created=created,
        data_object=data_object,
    )
    _record([event])
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
