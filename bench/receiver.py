"""What the webhook benchmarks share (bench_webhooks, bench_soak): a loopback receiver that
counts what it is sent, and the URL of this process's database for the worker processes they
start."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

from django.db import connection


class Receiver:
    """A loopback HTTP/1.1 server (keep-alive) that answers every POST 200, after `delay`
    seconds, and counts them."""

    def __init__(self, delay: float = 0.0) -> None:
        self.count = 0
        self.ids: set[str] = set()
        lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # One write per response, sent at once: headers and body written apart would
            # wait on Nagle's algorithm and the client's delayed ACK (40 ms a request).
            disable_nagle_algorithm = True
            wbufsize = 64 * 1024

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with lock:
                    receiver.count += 1
                    receiver.ids.add(self.headers.get("webhook-id", ""))
                if delay:
                    time.sleep(delay)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def reset(self) -> None:
        self.count = 0
        self.ids = set()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def database_url() -> str:
    """The URL of the database this process uses (under pytest, the test database), for the
    worker processes."""
    db = connection.settings_dict
    password = f":{quote(db['PASSWORD'], safe='')}" if db.get("PASSWORD") else ""
    user = quote(db.get("USER") or "", safe="")
    host = db.get("HOST") or "127.0.0.1"
    return f"postgres://{user}{password}@{host}:{db.get('PORT') or 5432}/{db['NAME']}"
