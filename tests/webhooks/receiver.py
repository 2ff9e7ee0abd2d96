"""A real HTTP receiver on loopback for webhook tests: records every request and answers
with scripted statuses (the last one repeats), optionally after `delay` seconds and with a
`Location` header (to prove redirects are not followed); it counts the requests it holds at
once. `Silent` is a dead endpoint: it accepts connections and never answers.

A waiting test is woken by the request it waits for (a condition), not by polling; `close()`
returns within `POLL_SECONDS` (the server loop's select timeout: http.server's default of
0.5 s would cost every test that much)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# How often the server loop looks at its shutdown flag (seconds): the bound on close().
POLL_SECONDS = 0.01


class _Ipv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    statuses: list[int] = field(default_factory=lambda: [200])
    requests: list[Received] = field(default_factory=list)
    delay: float = 0.0
    location: str | None = None
    in_flight: int = 0
    max_in_flight: int = 0
    cut_off: int = 0  # answers the client stopped reading before their end
    on_request: Callable[[int], None] | None = None
    host: str = "127.0.0.1"  # "::1": an IPv6 literal's receiver
    headers: dict[str, str] = field(default_factory=dict)  # more headers on every answer
    body: bytes = b"ok"  # the answer's body
    drip: float = 0.0  # seconds between the body's 1 KiB pieces (0: all at once)
    head_drip: float = 0.0  # seconds between the bytes of the answer's head (0: all at once)

    def __post_init__(self):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with receiver._lock:
                    receiver.requests.append(
                        Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    receiver._arrived.notify_all()
                    number = len(receiver.requests)
                    index = min(number, len(receiver.statuses)) - 1
                    status = receiver.statuses[index]
                    receiver.in_flight += 1
                    receiver.max_in_flight = max(receiver.max_in_flight, receiver.in_flight)
                if receiver.on_request is not None:
                    receiver.on_request(number)
                time.sleep(receiver.delay)  # a slow receiver, on purpose
                with receiver._lock:
                    receiver.in_flight -= 1
                try:
                    if receiver.head_drip:  # status line and headers a byte at a time
                        head = f"HTTP/1.1 {status} OK\r\nContent-Length: {len(receiver.body)}"
                        for byte in (head + "\r\n\r\n").encode():
                            self.wfile.write(bytes([byte]))
                            time.sleep(receiver.head_drip)  # a trickling answer, on purpose
                        self.wfile.write(receiver.body)
                        self.close_connection = True
                        return
                    self.send_response(status)
                    if receiver.location:
                        self.send_header("Location", receiver.location)
                    for name, value in receiver.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(receiver.body)))
                    self.end_headers()
                    if not receiver.drip:
                        self.wfile.write(receiver.body)
                    for start in range(0, len(receiver.body) if receiver.drip else 0, 1024):
                        self.wfile.write(receiver.body[start : start + 1024])
                        self.wfile.flush()
                        time.sleep(receiver.drip)  # a slow body, on purpose
                except OSError:  # the client gave up (timeout tests)
                    with receiver._lock:
                        receiver.cut_off += 1

            def log_message(self, *args):
                pass

        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        server_class = _Ipv6Server if ":" in self.host else ThreadingHTTPServer
        self.server = server_class((self.host, 0), Handler)
        self.server.daemon_threads = True  # close() does not wait for a slow answer
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": POLL_SECONDS}, daemon=True
        )
        self.thread.start()

    @property
    def base(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.server.server_address[1]}"

    @property
    def url(self) -> str:
        return self.base + "/hooks"

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        """Block until `count` requests arrived (or fail after `timeout` seconds)."""
        with self._arrived:
            if self._arrived.wait_for(lambda: len(self.requests) >= count, timeout):
                return list(self.requests)
        raise AssertionError(f"expected {count} requests, got {len(self.requests)}")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Silent:
    """A dead endpoint on loopback: the kernel completes the TCP handshake (a listening socket
    with a deep backlog) but nothing ever reads or answers, so every POST waits for the
    sender's timeout."""

    def __init__(self) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(1024)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.socket.getsockname()[1]}/hooks"

    def close(self) -> None:
        self.socket.close()
