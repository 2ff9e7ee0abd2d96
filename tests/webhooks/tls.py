"""A real HTTPS receiver for webhook tests: a certificate made by `openssl` for a host name,
served on a chosen loopback address and port; it records the TLS server name (SNI) and the
`Host` header of every request."""

from __future__ import annotations

import socket
import ssl
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.webhooks.receiver import POLL_SECONDS


def make_certificate(directory: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate (and its key) for DNS name `name`; returns (cert, key)."""
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-days", "1", "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@dataclass
class Seen:
    server_name: str | None
    host: str
    path: str


@dataclass
class TlsReceiver:
    """Answers 200 to every POST on https://`address`:`port` with `cert`; HTTP/1.0 (one
    request per connection) unless `keep_alive`. `connections` counts the TLS connections."""

    address: str
    port: int
    cert: Path
    key: Path
    keep_alive: bool = False
    seen: list[Seen] = field(default_factory=list)

    @property
    def connections(self) -> int:
        return len(self._names)

    def __post_init__(self):
        receiver = self
        names: dict[int, str | None] = {}

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if self.keep_alive else "HTTP/1.0"

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver._lock:
                    name = names.get(id(self.connection))
                    receiver.seen.append(Seen(name, self.headers.get("Host"), self.path))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, self.key)

        def remember(sslsocket, server_name, _context):
            names[id(sslsocket)] = server_name

        context.sni_callback = remember
        self._names = names
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer((self.address, self.port), Handler)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": POLL_SECONDS}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def free_port_on(*addresses: str) -> int:
    """A TCP port free on every one of `addresses` (loopback addresses) at the moment."""
    for _ in range(20):
        with socket.socket() as probe:
            probe.bind((addresses[0], 0))
            port = probe.getsockname()[1]
        try:
            for address in addresses:
                with socket.socket() as other:
                    other.bind((address, port))
            return port
        except OSError:
            continue
    raise AssertionError("no common free port")
