"""No test reaches past loopback: every socket `connect`, `connect_ex` and `sendto` to an
address off loopback is refused (ConnectionRefusedError, at once) and recorded, and the test
that made it fails with the address and the stack that asked (tests/conftest.py).

Installed by tests/settings.py, so the pytest process and every process the tests start with
the test settings (gunicorn, Celery workers, manage.py) are guarded alike. A refusal in such a
process is appended to the file `JOBCOST_TEST_NETWORK_LOG` names (set here for the pytest
process, inherited by its children), which the pytest process reads after each test.

Loopback is 127.0.0.0/8, ::1 (IPv4-mapped too), the names `localhost` and `*.localhost`
(RFC 6761), and Unix sockets. Host names reach this guard only when a client connects by
name; webhook hosts are resolved through the tests' own resolver (tests/webhooks/resolvers.py,
no DNS query) before anything connects. What C libraries open (libpq) is outside Python's
reach; the tests' database and Redis are on loopback by their URLs.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import tempfile
import threading
import traceback
import uuid
from pathlib import Path

LOG_ENV = "JOBCOST_TEST_NETWORK_LOG"
# The pytest process (xdist worker, or "main") the log belongs to: an xdist worker inherits the
# controller's environment and must start a log of its own.
OWNER_ENV = "JOBCOST_TEST_NETWORK_OWNER"


class OutboundConnectionRefused(ConnectionRefusedError):
    """A test tried to reach an address off loopback."""


_refused: list[str] = []
_lock = threading.Lock()
_installed = False
_owns_log = False  # this process made the log (a pytest process), rather than inherited it


def is_loopback(host: str) -> bool:
    name = host.rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name.split("%")[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def _check(sock: socket.socket, address) -> None:
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return  # Unix sockets and the like stay on this machine
    host = address[0] if isinstance(address, tuple) else str(address)
    if is_loopback(str(host)):
        return
    port = address[1] if isinstance(address, tuple) and len(address) > 1 else "?"
    stack = "".join(traceback.format_stack(limit=12)[:-2])
    message = (
        f"outbound network refused in tests: a connection to {host}:{port} (only loopback is "
        f"allowed; tests/network.py); pid {os.getpid()}, asked from:\n{stack}"
    )
    log = os.environ.get(LOG_ENV)
    if _owns_log or not log:
        with _lock:
            _refused.append(message)
    else:  # a process the tests started: the test's process reads the log
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(message.replace("\n", "\n  ") + "\n\0\n")
    raise OutboundConnectionRefused(message.splitlines()[0])


def record(message: str) -> None:
    """Record a refusal made elsewhere (the browser tests' Chromium, which is not Python):
    the test fails as for a refused socket."""
    with _lock:
        _refused.append(f"outbound network refused in tests: {message}")


def install() -> None:
    """Guard this process's sockets (idempotent), and name the refusal log its children
    inherit."""
    global _installed, _owns_log
    if _installed:
        return
    _installed = True
    owner = os.environ.get("PYTEST_XDIST_WORKER", "main")
    if not os.environ.get(LOG_ENV) or os.environ.get(OWNER_ENV) != owner:
        # Named now, made by the first refusal a child writes (so none is left behind by a
        # process that imports the test settings outside pytest).
        path = Path(tempfile.gettempdir()) / f"jobcost-network-{os.getpid()}-{uuid.uuid4().hex}"
        os.environ[LOG_ENV] = str(path)
        os.environ[OWNER_ENV] = owner
        _owns_log = True
    connect, connect_ex, sendto = (
        socket.socket.connect,
        socket.socket.connect_ex,
        socket.socket.sendto,
    )

    def guarded_connect(self, address):
        _check(self, address)
        return connect(self, address)

    def guarded_connect_ex(self, address):
        _check(self, address)
        return connect_ex(self, address)

    def guarded_sendto(self, data, *args):
        if args:
            _check(self, args[-1])
        return sendto(self, data, *args)

    socket.socket.connect = guarded_connect
    socket.socket.connect_ex = guarded_connect_ex
    socket.socket.sendto = guarded_sendto


def take_refusals() -> list[str]:
    """The refusals recorded since the last call, in this process and in its children."""
    with _lock:
        found = list(_refused)
        _refused.clear()
    log = os.environ.get(LOG_ENV)
    if log and os.path.exists(log) and os.path.getsize(log):
        with open(log, "r+", encoding="utf-8") as handle:
            text = handle.read()
            handle.seek(0)
            handle.truncate()
        found += [entry.strip() for entry in text.split("\n\0\n") if entry.strip()]
    return found


def remove_log() -> None:
    """Delete this process's refusal log (the end of the pytest session that made it)."""
    log = os.environ.get(LOG_ENV)
    if log and _owns_log:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(log)
