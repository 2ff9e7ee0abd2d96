"""A TCP server that accepts connections and never answers: what a hung Redis looks like to
a client (the connect succeeds, every command waits for a reply that never comes)."""

from __future__ import annotations

import contextlib
import socket
import threading


class HungServer:
    """Listens on a free loopback port; a thread accepts every connection and holds it open,
    reading nothing and writing nothing, until `close()`."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=128)
        self.port = self._listener.getsockname()[1]
        self.accepted = 0
        self._held: list[socket.socket] = []
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """A Redis URL pointing at this server."""
        return f"redis://127.0.0.1:{self.port}/0"

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _addr = self._listener.accept()
            except OSError:  # the listener was closed
                return
            self._held.append(conn)
            self.accepted += 1

    def close(self) -> None:
        self._closed.set()
        # close() alone does not wake a thread blocked in accept() (the join waited its whole
        # 5 s); shutdown() does, at once, on Linux.
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self._thread.join(timeout=5)
        assert not self._thread.is_alive(), "the accepting thread did not stop"
        for conn in self._held:
            conn.close()
