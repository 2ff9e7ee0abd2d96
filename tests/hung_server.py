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
            self._on_accept(conn)

    def _on_accept(self, conn: socket.socket) -> None:
        """What happens to a connection once accepted: here, nothing (it is held silent)."""

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


class ScriptsHungServer(HungServer):
    """Answers every command of a connection's handshake and setup (`HELLO` with a map saying
    protocol 3, anything else with `+OK`) but never a script (`EVALSHA`, `EVAL`), which it
    reads and holds: a Redis that hangs after the connection is made. `commands` lists each
    command's name as read."""

    HANGS_ON = frozenset({"EVALSHA", "EVAL"})

    def __init__(self) -> None:
        self.commands: list[str] = []
        super().__init__()

    def _on_accept(self, conn: socket.socket) -> None:
        threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        buffer = b""
        while True:
            try:
                chunk = conn.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while (parsed := _one_command(buffer)) is not None:
                name, buffer = parsed
                self.commands.append(name)
                if name == "HELLO":
                    conn.sendall(b"%1\r\n+proto\r\n:3\r\n")
                elif name not in self.HANGS_ON:
                    conn.sendall(b"+OK\r\n")


def _one_command(buffer: bytes) -> tuple[str, bytes] | None:
    """The name of the first whole RESP command in `buffer` and what follows it, or None."""
    if not buffer.startswith(b"*") or b"\r\n" not in buffer:
        return None
    header, rest = buffer.split(b"\r\n", 1)
    parts = []
    for _ in range(int(header[1:])):
        if b"\r\n" not in rest:
            return None
        length_line, rest = rest.split(b"\r\n", 1)
        length = int(length_line[1:])
        if len(rest) < length + 2:
            return None
        parts.append(rest[:length])
        rest = rest[length + 2 :]
    return parts[0].decode().upper(), rest
