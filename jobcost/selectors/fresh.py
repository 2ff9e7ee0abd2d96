"""Rows read through a resource's selector at the end of a write, kept for the rest of that
request so that they are not read twice: the webhook outbox renders each changed object for
its event (`webhooks.outbox`) and the API then answers with the same object
(`JobcostViewSet.render`). A service call (`jobcost.services.common.service`) forgets them all
as it starts, so only rows read after the last service began are ever reused; a row kept inside
a savepoint that later rolled back stays kept (no view reads one back: a write's response
renders what its last service wrote). The outbox keeps the rows of small renders only (a
service's own objects, `webhooks.outbox.PREPARED_IDS`), never a bulk chunk's."""

from __future__ import annotations

import threading

_local = threading.local()


def _rows() -> dict:
    rows = getattr(_local, "rows", None)
    if rows is None:
        rows = _local.rows = {}
    return rows


def keep(serializer_class, rows) -> None:
    """Remember rows just read through `serializer_class.selector`, by their ID."""
    kept = _rows()
    for row in rows:
        kept[(serializer_class, row.pk)] = row


def take(serializer_class, pk: str):
    """The row kept for (`serializer_class`, `pk`), or None; it is forgotten either way."""
    return _rows().pop((serializer_class, pk), None)


def forget() -> None:
    """Drop every kept row (a write is about to start)."""
    _rows().clear()
