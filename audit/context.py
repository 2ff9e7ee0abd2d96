"""Who is acting: set by the API (the key), the admin (the user) or left as the system.

A ContextVar, so each request or task has its own; the audit signals and the event outbox
read it to stamp actor, request id and idempotency key on what they write.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Actor:
    """`type` is `api_key`, `user` or `system` (docs/resources.md, audit_entry.actor)."""

    type: str = "system"
    id: str | None = None
    role: str | None = None
    request_id: str | None = None
    idempotency_key: str | None = None

    def as_dict(self) -> dict:
        return {"type": self.type, "id": self.id, "role": self.role}


SYSTEM = Actor()
_current: contextvars.ContextVar[Actor] = contextvars.ContextVar("jobcost_actor", default=SYSTEM)


def current_actor() -> Actor:
    """The actor of the running request or task (the system when none was set)."""
    return _current.get()


def start_acting(actor: Actor) -> contextvars.Token:
    """Make `actor` current until `stop_acting(token)`: for code that cannot wrap one block in
    `acting_as` (a viewset learns its key in `initial` and restores in `dispatch`)."""
    return _current.set(actor)


def stop_acting(token: contextvars.Token) -> None:
    """Restore the actor that was current before `start_acting` returned `token`."""
    _current.reset(token)


@contextmanager
def acting_as(actor: Actor) -> Iterator[Actor]:
    """Run a block as `actor`; restores the previous actor afterwards."""
    token = start_acting(actor)
    try:
        yield actor
    finally:
        stop_acting(token)


def set_idempotency_key(key: str | None) -> None:
    """Attach the request's Idempotency-Key to the current actor."""
    _current.set(replace(_current.get(), idempotency_key=key))
