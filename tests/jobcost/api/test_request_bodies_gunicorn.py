"""Request bodies as a real client sends them to the production server
(docs/operations/production.md, "Serving the API (gunicorn)" and "Decisions": "Request bodies"):
gunicorn started with `config/gunicorn.conf.py` on a free loopback port, spoken to over a raw socket
so the test controls chunking and sees a reset.

- A body over 1 MiB declared by Content-Length gets the 413 envelope every time, never a
  connection reset (the server reads and discards the body, up to a bound, before answering).
- A chunked body (no Content-Length) over 1 MiB is 413 `body_too_large`, not read as empty.
- A chunked body under the limit is read and handled like any other.
"""

from __future__ import annotations

import json
import socket
from collections import Counter

import pytest
from django.conf import settings

from jobcost.models import Owner
from tests.factories import AccountFactory, make_key
from tests.live_gunicorn import database_url, gunicorn

LIMIT = settings.MAX_REQUEST_BODY_BYTES
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _exchange(port: int, head: bytes, body_parts=()) -> tuple[int | None, dict, bytes, str]:
    """Send one request and read the answer to EOF: (status, headers, body, failure) where
    failure names a reset or broken pipe ("" when the answer arrived whole)."""
    received = b""
    failure = ""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        try:
            sock.sendall(head)
            for part in body_parts:
                sock.sendall(part)
            while chunk := sock.recv(65536):
                received += chunk
        except (ConnectionResetError, BrokenPipeError) as exc:
            failure = type(exc).__name__
    head_bytes, _, body = received.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines[0].startswith("HTTP/") else None
    headers = {
        name.strip().lower(): value.strip()
        for name, _, value in (line.partition(":") for line in lines[1:])
    }
    if headers.get("transfer-encoding") == "chunked":
        body = _dechunk(body)
    return status, headers, body, failure


def _dechunk(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, rest = data.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            return out + data  # cut short: keep what arrived
        if size == 0:
            break
        out += rest[:size]
        data = rest[size + 2 :]
    return out


def _code(answer: bytes) -> str:
    """The envelope's error code, or what arrived instead."""
    try:
        return json.loads(answer)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return f"no envelope: {answer[:80]!r}"


def _head(method: str, path: str, headers: dict[str, str]) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _chunked(data: bytes, size: int = 64 * 1024):
    for start in range(0, len(data), size):
        piece = data[start : start + size]
        yield f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    yield b"0\r\n\r\n"


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker):
    """A gunicorn of `config/gunicorn.conf.py` (one worker, two threads: the machine is
    shared) on the test database (`tests.live_gunicorn`); yields its port."""
    with django_db_blocker.unblock():
        db_url = database_url()
    with gunicorn(db_url, workers=1, threads=2) as port:
        yield port


def test_an_oversized_body_with_content_length_gets_the_413_every_time(server):
    body = b'{"name": "' + b"x" * (2 * LIMIT) + b'"}'
    outcomes = []
    for attempt in range(30):
        head = _head(
            "POST",
            "/v1/owners",
            {"Content-Type": "application/json", "Content-Length": str(len(body))},
        )
        status, _, answer, failure = _exchange(server, head, [body])
        outcomes.append((attempt, status, failure, _code(answer)))
    tally = Counter(outcome[1:] for outcome in outcomes)
    assert tally == {(413, "", "body_too_large"): 30}, tally


def test_an_oversized_chunked_body_is_413_not_read_as_empty(server):
    body = b'{"name": "' + b"x" * (LIMIT + 1024) + b'"}'
    outcomes = []
    for attempt in range(10):
        head = _head(
            "POST",
            "/v1/owners",
            {"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
        )
        status, _, answer, failure = _exchange(server, head, _chunked(body))
        outcomes.append((attempt, status, failure, _code(answer)))
    tally = Counter(outcome[1:] for outcome in outcomes)
    assert tally == {(413, "", "body_too_large"): 10}, tally


def test_a_chunked_body_under_the_limit_is_read(server):
    account = AccountFactory()
    _, secret = make_key(account, "admin")
    body = json.dumps({"name": "Chunked Owner LLC", "email": "ap@chunked.example"}).encode()
    head = _head(
        "POST",
        "/v1/owners",
        {
            "Authorization": f"Bearer {secret}",
            "Idempotency-Key": "chunked-1",
            "Content-Type": "application/json",
            "Transfer-Encoding": "chunked",
        },
    )
    status, _, answer, failure = _exchange(server, head, _chunked(body, size=7))
    assert (status, failure) == (201, ""), answer
    created = json.loads(answer)
    assert created["name"] == "Chunked Owner LLC"
    assert Owner.objects.filter(pk=created["id"], account=account).exists()
