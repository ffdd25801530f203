"""A loopback TCP forwarder a test opens and closes: the App reaches a server (PostgreSQL, Redis,
the fake GitHub) through it, and closing it makes that server unreachable on the same address,
its connections cut and new ones refused, until it is opened again."""

from __future__ import annotations

import contextlib
import socket
import threading

from tests.server.appprocess import free_port


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
        sink.shutdown(socket.SHUT_WR)
    except OSError:  # cut by close(), or by either end
        pass


class Forwarder:
    """`port` forwards to 127.0.0.1:`target` while open; closed, nothing listens on it."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._connections: list[socket.socket] = []
        self._lock = threading.Lock()

    def __enter__(self) -> Forwarder:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def open(self) -> Forwarder:
        listener = socket.create_server(("127.0.0.1", self.port))
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), name="forwarder", daemon=True).start()
        return self

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # the listener was closed
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                if self._listener is not listener:  # closed meanwhile: this one is cut too
                    client.close()
                    upstream.close()
                    return
                self._connections += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pipe, args=(source, sink), daemon=True).start()

    def close(self) -> None:
        """Stop listening and cut every connection made through it."""
        with self._lock:
            listener, self._listener = self._listener, None
            connections, self._connections = self._connections, []
        for sock in ([listener] if listener is not None else []) + connections:
            with contextlib.suppress(OSError):  # a listener's shutdown wakes its thread in accept()
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
